// The C compiler that links a compiled model's shared library: the host's for "native", Debian's
// cross compiler for another triple; and the linker it uses (lld where it is installed).
#pragma once

#include <string>
#include <vector>

namespace nasc::compiler {

/// Debian's name of an LLVM target triple: arch-os-environment without a vendor, as Debian
/// names its cross toolchains (e.g. "aarch64-unknown-linux-gnu" -> "aarch64-linux-gnu"; a
/// triple of three or fewer components is returned as it is).
std::string debianTriple(const std::string &triple);

/// The C compiler command that links a library for `target` ("native" or an LLVM triple):
/// $CC when it is set and not empty, whatever the target; else "cc" for "native"; else Debian's
/// cross compiler `<debianTriple(target)>-gcc` (package gcc-<triple with '_' as '-'>, e.g.
/// gcc-aarch64-linux-gnu, whose recommended libc6-dev-<arch>-cross holds the target's libc and
/// whose libgcc brings the target's libgomp), looked up on $PATH. Throws nasc::Error naming the
/// missing compiler and the Debian package when it is not on $PATH.
std::string linkCompiler(const std::string &target);

/// The flags that choose the linker for linkCompiler(target): {"-fuse-ld=lld"} when nasc links
/// with the host's cc (target "native", $CC unset or empty) and LLVM's linker `ld.lld` is on
/// $PATH (Debian's lld, which scripts/install-deps.sh installs); else none (the compiler's own
/// linker, GNU ld). lld links a ResNet-50 library (its 100 MB of weights in the objects) in
/// 0.36-0.55 s where GNU ld takes 1.15-1.30 s (AMD EPYC Zen 5, 2026-12-04, docs/performance.md).
std::vector<std::string> linkerFlags(const std::string &target);

} // namespace nasc::compiler
