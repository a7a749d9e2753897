// Per-kernel timing of a JIT-compiled program built with the profiling hook (nasc bench).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" {
/// The hook generated code calls after kernel call `call` returns (codegen::kProfileSymbol):
/// records a steady-clock timestamp for the calling thread's active KernelProfile.
void nasc_profile_kernel_end(int32_t call);
}

namespace nasc::runtime {

/// Times the kernels of one run on this thread: construct it just before calling a profiled
/// program's run function, call `seconds()` after it returns.
class KernelProfile {
public:
  explicit KernelProfile(size_t calls);
  ~KernelProfile();
  KernelProfile(const KernelProfile &) = delete;
  KernelProfile &operator=(const KernelProfile &) = delete;

  /// Seconds spent in each kernel call (from the previous call's end, or the profile's start).
  std::vector<double> seconds() const;

private:
  friend void ::nasc_profile_kernel_end(int32_t call);
  int64_t start_;
  std::vector<int64_t> ends_;
};

} // namespace nasc::runtime
