#include "codegen/TargetDescription.h"

#include "codegen/Target.h"
#include "ir/Error.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <sstream>

namespace nasc::codegen {

namespace {

/// x86 instruction-set extensions that both GCC's and clang's __builtin_cpu_supports name
/// (LLVM spells them the same way): what an emitted library checks at run time.
const std::vector<std::string> kCheckableX86Features = {"cmov",
                                                        "mmx",
                                                        "popcnt",
                                                        "sse",
                                                        "sse2",
                                                        "sse3",
                                                        "ssse3",
                                                        "sse4.1",
                                                        "sse4.2",
                                                        "avx",
                                                        "avx2",
                                                        "sse4a",
                                                        "fma4",
                                                        "xop",
                                                        "fma",
                                                        "avx512f",
                                                        "bmi",
                                                        "bmi2",
                                                        "aes",
                                                        "pclmul",
                                                        "avx512vl",
                                                        "avx512bw",
                                                        "avx512dq",
                                                        "avx512cd",
                                                        "avx512vbmi",
                                                        "avx512ifma",
                                                        "avx512vpopcntdq",
                                                        "avx512vbmi2",
                                                        "gfni",
                                                        "vpclmulqdq",
                                                        "avx512vnni",
                                                        "avx512bitalg",
                                                        "avx512bf16",
                                                        "avx512vp2intersect"};

/// LLVM's feature string for the host: "+f" for each feature the machine reports, "-f" for each
/// it lacks (so a CPU model with AVX-512 keeps it off where a VM masks it).
std::string hostFeatureString(const llvm::StringMap<bool> &features) {
  std::vector<std::string> items;
  for (const auto &entry : features)
    items.push_back((entry.getValue() ? "+" : "-") + entry.getKey().str());
  std::sort(items.begin(), items.end());
  std::string text;
  for (const std::string &item : items)
    text += (text.empty() ? "" : ",") + item;
  return text;
}

std::vector<std::string> enabledHostFeatures(const llvm::StringMap<bool> &features) {
  std::vector<std::string> names;
  for (const auto &entry : features)
    if (entry.getValue())
      names.push_back(entry.getKey().str());
  std::sort(names.begin(), names.end());
  return names;
}

std::string knownCpus(const llvm::MCSubtargetInfo &sti) {
  std::string names;
  for (const llvm::SubtargetSubTypeKV &kv : sti.getAllProcessorDescriptions())
    names += (names.empty() ? "" : ", ") + std::string(kv.Key);
  return names;
}

const llvm::Target &lookupTarget(const std::string &triple) {
  initializeLlvm();
  std::string lookupError;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!t)
    throw Error("target: unknown target triple '" + triple + "': " + lookupError);
  return *t;
}

/// The features LLVM's model of `cpu` enables on `triple` (ISA and tuning features).
/// Throws nasc::Error if LLVM does not know the CPU.
std::vector<std::string> cpuFeatures(const std::string &triple, const std::string &cpu) {
  const llvm::Target &t = lookupTarget(triple);
  std::unique_ptr<llvm::MCSubtargetInfo> sti(t.createMCSubtargetInfo(triple, "generic", ""));
  if (!sti)
    throw Error("target: LLVM has no subtarget information for '" + triple + "'");
  if (!sti->isCPUStringValid(cpu))
    throw Error("target: unknown CPU '" + cpu + "' for " + triple + " (LLVM knows: host, " +
                knownCpus(*sti) + ")");
  sti.reset(t.createMCSubtargetInfo(triple, cpu, ""));
  std::vector<std::string> names;
  for (const llvm::SubtargetFeatureKV &kv : sti->getAllProcessorFeatures())
    if (sti->checkFeatures(std::string("+") + kv.Key))
      names.push_back(kv.Key);
  std::sort(names.begin(), names.end());
  return names;
}

std::string plusFeatures(const std::vector<std::string> &features) {
  std::string text;
  for (const std::string &f : features)
    text += (text.empty() ? "+" : ",+") + f;
  return text;
}

VectorUnit vectorUnitOf(const Target &target) {
  llvm::Triple triple(target.triple);
  if (triple.isAArch64())
    return {4, 32};
  if (triple.isX86() && target.has("avx512f"))
    return {16, 32};
  if (triple.isX86() && target.has("avx"))
    return {8, 16};
  return {4, 16};
}

bool runsHere(const llvm::Triple &triple) {
  llvm::Triple process(llvm::sys::getProcessTriple());
  return triple.getArch() == process.getArch() && triple.getOS() == process.getOS();
}

std::string joined(const std::vector<std::string> &items) {
  std::string text;
  for (const std::string &item : items)
    text += (text.empty() ? "" : ", ") + item;
  return text;
}

} // namespace

bool Target::has(const std::string &name) const {
  return std::binary_search(features.begin(), features.end(), name);
}

std::string defaultCpu() {
  const char *forced = std::getenv("NASC_CPU");
  return forced && *forced ? forced : "host";
}

Target resolveTarget(const std::string &triple, const std::string &cpu) {
  Target target;
  target.triple =
      triple == "native" ? llvm::sys::getProcessTriple() : llvm::Triple::normalize(triple);
  target.native = runsHere(llvm::Triple(target.triple));
  lookupTarget(target.triple);
  target.cpu = !cpu.empty() ? cpu : target.native ? defaultCpu() : "generic";
  if (target.cpu == "host") {
    if (!target.native)
      throw Error("target: CPU 'host' needs the host's triple, not '" + triple + "'");
    llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
    target.cpu = llvm::sys::getHostCPUName().str();
    target.features = enabledHostFeatures(host);
    target.llvmFeatures = hostFeatureString(host);
  } else {
    target.features = cpuFeatures(target.triple, target.cpu);
    target.llvmFeatures = plusFeatures(target.features);
  }
  target.vector = vectorUnitOf(target);
  return target;
}

std::vector<std::string> runtimeCheckedFeatures(const Target &target) {
  std::vector<std::string> checked;
  if (!llvm::Triple(target.triple).isX86())
    return checked;
  for (const std::string &f : target.features)
    if (std::find(kCheckableX86Features.begin(), kCheckableX86Features.end(), f) !=
        kCheckableX86Features.end())
      checked.push_back(f);
  return checked;
}

std::vector<std::string> missingHostFeatures(const Target &target) {
  if (!target.native)
    throw Error("target: code for " + target.triple + " cannot run on this machine (" +
                llvm::sys::getProcessTriple() + ")");
  llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  std::vector<std::string> missing;
  for (const std::string &f : runtimeCheckedFeatures(target))
    if (!host.lookup(f))
      missing.push_back(f);
  return missing;
}

void requireRunnableHere(const Target &target) {
  std::vector<std::string> missing = missingHostFeatures(target);
  if (!missing.empty())
    throw Error("target: code for CPU '" + target.cpu + "' needs " + joined(missing) +
                ", which this machine (" + llvm::sys::getHostCPUName().str() + ") lacks");
}

std::string describeTarget(const Target &target) {
  std::ostringstream os;
  os << "triple: " << target.triple << "\n"
     << "cpu: " << target.cpu << "\n"
     << "vector unit: " << target.vector.lanes << " x f32 (" << target.vector.bits() << "-bit), "
     << target.vector.registers << " registers\n"
     << "checked when a library is loaded: ";
  std::vector<std::string> checked = runtimeCheckedFeatures(target);
  os << (checked.empty() ? "nothing beyond the baseline" : joined(checked)) << "\n";
  return os.str();
}

} // namespace nasc::codegen
