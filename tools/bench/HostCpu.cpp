#include "tools/bench/HostCpu.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/TargetParser/Host.h>

#include <fstream>

namespace nasc::bench {

namespace {

/// The value of the first /proc/cpuinfo line whose key is `key` ("model name	: AMD EPYC"), or
/// "" if there is none.
std::string cpuinfoField(const std::string &key) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    auto colon = line.find(':');
    if (colon == std::string::npos || line.compare(0, key.size(), key) != 0)
      continue;
    auto rest = line.find_first_not_of(" \t", key.size());
    if (rest == colon && colon + 2 <= line.size())
      return line.substr(colon + 2);
  }
  return "";
}

} // namespace

std::string cpuModelName() {
  const std::string name = cpuinfoField("model name"), family = cpuinfoField("cpu family"),
                    model = cpuinfoField("model");
  if (name.empty())
    return "unknown";
  if (family.empty() || model.empty())
    return name;
  return name + " (family " + family + ", model " + model + ")";
}

std::string llvmHostCpuName() { return llvm::sys::getHostCPUName().str(); }

std::string loadAverage() {
  std::ifstream loadavg("/proc/loadavg");
  std::string one, five, fifteen;
  if (!(loadavg >> one >> five >> fifteen))
    return "unknown";
  return one + " " + five + " " + fifteen;
}

} // namespace nasc::bench
