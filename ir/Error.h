// Error type for every failure nasc reports to a user: one clear line naming what is wrong.
#pragma once

#include <stdexcept>
#include <string>

namespace nasc {

/// A user-facing error (bad model, unsupported op or attribute, bad CLI input, failed build).
/// `what()` is one line meant to be printed as is, e.g.
/// "model.onnx: node 'conv1' (Conv): attribute 'auto_pad': value 'FOO' is not supported".
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : std::runtime_error(message) {}
};

} // namespace nasc
