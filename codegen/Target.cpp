#include "codegen/Target.h"

#include "ir/Error.h"

#include <llvm/IR/DiagnosticHandler.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/SmallVectorMemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/GVN.h>
#include <llvm/Transforms/Scalar/LICM.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <mutex>

namespace nasc::codegen {

void initializeLlvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

namespace {

/// Emits `module` for `tm` as `type` into `out`, on a clone so `module` stays untouched by the
/// code generator's IR preparation passes.
void emitFile(llvm::Module &module, llvm::TargetMachine &tm, llvm::raw_pwrite_stream &out,
              llvm::CodeGenFileType type) {
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(module);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, out, nullptr, type))
    throw Error("codegen: target '" + tm.getTargetTriple().str() + "' cannot emit this file type");
  pm.run(*copy);
}

/// Drops the optimizer's remarks and "loop not vectorized" warnings: every innermost loop
/// requests vectorization, so LLVM declining one (e.g. a recurrence) is expected, not news.
class QuietOptimizerDiagnostics : public llvm::DiagnosticHandler {
public:
  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    return llvm::isa<llvm::DiagnosticInfoOptimizationBase>(info);
  }
};

/// Installs QuietOptimizerDiagnostics on a context and restores the previous handler.
class QuietOptimizerScope {
public:
  explicit QuietOptimizerScope(llvm::LLVMContext &context)
      : context_(context), previous_(context.getDiagnosticHandler()) {
    context_.setDiagnosticHandler(std::make_unique<QuietOptimizerDiagnostics>());
  }
  ~QuietOptimizerScope() { context_.setDiagnosticHandler(std::move(previous_)); }
  QuietOptimizerScope(const QuietOptimizerScope &) = delete;
  QuietOptimizerScope &operator=(const QuietOptimizerScope &) = delete;

private:
  llvm::LLVMContext &context_;
  std::unique_ptr<llvm::DiagnosticHandler> previous_;
};

/// GVN, then LICM with promotion, then InstCombine, after the O3 pipeline: a loop of two
/// iterations that LLVM 19 rewrites late (its induction variable a phi of two constants) can
/// leave two copies of one index, so that alias analysis cannot tell a register tile's
/// accumulators apart and LICM keeps them in memory, a load and a store per FMA (a grouped 3x3
/// conv at 14x14 on Zen 5: 0.25 -> 0.80 ms). GVN merges the copies; LICM then promotes. GVN runs
/// without PRE: its load PRE would carry the input columns a filter-column step shifts across
/// iterations in registers, which an AVX2 depthwise tile of 14 accumulators does not have
/// (spills: MobileNetV2's 384x14x14 depthwise 3x3 0.017 -> 0.04 ms with NASC_CPU=x86-64-v3).
void addAccumulatorPromotion(llvm::ModulePassManager &mpm, llvm::OptimizationLevel) {
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::GVNPass(llvm::GVNOptions().setPRE(false).setLoadPRE(false)));
  fpm.addPass(llvm::createFunctionToLoopPassAdaptor(llvm::LICMPass(llvm::LICMOptions()),
                                                    /*UseMemorySSA=*/true));
  fpm.addPass(llvm::InstCombinePass());
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
}

void runO3Pipeline(llvm::Module &module, llvm::TargetMachine &tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  tuning.LoopUnrolling = true;
  llvm::PassBuilder pb(&tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.registerOptimizerLastEPCallback(addAccumulatorPromotion);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  QuietOptimizerScope quiet(module.getContext());
  mpm.run(module, mam);
}

} // namespace

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const Target &target) {
  initializeLlvm();
  std::string lookupError;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(target.triple, lookupError);
  if (!t)
    throw Error("codegen: unknown target triple '" + target.triple + "': " + lookupError);
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(
      t->createTargetMachine(target.triple, target.cpu, target.llvmFeatures, options,
                             llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!tm)
    throw Error("codegen: LLVM could not create a target machine for '" + target.triple + "'");
  return tm;
}

void optimizeModule(llvm::Module &module, llvm::TargetMachine &tm, const Target &target) {
  module.setTargetTriple(tm.getTargetTriple().str());
  module.setDataLayout(tm.createDataLayout());
  for (llvm::Function &f : module) {
    if (f.isDeclaration())
      continue;
    f.addFnAttr("target-cpu", target.cpu);
    f.addFnAttr("target-features", target.llvmFeatures);
    f.addFnAttr("prefer-vector-width", std::to_string(target.vector.bits()));
  }
  std::string verifyMessage;
  llvm::raw_string_ostream verifyStream(verifyMessage);
  if (llvm::verifyModule(module, &verifyStream))
    throw Error("codegen: generated LLVM IR is invalid: " + verifyStream.str());
  runO3Pipeline(module, tm);
}

void writeObjectFile(llvm::Module &module, llvm::TargetMachine &tm, const std::string &path) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    throw Error(path + ": cannot open for writing: " + ec.message());
  emitFile(module, tm, out, llvm::CodeGenFileType::ObjectFile);
  out.close();
  if (out.has_error()) {
    std::string message = out.error().message();
    out.clear_error();
    throw Error(path + ": write failed: " + message);
  }
}

std::unique_ptr<llvm::MemoryBuffer> compileObject(llvm::Module &module, llvm::TargetMachine &tm) {
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream out(bytes);
  emitFile(module, tm, out, llvm::CodeGenFileType::ObjectFile);
  return std::make_unique<llvm::SmallVectorMemoryBuffer>(std::move(bytes),
                                                         module.getName().str() + ".o", false);
}

std::string moduleToString(const llvm::Module &module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return os.str();
}

std::string moduleToAssembly(llvm::Module &module, llvm::TargetMachine &tm) {
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  emitFile(module, tm, os, llvm::CodeGenFileType::AssemblyFile);
  return std::string(text.str());
}

} // namespace nasc::codegen
