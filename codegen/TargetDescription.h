// What code is generated for: triple, CPU, features and vector unit, resolved once from the
// user's --target / --cpu and used by every stage that depends on the machine.
#pragma once

#include <string>
#include <vector>

namespace nasc::codegen {

/// The float vector unit of a target: the lanes of the f32 vectors nasc's code uses, its
/// count of vector registers. AVX-512 (avx512f): 16 lanes (512 bits) and 32 registers; AVX or
/// AVX2: 8 and 16; AArch64 (NEON): 4 and 32; other targets (SSE): 4 and 16.
struct VectorUnit {
  int lanes = 4;
  int registers = 16;

  /// The vector width in bits (32 per f32 lane): the "prefer-vector-width" of generated code.
  int bits() const { return 32 * lanes; }
};

/// What code is generated for: one description that drives the default trace (its vector
/// unit), the LLVM target machine and function attributes ("target-cpu", "target-features",
/// "prefer-vector-width"), the run-time feature check of an emitted library and the check
/// before running JIT code on this machine.
struct Target {
  std::string triple;                ///< normalised LLVM triple, e.g. "x86_64-pc-linux-gnu"
  std::string cpu;                   ///< LLVM CPU name, e.g. "znver3", "x86-64-v3", "generic"
  std::vector<std::string> features; ///< enabled LLVM features, sorted, e.g. "avx2", "fma"
  VectorUnit vector;
  bool native = false;      ///< triple is this process's (its code can run here)
  std::string llvmFeatures; ///< the string given to LLVM (host: "-f" for missing ones)

  /// Whether feature `name` (LLVM's name, e.g. "avx512f") is enabled.
  bool has(const std::string &name) const;
};

/// The CPU used when none is given: $NASC_CPU if set and not empty (e.g. "x86-64-v3", to force
/// an AVX2 target on any machine), else "host".
std::string defaultCpu();

/// The Target for `triple` ("native": this process's triple) and `cpu`:
/// - "host" (native only): the detected CPU name (llvm::sys::getHostCPUName) with the features
///   the machine reports (llvm::sys::getHostCPUFeatures, so a VM's masked AVX-512 stays off);
/// - an LLVM CPU name or ISA level (x86-64-v2/v3/v4; "generic"): that CPU's features as LLVM
///   defines them;
/// - "": defaultCpu() for native, "generic" for another triple.
/// The vector unit follows from the features: the widest f32 vector (avx512f: 512 bits, even
/// where LLVM's tuning prefers 256-bit vectors; avx: 256; NEON / SSE: 128), so the register
/// tile the default trace sizes is the one the vectorizer emits.
/// Throws nasc::Error for a triple LLVM has no target for, "host" with another triple, or a
/// CPU LLVM does not know for the triple (the message lists the names it knows).
Target resolveTarget(const std::string &triple = "native", const std::string &cpu = "");

/// The features of `target` that an emitted library checks when nasc_model_create runs
/// (x86: the instruction-set extensions that GCC's and clang's __builtin_cpu_supports both
/// name, e.g. avx2, fma, avx512f; AArch64: none beyond the baseline), in `target.features`
/// order.
std::vector<std::string> runtimeCheckedFeatures(const Target &target);

/// The features of `target` that this machine lacks (empty when its code can run here).
/// Throws nasc::Error if `target` is not native.
std::vector<std::string> missingHostFeatures(const Target &target);

/// Throws nasc::Error naming the CPU and the features this machine lacks, unless code for
/// `target` can run here (missingHostFeatures is empty).
void requireRunnableHere(const Target &target);

/// A few lines describing `target`: triple, CPU, vector unit, and the features a library checks
/// at run time; for `nasc inspect --stage target` and the generated header.
std::string describeTarget(const Target &target);

} // namespace nasc::codegen
