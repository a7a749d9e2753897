#include "codegen/KernelEmitter.h"

#include "codegen/AstExprEmitter.h"
#include "codegen/ParallelCall.h"
#include "codegen/StatementEmitter.h"
#include "ir/Error.h"
#include "polyhedral/ParallelLoops.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <map>
#include <optional>

namespace nasc::codegen {

namespace {

isl::ast_expr forIterator(const isl::ast_node &n) {
  return isl::manage(isl_ast_node_for_get_iterator(n.get()));
}

std::string idName(const isl::ast_expr &e) {
  return isl::manage(isl_ast_expr_id_get_id(e.get())).name();
}

/// All children of a block node, in order.
std::vector<isl::ast_node> blockChildren(const isl::ast_node &n) {
  isl_ast_node_list *list = isl_ast_node_block_get_children(n.get());
  std::vector<isl::ast_node> children;
  for (isl_size i = 0; i < isl_ast_node_list_n_ast_node(list); ++i)
    children.push_back(isl::manage(isl_ast_node_list_get_ast_node(list, i)));
  isl_ast_node_list_free(list);
  return children;
}

/// Whether the subtree `n` contains a for node.
bool containsLoop(const isl::ast_node &n) {
  switch (isl_ast_node_get_type(n.get())) {
  case isl_ast_node_for:
    return true;
  case isl_ast_node_if: {
    bool elseLoop = isl_ast_node_if_has_else_node(n.get()) == isl_bool_true &&
                    containsLoop(isl::manage(isl_ast_node_if_get_else_node(n.get())));
    return elseLoop || containsLoop(isl::manage(isl_ast_node_if_get_then_node(n.get())));
  }
  case isl_ast_node_block:
    for (const isl::ast_node &child : blockChildren(n))
      if (containsLoop(child))
        return true;
    return false;
  case isl_ast_node_mark:
    return containsLoop(isl::manage(isl_ast_node_mark_get_node(n.get())));
  default:
    return false;
  }
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

std::string markName(const isl::ast_node &n) {
  return isl::manage(isl_ast_node_mark_get_id(n.get())).name();
}

bool isIntegerOne(const isl::ast_expr &e) {
  if (isl_ast_expr_get_type(e.get()) != isl_ast_expr_int)
    return false;
  return isl::manage(isl_ast_expr_int_get_val(e.get())).is_one();
}

/// For a loop `for (it = init; it <= e or it < e; it += 1)`: the expression e and whether the
/// bound is inclusive; nullopt for other loop shapes (run sequentially).
std::optional<std::pair<isl::ast_expr, bool>> unitStepUpperBound(const isl::ast_node &loop) {
  if (!isIntegerOne(isl::manage(isl_ast_node_for_get_inc(loop.get()))))
    return std::nullopt;
  isl::ast_expr cond = isl::manage(isl_ast_node_for_get_cond(loop.get()));
  if (isl_ast_expr_get_type(cond.get()) != isl_ast_expr_op)
    return std::nullopt;
  isl_ast_expr_op_type op = isl_ast_expr_op_get_type(cond.get());
  if (op != isl_ast_expr_op_le && op != isl_ast_expr_op_lt)
    return std::nullopt;
  isl::ast_expr lhs = isl::manage(isl_ast_expr_op_get_arg(cond.get(), 0));
  if (isl_ast_expr_get_type(lhs.get()) != isl_ast_expr_id ||
      idName(lhs) != idName(forIterator(loop)))
    return std::nullopt;
  return std::make_pair(isl::manage(isl_ast_expr_op_get_arg(cond.get(), 1)),
                        op == isl_ast_expr_op_le);
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
  while (isl_ast_node_get_type(n.get()) == isl_ast_node_mark) {
    std::string name = markName(n);
    result.parallel = result.parallel || name == poly::kParallelMark;
    if (auto width = poly::vectorMarkWidth(name))
      result.vectorWidth = width;
    n = isl::manage(isl_ast_node_mark_get_node(n.get()));
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
  void emitOutlinedLoop(const isl::ast_node &loop, std::optional<int> vectorWidth) {
    llvm::Value *end = function_->getArg(2);
    std::string name = idName(forIterator(loop));
    emitLoop(
        name, function_->getArg(1),
        [&] { return builder_.CreateICmpSLT(iterators_.at(name), end); },
        [&] { return builder_.getInt64(1); }, isl::manage(isl_ast_node_for_get_body(loop.get())),
        vectorWidth);
    builder_.CreateRetVoid();
  }

  /// A chain of mark nodes: if it is over a for-node, that loop, run in parallel if the chain
  /// holds a "parallel" mark, the loop has unit step and this emitter is not already inside an
  /// outlined body, and vectorized as a vector mark in the chain asks; otherwise the node
  /// below the chain as is.
  void emitMark(const isl::ast_node &n) {
    MarkedNode marked = unwrapMarks(n);
    const isl::ast_node &child = marked.node;
    if (isl_ast_node_get_type(child.get()) != isl_ast_node_for)
      return emitNode(child);
    if (threads_ && marked.parallel)
      if (auto bound = unitStepUpperBound(child))
        return emitParallelFor(child, bound->first, bound->second, marked.vectorWidth);
    emitFor(child, marked.vectorWidth);
  }

  /// nasc_parallel_for(body, ctx, init, upper bound (exclusive), threads).
  void emitParallelFor(const isl::ast_node &loop, const isl::ast_expr &bound, bool inclusive,
                       std::optional<int> vectorWidth) {
    llvm::Value *lb =
        emitAstExpr(builder_, isl::manage(isl_ast_node_for_get_init(loop.get())), iterators_);
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
    switch (isl_ast_node_get_type(n.get())) {
    case isl_ast_node_for:
      return emitFor(n);
    case isl_ast_node_if:
      return emitIf(n);
    case isl_ast_node_block:
      for (const isl::ast_node &child : blockChildren(n))
        emitNode(child);
      return;
    case isl_ast_node_mark:
      return emitMark(n);
    case isl_ast_node_user:
      return emitUser(isl::manage(isl_ast_node_user_get_expr(n.get())));
    default:
      throw Error("kernel " + kernel_.name + ": invalid isl AST node");
    }
  }

  void emitFor(const isl::ast_node &n, std::optional<int> vectorWidth = std::nullopt) {
    std::string name = idName(forIterator(n));
    llvm::Value *init =
        emitAstExpr(builder_, isl::manage(isl_ast_node_for_get_init(n.get())), iterators_);
    emitLoop(
        name, init,
        [&] {
          return emitAstExpr(builder_, isl::manage(isl_ast_node_for_get_cond(n.get())), iterators_);
        },
        [&] {
          return emitAstExpr(builder_, isl::manage(isl_ast_node_for_get_inc(n.get())), iterators_);
        },
        isl::manage(isl_ast_node_for_get_body(n.get())), vectorWidth);
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

  void emitIf(const isl::ast_node &n) {
    llvm::Value *cond =
        emitAstExpr(builder_, isl::manage(isl_ast_node_if_get_cond(n.get())), iterators_);
    bool hasElse = isl_ast_node_if_has_else_node(n.get()) == isl_bool_true;
    llvm::BasicBlock *thenBlock = newBlock("then");
    llvm::BasicBlock *elseBlock = hasElse ? newBlock("else") : nullptr;
    llvm::BasicBlock *join = newBlock("endif");
    builder_.CreateCondBr(cond, thenBlock, hasElse ? elseBlock : join);
    builder_.SetInsertPoint(thenBlock);
    emitNode(isl::manage(isl_ast_node_if_get_then_node(n.get())));
    builder_.CreateBr(join);
    if (hasElse) {
      builder_.SetInsertPoint(elseBlock);
      emitNode(isl::manage(isl_ast_node_if_get_else_node(n.get())));
      builder_.CreateBr(join);
    }
    builder_.SetInsertPoint(join);
  }

  /// A user node `Sname(e_0, ..., e_{d-1})`: one instance of statement Sname.
  void emitUser(const isl::ast_expr &call) {
    if (isl_ast_expr_get_type(call.get()) != isl_ast_expr_op ||
        isl_ast_expr_op_get_type(call.get()) != isl_ast_expr_op_call)
      throw Error("kernel " + kernel_.name + ": isl AST user node '" + call.to_C_str() +
                  "' is not a statement call");
    std::string name = idName(isl::manage(isl_ast_expr_op_get_arg(call.get(), 0)));
    auto found = statements_.find(name);
    if (found == statements_.end())
      throw Error("kernel " + kernel_.name + ": isl AST calls unknown statement '" + name + "'");
    const ir::Statement &st = *found->second;
    isl_size args = isl_ast_expr_op_get_n_arg(call.get()) - 1;
    if (args < 0 || static_cast<size_t>(args) != st.depth())
      throw Error("kernel " + kernel_.name + ": isl AST passes " + std::to_string(args) +
                  " iterator values to statement " + name + " of depth " +
                  std::to_string(st.depth()));
    std::vector<llvm::Value *> values;
    for (isl_size i = 0; i < args; ++i)
      values.push_back(emitAstExpr(
          builder_, isl::manage(isl_ast_expr_op_get_arg(call.get(), i + 1)), iterators_));
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
