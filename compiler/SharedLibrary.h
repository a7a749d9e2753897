// `nasc compile`: a model as a shared library with the C ABI of compiler/LibraryAbi.h.
#pragma once

#include "compiler/Pipeline.h"

#include <string>

namespace nasc::compiler {

/// Compiles `model` into the shared library `soPath` (weights embedded, no side files) and,
/// if `headerPath` is not empty, writes its C header there. The generated object (for
/// `options.target`) is linked with the ABI's C source by linkCompiler (`$CC`, else `cc` for
/// a native target, else Debian's `<triple>-gcc`; with -fopenmp: the library needs libgomp);
/// only the `nasc_model_*` symbols are exported. The library's default thread count is
/// `options.threads`. Returns the wall-clock time of its phases (LLVM IR emission, LLVM O3,
/// object file, link). Throws nasc::Error naming the failing step (object emission, a missing
/// cross compiler, the compiler command and its exit status, or an unwritable path).
ir::PassTimes emitSharedLibrary(const PolyhedralModel &model, const CompileOptions &options,
                                const std::string &soPath, const std::string &headerPath);

} // namespace nasc::compiler
