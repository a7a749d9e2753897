#include "compiler/transforms/BlockChannels.h"

#include "compiler/transforms/KernelEdit.h"
#include "compiler/transforms/TransformErrors.h"

#include <algorithm>

namespace nasc::compiler {

namespace {

/// A dense convolution statement O[n, k, ..] += I[n, c, ..] · W[k, c, ..]: its kernel tensors
/// and its output (k) and input (c) channel iterators.
struct Conv {
  int out = -1, in = -1, weights = -1;
  size_t k = 0, c = 0;
};

bool isReduction(const ir::Statement &st, int d) {
  return d >= 0 && static_cast<size_t>(d) < st.reduction.size() && st.reduction[d];
}

/// Matches `st` as a Conv; returns why it is not one, or "".
std::string matchConv(const ir::Statement &st, Conv &conv) {
  if (st.update != ir::Update::Add || st.value.op != ir::Expr::Op::Mul ||
      st.value.args.at(0).op != ir::Expr::Op::Load || st.value.args.at(1).op != ir::Expr::Op::Load)
    return "it is not an Add update of a product of two loads (O += I · W)";
  if (!st.constraints.empty())
    return "its domain is not a box (apply pad_input first)";
  const ir::Access &o = st.write, &i = st.value.args[0].access, &w = st.value.args[1].access;
  if (o.index.size() != 4 || i.index.size() != 4 || w.index.size() != 4)
    return "its output, input and weights are not 4-d (NCHW, NCHW, OIHW)";
  const int k = plainIterator(o.index[1]), c = plainIterator(i.index[1]);
  if (k < 0 || isReduction(st, k))
    return "its output channel index " + o.index[1].toString(st.iterators) +
           " is not one output iterator (a grouped convolution)";
  if (c < 0 || !isReduction(st, c))
    return "its input channel index " + i.index[1].toString(st.iterators) +
           " is not one reduction iterator (a grouped convolution)";
  if (plainIterator(w.index[0]) != k || plainIterator(w.index[1]) != c)
    return "its weights are not indexed W[k, c, ..] by its channel iterators";
  conv = {o.tensor, i.tensor, w.tensor, static_cast<size_t>(k), static_cast<size_t>(c)};
  return "";
}

bool writes(const ir::Statement &st, int tensor) { return st.write.tensor == tensor; }

/// The channel iterator (index 1) shared by every access of `st` to `tensor`, or -1 when an
/// access indexes channels otherwise or two accesses disagree.
int channelIterator(const ir::Statement &st, int tensor) {
  int d = -2;
  forEachAccess(st, [&](const ir::Access &a) {
    if (a.tensor != tensor)
      return;
    const int it = a.index.size() == 4 ? plainIterator(a.index[1]) : -1;
    d = d == -2 || d == it ? it : -1;
  });
  return d;
}

/// Whether the kernel tensor is a Temp buffer bound by no other call (pad_input's buffer).
bool isPrivateTemp(const ir::Program &program, size_t call, int tensor) {
  const int buffer = program.calls[call].args.at(static_cast<size_t>(tensor));
  if (program.buffers.at(static_cast<size_t>(buffer)).kind != ir::BufferKind::Temp)
    return false;
  for (size_t c = 0; c < program.calls.size(); ++c)
    if (c != call && std::count(program.calls[c].args.begin(), program.calls[c].args.end(), buffer))
      return false;
  return true;
}

/// Why the statements of `kernel` accessing `tensor` cannot all split their channel iterator by
/// `block`, or "".
std::string splitRefusal(const ir::Kernel &kernel, int tensor, int64_t block) {
  const std::string &name = kernel.tensors.at(static_cast<size_t>(tensor)).name;
  for (const ir::Statement &st : kernel.statements) {
    if (!accessesTensor(st, tensor))
      continue;
    const int d = channelIterator(st, tensor);
    if (d < 0)
      return "statement " + st.name + " indexes the channels of " + name +
             " by other than one iterator";
    if (st.extents[static_cast<size_t>(d)] % block != 0)
      return "statement " + st.name + " runs " + st.iterators[static_cast<size_t>(d)] + " over " +
             std::to_string(st.extents[static_cast<size_t>(d)]) + " channels of " + name +
             ", not a multiple of the block " + std::to_string(block);
  }
  return "";
}

/// Why O, the output of the conv, cannot move to the blocked layout, or "".
std::string outputRefusal(const ir::Kernel &kernel, int out, int64_t block) {
  auto first = std::find_if(kernel.statements.begin(), kernel.statements.end(),
                            [&](const ir::Statement &st) { return accessesTensor(st, out); });
  ir::Statement head = *first;
  head.write.tensor = -1;
  if (!writes(*first, out) || first->update != ir::Update::Assign || accessesTensor(head, out))
    return "statement " + first->name + " reads the output " +
           kernel.tensors[static_cast<size_t>(out)].name + " before the kernel writes it";
  return splitRefusal(kernel, out, block);
}

/// Why the input I of the conv cannot move to the blocked layout, or "".
std::string inputRefusal(const ir::Program &program, size_t call, const Conv &conv,
                         int64_t inputBlock) {
  const ir::Kernel &kernel = program.calls[call].kernel;
  if (isPrivateTemp(program, call, conv.in))
    return splitRefusal(kernel, conv.in, inputBlock);
  for (const ir::Statement &st : kernel.statements)
    if (writes(st, conv.in))
      return "statement " + st.name + " writes the input " +
             kernel.tensors[static_cast<size_t>(conv.in)].name;
  return "";
}

/// Matches `st` as `conv`, replaces an `inputBlock` of 0 by defaultInputBlock, and returns why
/// block_channels refuses it, or "".
std::string refusal(const ir::Program &program, size_t call, const ir::Statement &st,
                    int64_t block, int64_t &inputBlock, Conv &conv) {
  if (std::string why = matchConv(st, conv); !why.empty())
    return why;
  if (inputBlock == 0)
    inputBlock = defaultInputBlock(st.extents[conv.c], block);
  const ir::KernelCall &kc = program.calls[call];
  const int weights = kc.args.at(static_cast<size_t>(conv.weights));
  if (program.buffers.at(static_cast<size_t>(weights)).kind != ir::BufferKind::Constant)
    return "its weights " + kc.kernel.tensors[static_cast<size_t>(conv.weights)].name +
           " are not a constant";
  const int64_t K = st.extents[conv.k], C = st.extents[conv.c];
  if (block < 1 || K % block != 0)
    return "the block " + std::to_string(block) + " does not divide its " + std::to_string(K) +
           " output channels";
  if (inputBlock < 1 || C % inputBlock != 0)
    return "the input block " + std::to_string(inputBlock) + " does not divide its " +
           std::to_string(C) + " input channels";
  if (std::string why = outputRefusal(kc.kernel, conv.out, block); !why.empty())
    return why;
  return inputRefusal(program, call, conv, inputBlock);
}

/// Splits the channel iterator of `st`'s accesses to `tensor` by `block` and makes those
/// accesses read/write `target` at [.., outer, .., inner] (the blocked layout).
SplitIterators blockAccesses(ir::Statement &st, int tensor, int target, int64_t block,
                             std::optional<size_t> innerAfter = std::nullopt) {
  const SplitIterators split =
      splitIterator(st, static_cast<size_t>(channelIterator(st, tensor)), block, innerAfter);
  forEachAccess(st, [&](ir::Access &a) {
    if (a.tensor != tensor)
      return;
    a.tensor = target;
    a.index[1] = ir::AffineExpr::iter(st.depth(), split.outer);
    a.index.push_back(ir::AffineExpr::iter(st.depth(), split.inner));
  });
  return split;
}

/// [N, C, H, W] -> [N, C/block, H, W, block].
ir::Shape blockedShape(const ir::Shape &shape, int64_t block) {
  return {shape[0], shape[1] / block, shape[2], shape[3], block};
}

/// Where an iterator of `st` before `split` is after it.
size_t shifted(size_t i, const SplitIterators &split) { return i < split.inner ? i : i + 1; }

/// W [K, C, R, S] as W' [K/x, C/y, R, S, y, x].
ir::Tensor blockedWeights(const ir::Tensor &w, const ir::Shape &shape, int64_t x, int64_t y) {
  const int64_t K = shape[0], C = shape[1], R = shape[2], S = shape[3];
  ir::Tensor out = w;
  out.shape = {K / x, C / y, R, S, y, x};
  for (int64_t k = 0; k < K; ++k)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t rs = 0; rs < R * S; ++rs)
        out.f[static_cast<size_t>(((((k / x) * (C / y) + c / y) * R * S + rs) * y + c % y) * x +
                                  k % x)] = w.f[static_cast<size_t>((k * C + c) * R * S + rs)];
  return out;
}

/// Whether the buffer of kernel tensor `tensor` is also used elsewhere: by another call, another
/// tensor of this call, or a statement other than `statement`.
bool sharedBeyond(const ir::Program &program, size_t call, int tensor,
                  const std::string &statement) {
  const ir::KernelCall &kc = program.calls[call];
  const int buffer = kc.args[static_cast<size_t>(tensor)];
  for (size_t c = 0; c < program.calls.size(); ++c)
    if (std::count(program.calls[c].args.begin(), program.calls[c].args.end(), buffer) >
        (c == call ? 1 : 0))
      return true;
  return std::any_of(kc.kernel.statements.begin(), kc.kernel.statements.end(),
                     [&](const ir::Statement &st) {
                       return st.name != statement && accessesTensor(st, tensor);
                     });
}

/// Binds the conv's weight tensor to W' (replacing W's buffer when nothing else uses it).
void blockWeights(ir::Program &program, size_t call, int tensor, const std::string &statement,
                  int64_t x, int64_t y) {
  ir::KernelCall &kc = program.calls[call];
  const size_t old = static_cast<size_t>(kc.args[static_cast<size_t>(tensor)]);
  const ir::Buffer &source = program.buffers[old];
  ir::Tensor data = blockedWeights(source.data, source.shape, x, y);
  ir::Buffer blocked{freshTensorName(program, kc.kernel, source.name + "_OIhw" + std::to_string(y) +
                                                             "i" + std::to_string(x) + "o"),
                     data.shape, ir::BufferKind::Constant, std::move(data)};
  if (sharedBeyond(program, call, tensor, statement)) {
    program.buffers.push_back(std::move(blocked));
    kc.args[static_cast<size_t>(tensor)] = static_cast<int>(program.buffers.size()) - 1;
  } else {
    program.buffers[old] = std::move(blocked);
  }
  const ir::Buffer &bound = program.buffers[static_cast<size_t>(kc.args[static_cast<size_t>(tensor)])];
  kc.kernel.tensors[static_cast<size_t>(tensor)] = {ir::toIdentifier(bound.name), bound.shape};
}

/// The blocked name of activation `name`: "<name>_nChw<block>c".
std::string blockedName(const std::string &name, int64_t block) {
  return name + "_nChw" + std::to_string(block) + "c";
}

/// Adds O' and moves the accesses to the conv's output O of every statement but the conv's to
/// it; appends the statement copying O' to O. Returns O'.
int blockOutput(ir::Program &program, size_t call, const std::string &statement, int out,
                int64_t block) {
  const ir::TensorDecl o = program.calls[call].kernel.tensors[static_cast<size_t>(out)];
  const int target =
      addTempTensor(program, call, blockedName(o.name, block), blockedShape(o.shape, block));
  ir::Kernel &kernel = program.calls[call].kernel;
  for (ir::Statement &st : kernel.statements)
    if (st.name != statement && accessesTensor(st, out))
      blockAccesses(st, out, target, block);
  ir::Statement copy = boxStatement(freshStatementName(kernel), o.shape, out, {0, 0, 0, 0});
  copy.value = ir::Expr::load({target, copy.write.index});
  blockAccesses(copy, target, target, block, 2);
  kernel.statements.push_back(std::move(copy));
  return target;
}

/// Gives the conv's input I the blocked layout: in place for a private Temp, else through a new
/// I' filled first. Returns the tensor the conv reads.
int blockInput(ir::Program &program, size_t call, const std::string &statement, int in,
               int64_t block) {
  ir::KernelCall &kc = program.calls[call];
  const ir::TensorDecl i = kc.kernel.tensors[static_cast<size_t>(in)];
  if (isPrivateTemp(program, call, in)) {
    ir::Buffer &buffer = program.buffers[static_cast<size_t>(kc.args[static_cast<size_t>(in)])];
    buffer.name = freshTensorName(program, kc.kernel, blockedName(i.name, block));
    buffer.shape = blockedShape(i.shape, block);
    kc.kernel.tensors[static_cast<size_t>(in)] = {buffer.name, buffer.shape};
    for (ir::Statement &st : kc.kernel.statements)
      if (st.name != statement && accessesTensor(st, in))
        blockAccesses(st, in, in, block);
    return in;
  }
  const int target =
      addTempTensor(program, call, blockedName(i.name, block), blockedShape(i.shape, block));
  ir::Kernel &kernel = program.calls[call].kernel;
  ir::Statement copy = boxStatement(freshStatementName(kernel), i.shape, target, {0, 0, 0, 0});
  copy.value = ir::Expr::load({in, copy.write.index});
  blockAccesses(copy, target, target, block);
  kernel.statements.insert(kernel.statements.begin(), std::move(copy));
  return target;
}

/// The conv statement over the blocked tensors: k and c split, W' indexed [k0, c0, r, s, c1, k1].
void blockConvStatement(ir::Statement &st, const Conv &conv, int out, int in, int64_t x,
                        int64_t y) {
  SplitIterators k = blockAccesses(st, conv.out, out, x);
  const SplitIterators c = blockAccesses(st, conv.in, in, y);
  k = {shifted(k.outer, c), shifted(k.inner, c)};
  const ir::Access moved = st.value.args[1].access;
  auto iter = [&](size_t d) { return ir::AffineExpr::iter(st.depth(), d); };
  st.value.args[1].access = {moved.tensor,
                             {iter(k.outer), iter(c.outer), moved.index[2], moved.index[3],
                              iter(c.inner), iter(k.inner)}};
}

const ir::Statement &requireStatement(const ir::Program &program, size_t call,
                                      const std::string &statement) {
  const ir::Kernel &kernel = program.calls.at(call).kernel;
  const ir::Statement *st = findStatement(kernel, statement);
  if (!st)
    throw UnknownStatement("block_channels: kernel '" + kernel.name + "' has no statement '" +
                           statement + "'");
  return *st;
}

} // namespace

int64_t defaultInputBlock(int64_t channels, int64_t block) {
  for (int64_t y = std::min(block, channels); y > 1; --y)
    if (channels % y == 0)
      return y;
  return 1;
}

std::string blockChannelsRefusal(const ir::Program &program, size_t call,
                                 const std::string &statement, int64_t block,
                                 int64_t inputBlock) {
  const ir::Statement *st = findStatement(program.calls.at(call).kernel, statement);
  if (!st)
    return "no statement '" + statement + "'";
  Conv conv;
  return refusal(program, call, *st, block, inputBlock, conv);
}

int64_t blockChannels(ir::Program &program, size_t call, const std::string &statement,
                      int64_t block, int64_t inputBlock) {
  const ir::Statement &found = requireStatement(program, call, statement);
  Conv conv;
  if (std::string why = refusal(program, call, found, block, inputBlock, conv); !why.empty())
    throw NotBlockable("block_channels: statement " + statement + " of kernel '" +
                       program.calls[call].kernel.name + "' cannot take blocked layouts: " + why);
  blockWeights(program, call, conv.weights, statement, block, inputBlock);
  const int in = blockInput(program, call, statement, conv.in, inputBlock);
  const int out = blockOutput(program, call, statement, conv.out, block);
  blockConvStatement(*findStatement(program.calls[call].kernel, statement), conv, out, in, block,
                     inputBlock);
  return inputBlock;
}

} // namespace nasc::compiler
