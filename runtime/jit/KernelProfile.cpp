#include "runtime/jit/KernelProfile.h"

#include <chrono>

namespace nasc::runtime {

namespace {

thread_local KernelProfile *active = nullptr;

int64_t nowNanoseconds() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace

KernelProfile::KernelProfile(size_t calls) : start_(nowNanoseconds()), ends_(calls, -1) {
  active = this;
}

KernelProfile::~KernelProfile() { active = nullptr; }

std::vector<double> KernelProfile::seconds() const {
  std::vector<double> result;
  int64_t previous = start_;
  for (int64_t end : ends_) {
    result.push_back(end < 0 ? 0.0 : 1e-9 * static_cast<double>(end - previous));
    previous = end < 0 ? previous : end;
  }
  return result;
}

} // namespace nasc::runtime

extern "C" void nasc_profile_kernel_end(int32_t call) {
  nasc::runtime::KernelProfile *profile = nasc::runtime::active;
  if (profile && call >= 0 && static_cast<size_t>(call) < profile->ends_.size())
    profile->ends_[static_cast<size_t>(call)] = nasc::runtime::nowNanoseconds();
}
