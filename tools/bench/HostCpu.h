// Names of the machine a benchmark ran on, for its report.
#pragma once

#include <string>

namespace nasc::bench {

/// The CPU's name from /proc/cpuinfo: "model name" (what lscpu prints as "Model name") with
/// "cpu family" and "model" when present, e.g. "AMD EPYC (family 25, model 1)" (family 25 is
/// AMD Zen 3 / Zen 4, 26 Zen 5; virtual machines often hide the rest of the name); "unknown"
/// if there is no model name.
std::string cpuModelName();

/// LLVM's name of the host CPU (llvm::sys::getHostCPUName, e.g. "znver3"): the CPU nasc's
/// native target compiles for.
std::string llvmHostCpuName();

/// The 1, 5 and 15 minute load averages of /proc/loadavg ("0.20 0.08 0.30"), or "unknown".
std::string loadAverage();

} // namespace nasc::bench
