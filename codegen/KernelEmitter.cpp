#include "codegen/KernelEmitter.h"

#include "codegen/AstExprEmitter.h"
#include "codegen/ParallelCall.h"
#include "codegen/StatementEmitter.h"
#include "ir/Error.h"
#include "polyhedral/ParallelLoops.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

namespace nasc::codegen {

namespace {

/// The name of the identifier expression `e`.
std::string idName(const isl::ast_expr &e) { return e.as<isl::ast_expr_id>().id().name(); }

/// The name of the iterator of `loop`.
std::string iteratorName(const isl::ast_node_for &loop) { return idName(loop.iterator()); }

/// All children of a block node, in order.
std::vector<isl::ast_node> blockChildren(const isl::ast_node_block &block) {
  isl::ast_node_list list = block.children();
  std::vector<isl::ast_node> children;
  for (unsigned i = 0; i < list.size(); ++i)
    children.push_back(list.at(static_cast<int>(i)));
  return children;
}

/// Whether the subtree `n` contains a for node.
bool containsLoop(const isl::ast_node &n) {
  if (n.isa<isl::ast_node_for>())
    return true;
  if (n.isa<isl::ast_node_if>()) {
    auto branch = n.as<isl::ast_node_if>();
    return containsLoop(branch.then_node()) ||
           (branch.has_else_node() && containsLoop(branch.else_node()));
  }
  if (n.isa<isl::ast_node_block>())
    return std::ranges::any_of(blockChildren(n.as<isl::ast_node_block>()), containsLoop);
  if (n.isa<isl::ast_node_mark>())
    return containsLoop(n.as<isl::ast_node_mark>().node());
  return false;
}

/// The loop property `!{!"name", value}`.
llvm::MDNode *loopProperty(llvm::LLVMContext &ctx, const char *name, llvm::Constant *value) {
  return llvm::MDNode::get(ctx,
                           {llvm::MDString::get(ctx, name), llvm::ConstantAsMetadata::get(value)});
}

/// A distinct `llvm.loop` id. It requests vectorization for an innermost loop or a loop under
/// a vector mark (`vectorWidth` set), and the width `*vectorWidth` if that is > 0. An innermost
/// loop also gets `llvm.loop.unroll.disable`: LLVM would fully unroll a short loop (the 16
/// output channels of a blocked conv) before the loop vectorizer runs, leaving it to the SLP
/// vectorizer, which shuffles the loads and keeps the accumulators in memory (3x slower,
/// docs/schedules.md).
llvm::MDNode *loopMetadata(llvm::LLVMContext &ctx, bool innermost, std::optional<int> vectorWidth) {
  llvm::SmallVector<llvm::Metadata *, 4> ops{nullptr};
  if (innermost || vectorWidth)
    ops.push_back(loopProperty(ctx, "llvm.loop.vectorize.enable", llvm::ConstantInt::getTrue(ctx)));
  if (vectorWidth.value_or(0) > 0)
    ops.push_back(loopProperty(ctx, "llvm.loop.vectorize.width",
                               llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), *vectorWidth)));
  if (innermost)
    ops.push_back(llvm::MDNode::get(ctx, {llvm::MDString::get(ctx, "llvm.loop.unroll.disable")}));
  llvm::MDNode *id = llvm::MDNode::getDistinct(ctx, ops);
  id->replaceOperandWith(0, id);
  return id;
}

bool isIntegerOne(const isl::ast_expr &e) {
  return e.isa<isl::ast_expr_int>() && e.as<isl::ast_expr_int>().val().is_one();
}

/// For a loop `for (it = init; it <= e or it < e; it += 1)`: the expression e and whether the
/// bound is inclusive; nullopt for other loop shapes (run sequentially).
std::optional<std::pair<isl::ast_expr, bool>> unitStepUpperBound(const isl::ast_node_for &loop) {
  if (!isIntegerOne(loop.inc()) || !loop.cond().isa<isl::ast_expr_op>())
    return std::nullopt;
  isl::ast_expr_op cond = loop.cond().as<isl::ast_expr_op>();
  bool inclusive = cond.isa<isl::ast_expr_op_le>();
  if (!inclusive && !cond.isa<isl::ast_expr_op_lt>())
    return std::nullopt;
  isl::ast_expr lhs = cond.arg(0);
  if (!lhs.isa<isl::ast_expr_id>() || idName(lhs) != iteratorName(loop))
    return std::nullopt;
  return std::make_pair(cond.arg(1), inclusive);
}

/// The node below a chain of mark nodes starting at `n`, whether the chain holds a parallel
/// mark, and the width of its (innermost) vector mark if it holds one.
struct MarkedNode {
  isl::ast_node node;
  bool parallel = false;
  std::optional<int> vectorWidth;
};

MarkedNode unwrapMarks(isl::ast_node n) {
  MarkedNode result;
  while (n.isa<isl::ast_node_mark>()) {
    auto mark = n.as<isl::ast_node_mark>();
    std::string name = mark.id().name();
    result.parallel = result.parallel || name == poly::kParallelMark;
    if (auto width = poly::vectorMarkWidth(name))
      result.vectorWidth = width;
    n = mark.node();
  }
  result.node = n;
  return result;
}

/// Walks one kernel's isl AST and emits its control flow and statements. For-nodes under a
/// "parallel" mark are outlined into a body function run through nasc_parallel_for; for-nodes
/// under a vector mark get its width as loop metadata.
class AstEmitter {
public:
  /// Emitter of the kernel function `void f(ptr tensors, i32 threads)`.
  AstEmitter(llvm::Function *function, const ir::Kernel &kernel)
      : function_(function), builder_(function->getContext()), kernel_(kernel) {
    init();
    tensorArray_ = function_->getArg(0);
    threads_ = function_->getArg(1);
    tensors_ = loadKernelTensors(builder_, kernel, tensorArray_);
  }

  void emitBody(const isl::ast_node &ast) {
    emitNode(ast);
    builder_.CreateRetVoid();
  }

private:
  /// Emitter of an outlined body `void f(ptr ctx, i64 begin, i64 end)` whose context record
  /// holds the tensor array and the values of the AST iterators `names`.
  AstEmitter(llvm::Function *function, const ir::Kernel &kernel,
             const std::vector<std::string> &names)
      : function_(function), builder_(function->getContext()), kernel_(kernel) {
    init();
    std::vector<llvm::Value *> fields = unpackContext(builder_, function_->getArg(0), names.size());
    tensorArray_ = fields[0];
    tensors_ = loadKernelTensors(builder_, kernel, tensorArray_);
    for (size_t i = 0; i < names.size(); ++i)
      iterators_[names[i]] = fields[i + 1];
  }

  void init() {
    for (const ir::Statement &st : kernel_.statements)
      statements_[st.name] = &st;
    builder_.SetInsertPoint(llvm::BasicBlock::Create(context(), "entry", function_));
  }

  /// Emits the outlined body: the loop `for (it = begin; it < end; ++it) loop.body`, with
  /// vectorization metadata as loopMetadata(vectorWidth).
  void emitOutlinedLoop(const isl::ast_node_for &loop, std::optional<int> vectorWidth) {
    llvm::Value *end = function_->getArg(2);
    std::string name = iteratorName(loop);
    emitLoop(
        name, function_->getArg(1),
        [&] { return builder_.CreateICmpSLT(iterators_.at(name), end); },
        [&] { return builder_.getInt64(1); }, loop.body(), vectorWidth);
    builder_.CreateRetVoid();
  }

  /// A chain of mark nodes: if it is over a for-node, that loop, run in parallel if the chain
  /// holds a "parallel" mark, the loop has unit step and this emitter is not already inside an
  /// outlined body, and vectorized as a vector mark in the chain asks; otherwise the node
  /// below the chain as is.
  void emitMark(const isl::ast_node &n) {
    MarkedNode marked = unwrapMarks(n);
    if (!marked.node.isa<isl::ast_node_for>())
      return emitNode(marked.node);
    auto child = marked.node.as<isl::ast_node_for>();
    if (threads_ && marked.parallel)
      if (auto bound = unitStepUpperBound(child))
        return emitParallelFor(child, bound->first, bound->second, marked.vectorWidth);
    emitFor(child, marked.vectorWidth);
  }

  /// nasc_parallel_for(body, ctx, init, upper bound (exclusive), threads).
  void emitParallelFor(const isl::ast_node_for &loop, const isl::ast_expr &bound, bool inclusive,
                       std::optional<int> vectorWidth) {
    llvm::Value *lb = emitAstExpr(builder_, loop.init(), iterators_);
    llvm::Value *ub = emitAstExpr(builder_, bound, iterators_);
    if (inclusive)
      ub = builder_.CreateNSWAdd(ub, builder_.getInt64(1));
    std::vector<std::string> names;
    std::vector<llvm::Value *> values;
    for (const auto &[name, value] : iterators_) {
      names.push_back(name);
      values.push_back(value);
    }
    llvm::Module &module = *function_->getParent();
    llvm::Function *body = createOutlinedBody(module, function_->getName().str() + ".parallel");
    AstEmitter(body, kernel_, names).emitOutlinedLoop(loop, vectorWidth);
    llvm::Value *record = packContext(builder_, tensorArray_, values);
    builder_.CreateCall(parallelForFunction(module), {body, record, lb, ub, threads_});
  }

  llvm::LLVMContext &context() { return function_->getContext(); }

  llvm::BasicBlock *newBlock(const std::string &name) {
    return llvm::BasicBlock::Create(context(), name, function_);
  }

  void emitNode(const isl::ast_node &n) {
    if (n.isa<isl::ast_node_for>())
      return emitFor(n.as<isl::ast_node_for>());
    if (n.isa<isl::ast_node_if>())
      return emitIf(n.as<isl::ast_node_if>());
    if (n.isa<isl::ast_node_block>()) {
      for (const isl::ast_node &child : blockChildren(n.as<isl::ast_node_block>()))
        emitNode(child);
      return;
    }
    if (n.isa<isl::ast_node_mark>())
      return emitMark(n);
    if (n.isa<isl::ast_node_user>())
      return emitUser(n.as<isl::ast_node_user>().expr());
    throw Error("kernel " + kernel_.name + ": invalid isl AST node");
  }

  void emitFor(const isl::ast_node_for &n, std::optional<int> vectorWidth = std::nullopt) {
    llvm::Value *init = emitAstExpr(builder_, n.init(), iterators_);
    emitLoop(
        iteratorName(n), init, [&] { return emitAstExpr(builder_, n.cond(), iterators_); },
        [&] { return emitAstExpr(builder_, n.inc(), iterators_); }, n.body(), vectorWidth);
  }

  /// `for (name = init; cond(); name += inc()) inner` as header (phi, cond), body, latch, exit;
  /// the latch carries loopMetadata(innermost, vectorWidth).
  void emitLoop(const std::string &name, llvm::Value *init,
                const std::function<llvm::Value *()> &cond,
                const std::function<llvm::Value *()> &inc, const isl::ast_node &inner,
                std::optional<int> vectorWidth = std::nullopt) {
    llvm::BasicBlock *preheader = builder_.GetInsertBlock();
    llvm::BasicBlock *header = newBlock(name + ".header");
    llvm::BasicBlock *body = newBlock(name + ".body");
    llvm::BasicBlock *exit = newBlock(name + ".exit");
    builder_.CreateBr(header);

    builder_.SetInsertPoint(header);
    llvm::PHINode *iv = builder_.CreatePHI(builder_.getInt64Ty(), 2, name);
    iv->addIncoming(init, preheader);
    llvm::Value *outer = bindIterator(name, iv);
    builder_.CreateCondBr(cond(), body, exit);

    builder_.SetInsertPoint(body);
    emitNode(inner);
    llvm::Value *next = builder_.CreateNSWAdd(iv, inc(), name + ".next");
    llvm::BranchInst *backedge = builder_.CreateBr(header);
    backedge->setMetadata(llvm::LLVMContext::MD_loop,
                          loopMetadata(context(), !containsLoop(inner), vectorWidth));
    iv->addIncoming(next, builder_.GetInsertBlock());

    builder_.SetInsertPoint(exit);
    bindIterator(name, outer);
  }

  /// Sets the AST iterator `name` to `value` (nullptr removes it); returns its previous value.
  llvm::Value *bindIterator(const std::string &name, llvm::Value *value) {
    auto it = iterators_.find(name);
    llvm::Value *previous = it == iterators_.end() ? nullptr : it->second;
    if (value)
      iterators_[name] = value;
    else
      iterators_.erase(name);
    return previous;
  }

  void emitIf(const isl::ast_node_if &n) {
    llvm::Value *cond = emitAstExpr(builder_, n.cond(), iterators_);
    bool hasElse = n.has_else_node();
    llvm::BasicBlock *thenBlock = newBlock("then");
    llvm::BasicBlock *elseBlock = hasElse ? newBlock("else") : nullptr;
    llvm::BasicBlock *join = newBlock("endif");
    builder_.CreateCondBr(cond, thenBlock, hasElse ? elseBlock : join);
    builder_.SetInsertPoint(thenBlock);
    emitNode(n.then_node());
    builder_.CreateBr(join);
    if (hasElse) {
      builder_.SetInsertPoint(elseBlock);
      emitNode(n.else_node());
      builder_.CreateBr(join);
    }
    builder_.SetInsertPoint(join);
  }

  /// A user node `Sname(e_0, ..., e_{d-1})`: one instance of statement Sname.
  void emitUser(const isl::ast_expr &call) {
    if (!call.isa<isl::ast_expr_op>() || !call.as<isl::ast_expr_op>().isa<isl::ast_expr_op_call>())
      throw Error("kernel " + kernel_.name + ": isl AST user node '" + call.to_C_str() +
                  "' is not a statement call");
    auto op = call.as<isl::ast_expr_op>();
    std::string name = idName(op.arg(0));
    auto found = statements_.find(name);
    if (found == statements_.end())
      throw Error("kernel " + kernel_.name + ": isl AST calls unknown statement '" + name + "'");
    const ir::Statement &st = *found->second;
    size_t args = op.n_arg() - 1;
    if (args != st.depth())
      throw Error("kernel " + kernel_.name + ": isl AST passes " + std::to_string(args) +
                  " iterator values to statement " + name + " of depth " +
                  std::to_string(st.depth()));
    std::vector<llvm::Value *> values;
    for (size_t i = 1; i <= args; ++i)
      values.push_back(emitAstExpr(builder_, op.arg(static_cast<int>(i)), iterators_));
    emitStatement(builder_, st, tensors_, values);
  }

  llvm::Function *function_;
  llvm::IRBuilder<> builder_;
  const ir::Kernel &kernel_;
  std::map<std::string, const ir::Statement *> statements_;
  llvm::Value *tensorArray_ = nullptr;
  llvm::Value *threads_ = nullptr; ///< Null inside an outlined body: marks are not nested.
  KernelTensors tensors_;
  IteratorValues iterators_;
};

} // namespace

llvm::FunctionType *kernelFunctionType(llvm::LLVMContext &context) {
  return llvm::FunctionType::get(
      llvm::Type::getVoidTy(context),
      {llvm::PointerType::get(context, 0), llvm::Type::getInt32Ty(context)}, false);
}

llvm::Function *emitKernel(llvm::Module &module, const ir::Kernel &kernel, const isl::ast_node &ast,
                           const std::string &functionName) {
  auto *function = llvm::Function::Create(kernelFunctionType(module.getContext()),
                                          llvm::Function::ExternalLinkage, functionName, module);
  if (function->getName() != functionName) {
    function->eraseFromParent();
    throw Error("codegen: function name '" + functionName + "' is already used in the module");
  }
  function->addFnAttr(llvm::Attribute::NoUnwind);
  function->addParamAttr(0, llvm::Attribute::NoAlias);
  function->addParamAttr(0, llvm::Attribute::NoCapture);
  function->addParamAttr(0, llvm::Attribute::ReadOnly);
  function->getArg(0)->setName("tensors");
  function->getArg(1)->setName("threads");
  AstEmitter(function, kernel).emitBody(ast);
  return function;
}

} // namespace nasc::codegen
