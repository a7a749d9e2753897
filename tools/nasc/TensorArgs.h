// Binding `[NAME=]FILE.npy` command-line arguments to a model's inputs and outputs.
#pragma once

#include "ir/Program.h"

#include <string>
#include <vector>

namespace nasc::cli {

/// Resolves `[NAME=]FILE` arguments against the named buffers `ids` of `program` (its inputs
/// or outputs): unnamed arguments take the buffers in order, named ones the buffer with that
/// name. Returns one file per buffer. Throws nasc::Error for an unknown name, a buffer bound
/// twice, or one left unbound (`kind` is "input" or "output", for the message).
std::vector<std::string> bindFiles(const std::vector<std::string> &args, const ir::Program &program,
                                   const std::vector<int> &ids, const std::string &kind);

} // namespace nasc::cli
