#include "compiler/transforms/BlockChannels.h"

#include "compiler/transforms/ConvStatement.h"
#include "compiler/transforms/KernelEdit.h"
#include "compiler/transforms/TransformErrors.h"

#include <algorithm>

namespace nasc::compiler {

namespace {

/// How block_channels vectorizes a conv over x output channels:
///  - Broadcast (x divides Kg): the x channels share each input element, one broadcast;
///  - Channelwise (Cg = 1, Kg divides x < Kg·G: depthwise): lane j of the vector reads input
///    channel (output channel)/Kg; with Kg > 1 the input is first repeated Kg times.
enum class Blocking { Broadcast, Channelwise };

/// A matched conv with the blocking chosen for it.
struct Conv : ConvStatement {
  Blocking blocking = Blocking::Broadcast;
};

/// Whether the conv reads its input repeated (a depthwise conv with channel multiplier Kg > 1
/// vectorized over channels).
bool repeatsInput(const Conv &conv) {
  return conv.blocking == Blocking::Channelwise && conv.outPerGroup > 1;
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

/// Why the statements of `kernel` accessing `tensor`, but the conv `conv`, cannot all split
/// their channel iterator by `block`, or "".
std::string splitRefusal(const ir::Kernel &kernel, int tensor, int64_t block,
                         const std::string &conv) {
  const std::string &name = kernel.tensors.at(static_cast<size_t>(tensor)).name;
  for (const ir::Statement &st : kernel.statements) {
    if (st.name == conv || !accessesTensor(st, tensor))
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
std::string outputRefusal(const ir::Kernel &kernel, int out, int64_t block,
                          const std::string &conv) {
  auto first = std::find_if(kernel.statements.begin(), kernel.statements.end(),
                            [&](const ir::Statement &st) { return accessesTensor(st, out); });
  ir::Statement head = *first;
  head.write.tensor = -1;
  if (!writes(*first, out) || first->update != ir::Update::Assign || accessesTensor(head, out))
    return "statement " + first->name + " reads the output " +
           kernel.tensors[static_cast<size_t>(out)].name + " before the kernel writes it";
  return splitRefusal(kernel, out, block, conv);
}

/// Why the input `in` of statement `st` cannot move to the blocked layout with block
/// `inputBlock` (or, when `repeated`, be read where it is), or "".
std::string inputRefusal(const ir::Program &program, size_t call, const ir::Statement &st, int in,
                         int64_t inputBlock, bool repeated) {
  const ir::Kernel &kernel = program.calls[call].kernel;
  if (isPrivateTemp(program, call, in))
    return repeated ? "" : splitRefusal(kernel, in, inputBlock, st.name);
  for (const ir::Statement &other : kernel.statements)
    if (writes(other, in))
      return "statement " + other.name + " writes the input " +
             kernel.tensors[static_cast<size_t>(in)].name;
  return "";
}

/// "<n> <what>", e.g. "16 output channels".
std::string count(int64_t n, const std::string &what) { return std::to_string(n) + " " + what; }

/// Chooses conv.blocking for output block `block`, replacing an `inputBlock` of 0 by its
/// default (defaultInputBlock of Cg; the block itself for Channelwise); returns why neither
/// blocking applies, or "".
std::string blockingRefusal(Conv &conv, int64_t block, int64_t &inputBlock) {
  const int64_t K = conv.outPerGroup * conv.groups, Kg = conv.outPerGroup, Cg = conv.inPerGroup;
  const std::string perGroup = conv.group ? " per group" : "";
  if (block < 1 || K % block != 0)
    return "the block " + std::to_string(block) + " does not divide its " +
           count(K, "output channels");
  if (Kg % block == 0) {
    conv.blocking = Blocking::Broadcast;
    inputBlock = inputBlock == 0 ? defaultInputBlock(Cg, block) : inputBlock;
    if (inputBlock < 1 || Cg % inputBlock != 0)
      return "the input block " + std::to_string(inputBlock) + " does not divide its " +
             count(Cg, "input channels") + perGroup;
    return "";
  }
  if (Cg != 1 || block % Kg != 0)
    return "the block " + std::to_string(block) + " does not divide its " +
           count(Kg, "output channels") + perGroup +
           (Cg == 1
                ? ", nor they the block"
                : " and its groups have " + count(Cg, "input channels") + ", not one (depthwise)");
  conv.blocking = Blocking::Channelwise;
  inputBlock = inputBlock == 0 ? block : inputBlock;
  if (inputBlock != block)
    return "the input block " + std::to_string(inputBlock) + " of a depthwise convolution is " +
           "not its block " + std::to_string(block) + " (its vector runs over input channels)";
  return "";
}

/// Matches `st` as `conv`, chooses its blocking, replaces an `inputBlock` of 0 by its default,
/// and returns why block_channels refuses it, or "".
std::string refusal(const ir::Program &program, size_t call, const ir::Statement &st, int64_t block,
                    int64_t &inputBlock, Conv &conv) {
  if (std::string why = matchConvStatement(st, conv); !why.empty())
    return why;
  const ir::KernelCall &kc = program.calls[call];
  const int weights = kc.args.at(static_cast<size_t>(conv.weights));
  if (program.buffers.at(static_cast<size_t>(weights)).kind != ir::BufferKind::Constant)
    return "its weights " + kc.kernel.tensors[static_cast<size_t>(conv.weights)].name +
           " are not a constant";
  if (std::string why = blockingRefusal(conv, block, inputBlock); !why.empty())
    return why;
  if (std::string why = outputRefusal(kc.kernel, conv.out, block, st.name); !why.empty())
    return why;
  return inputRefusal(program, call, st, conv.in, inputBlock, repeatsInput(conv));
}

/// A max-pool statement O[n, c, ..] max= I[n, c, ..] (MaxPool's lowering): one load, the
/// channel index of both the same iterator c, not a reduction one.
struct Pool {
  int out = -1, in = -1;
  size_t c = 0;
};

/// Matches `st` as `pool`; returns why it is not a max-pool statement, or "".
std::string matchPoolStatement(const ir::Statement &st, Pool &pool) {
  if (st.update != ir::Update::Max || st.value.op != ir::Expr::Op::Load)
    return "it is not a max update of one load";
  const ir::Access &o = st.write, &i = st.value.access;
  const int c = o.index.size() == 4 && i.index.size() == 4 ? plainIterator(o.index[1]) : -1;
  if (c < 0 || plainIterator(i.index[1]) != c ||
      (static_cast<size_t>(c) < st.reduction.size() && st.reduction[static_cast<size_t>(c)]))
    return "its output and its load (4-d) do not index their channels by one output iterator";
  pool = {o.tensor, i.tensor, static_cast<size_t>(c)};
  return "";
}

/// Matches `st` as `pool` and returns why block_channels refuses it with `block` (and input
/// block `inputBlock`, 0 or `block`), or "".
std::string poolRefusal(const ir::Program &program, size_t call, const ir::Statement &st,
                        int64_t block, int64_t inputBlock, Pool &pool) {
  if (std::string why = matchPoolStatement(st, pool); !why.empty())
    return why;
  const int64_t C = st.extents[pool.c];
  if (block < 1 || C % block != 0)
    return "the block " + std::to_string(block) + " does not divide its " + count(C, "channels");
  if (inputBlock != 0 && inputBlock != block)
    return "the input block " + std::to_string(inputBlock) + " of a max-pool is not its block " +
           std::to_string(block) + " (its vector runs over channels)";
  const ir::Kernel &kernel = program.calls[call].kernel;
  if (std::string why = outputRefusal(kernel, pool.out, block, st.name); !why.empty())
    return why;
  return inputRefusal(program, call, st, pool.in, block, false);
}

/// Why block_channels refuses statement `st` with these blocks: as a max-pool when its update
/// is max, else as a convolution (`conv` matched).
std::string statementRefusal(const ir::Program &program, size_t call, const ir::Statement &st,
                             int64_t block, int64_t &inputBlock, Conv &conv, Pool &pool) {
  if (st.update == ir::Update::Max)
    return poolRefusal(program, call, st, block, inputBlock, pool);
  return refusal(program, call, st, block, inputBlock, conv);
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
  return std::any_of(
      kc.kernel.statements.begin(), kc.kernel.statements.end(),
      [&](const ir::Statement &st) { return st.name != statement && accessesTensor(st, tensor); });
}

/// Binds the conv's weight tensor to W' (replacing W's buffer when nothing else uses it).
void blockWeights(ir::Program &program, size_t call, int tensor, const std::string &statement,
                  int64_t x, int64_t y) {
  ir::KernelCall &kc = program.calls[call];
  const size_t old = static_cast<size_t>(kc.args[static_cast<size_t>(tensor)]);
  const ir::Buffer &source = program.buffers[old];
  ir::Tensor data = blockedWeights(source.data, source.shape, x, y);
  ir::Buffer blocked{
      freshTensorName(program, kc.kernel,
                      source.name + "_OIhw" + std::to_string(y) + "i" + std::to_string(x) + "o"),
      data.shape, ir::BufferKind::Constant, std::move(data)};
  if (sharedBeyond(program, call, tensor, statement)) {
    program.buffers.push_back(std::move(blocked));
    kc.args[static_cast<size_t>(tensor)] = static_cast<int>(program.buffers.size()) - 1;
  } else {
    program.buffers[old] = std::move(blocked);
  }
  const ir::Buffer &bound =
      program.buffers[static_cast<size_t>(kc.args[static_cast<size_t>(tensor)])];
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

/// Adds I'' [N, K/x, H, W, x]: the conv's input I [N, C, H, W] with each channel repeated
/// m = K/C times, in nChw[x]c (m dividing x): I''[n, c0, h, w, m·c1 + j] = I[n, (x/m)·c0 + c1,
/// h, w], filled by a statement put before the first statement on the output O. Returns I''.
int repeatInput(ir::Program &program, size_t call, int in, int out, int64_t m, int64_t x) {
  const ir::TensorDecl i = program.calls[call].kernel.tensors[static_cast<size_t>(in)];
  const ir::Shape shape{i.shape[0], i.shape[1] * m / x, i.shape[2], i.shape[3], x};
  const int target =
      addTempTensor(program, call, blockedName(i.name + "_repeat" + std::to_string(m), x), shape);
  ir::Kernel &kernel = program.calls[call].kernel;
  ir::Statement copy =
      boxStatement(freshStatementName(kernel), {i.shape[0], i.shape[1], i.shape[2], i.shape[3], m},
                   target, {0, 0, 0, 0, 0});
  copy.iterators.back() = "j";
  copy.value = ir::Expr::load({in, {copy.write.index.begin(), copy.write.index.end() - 1}});
  const SplitIterators c = splitIterator(copy, 1, x / m, 3);
  auto iter = [&](size_t d) { return ir::AffineExpr::iter(copy.depth(), d); };
  copy.write.index = {iter(0), iter(c.outer), iter(2), iter(3), iter(c.inner) * m + iter(5)};
  auto first = std::find_if(kernel.statements.begin(), kernel.statements.end(),
                            [&](const ir::Statement &st) { return accessesTensor(st, out); });
  kernel.statements.insert(first, std::move(copy));
  return target;
}

/// `e` = x·a + b, with b iterator `inner` and every other coefficient and the constant of `e`
/// multiples of x (a channel index split by x), as the blocked index pair (a, b).
std::pair<ir::AffineExpr, ir::AffineExpr> blockedIndex(const ir::AffineExpr &e, size_t inner,
                                                       int64_t x) {
  const ir::AffineExpr b = ir::AffineExpr::iter(e.coeffs.size(), inner);
  ir::AffineExpr a = e - b;
  for (int64_t &coeff : a.coeffs)
    coeff /= x;
  a.constant /= x;
  return {a, b};
}

/// The Broadcast conv statement over the blocked tensors: k split by x and c by y,
/// O'[n, a, oh, ow, k1] with Kg·g + k = x·a + k1, I'[n, b, h, w, c1] with Cg·g + c = y·b + c1,
/// W'[a, c0, r, s, c1, k1] (dense: a = k0, b = c0).
void broadcastStatement(ir::Statement &st, const Conv &conv, int out, int in, int64_t x,
                        int64_t y) {
  SplitIterators k = splitIterator(st, conv.k, x);
  const SplitIterators c = splitIterator(st, shifted(conv.c, k), y);
  k = {shifted(k.outer, c), shifted(k.inner, c)};
  ir::Access &o = st.write, &i = st.value.args[0].access, &w = st.value.args[1].access;
  const auto [ko, ki] = blockedIndex(o.index[1], k.inner, x);
  const auto [io, ii] = blockedIndex(i.index[1], c.inner, y);
  const auto [co, ci] = blockedIndex(w.index[1], c.inner, y);
  o = {out, {o.index[0], ko, o.index[2], o.index[3], ki}};
  i = {in, {i.index[0], io, i.index[2], i.index[3], ii}};
  w = {w.tensor, {ko, co, w.index[2], w.index[3], ci, ki}};
}

/// The Channelwise conv statement over the blocked tensors: c' (one value) removed, the input
/// read at the output channel Kg·g + k' (the repeated input when Kg > 1), g and k' merged into
/// k and k split by x: O'[n, k0, oh, ow, k1] += I'[n, k0, h, w, k1] · W'[k0, 0, r, s, 0, k1].
void channelwiseStatement(ir::Statement &st, const Conv &conv, int out, int in, int64_t x) {
  auto after = [&](size_t d, size_t removed) { return d > removed ? d - 1 : d; };
  removeUnitIterator(st, conv.c);
  const size_t g = after(*conv.group, conv.c), kg = after(conv.k, conv.c);
  st.value.args[0].access.index[1] = st.write.index[1];
  if (!mergeIterators(st, g, kg, "k"))
    throw Error("block_channels: statement " + st.name + " uses g and k' apart");
  const SplitIterators k = splitIterator(st, after(g, kg), x);
  auto iter = [&](size_t d) { return ir::AffineExpr::iter(st.depth(), d); };
  const ir::AffineExpr zero = ir::AffineExpr::constant_(st.depth(), 0);
  ir::Access &o = st.write, &i = st.value.args[0].access, &w = st.value.args[1].access;
  o = {out, {o.index[0], iter(k.outer), o.index[2], o.index[3], iter(k.inner)}};
  i = {in, {i.index[0], iter(k.outer), i.index[2], i.index[3], iter(k.inner)}};
  w = {w.tensor, {iter(k.outer), zero, w.index[2], w.index[3], zero, iter(k.inner)}};
}

/// The max-pool statement over the blocked tensors: c split by x, O'[n, c0, oh, ow, c1] max=
/// I'[n, c0, h, w, c1].
void poolStatement(ir::Statement &st, const Pool &pool, int out, int in, int64_t x) {
  const SplitIterators c = splitIterator(st, pool.c, x);
  st.write.tensor = out;
  st.value.access.tensor = in;
  for (ir::Access *a : {&st.write, &st.value.access}) {
    a->index[1] = ir::AffineExpr::iter(st.depth(), c.outer);
    a->index.push_back(ir::AffineExpr::iter(st.depth(), c.inner));
  }
}

} // namespace

int64_t defaultInputBlock(int64_t channels, int64_t block) {
  for (int64_t y = std::min(block, channels); y > 1; --y)
    if (channels % y == 0)
      return y;
  return 1;
}

std::string blockChannelsRefusal(const ir::Program &program, size_t call,
                                 const std::string &statement, int64_t block, int64_t inputBlock) {
  const ir::Statement *st = findStatement(program.calls.at(call).kernel, statement);
  if (!st)
    return "no statement '" + statement + "'";
  Conv conv;
  Pool pool;
  return statementRefusal(program, call, *st, block, inputBlock, conv, pool);
}

int64_t blockChannels(ir::Program &program, size_t call, const std::string &statement,
                      int64_t block, int64_t inputBlock) {
  const ir::Statement &found =
      requireStatement(program.calls.at(call).kernel, statement, "block_channels");
  Conv conv;
  Pool pool;
  if (std::string why = statementRefusal(program, call, found, block, inputBlock, conv, pool);
      !why.empty())
    throw NotBlockable("block_channels: statement " + statement + " of kernel '" +
                       program.calls[call].kernel.name + "' cannot take blocked layouts: " + why);
  if (found.update == ir::Update::Max) {
    const int in = blockInput(program, call, statement, pool.in, block);
    const int out = blockOutput(program, call, statement, pool.out, block);
    poolStatement(*findStatement(program.calls[call].kernel, statement), pool, out, in, block);
    return block;
  }
  const bool broadcast = conv.blocking == Blocking::Broadcast;
  blockWeights(program, call, conv.weights, statement, block, broadcast ? inputBlock : 1);
  const int in = repeatsInput(conv)
                     ? repeatInput(program, call, conv.in, conv.out, conv.outPerGroup, block)
                     : blockInput(program, call, statement, conv.in, inputBlock);
  const int out = blockOutput(program, call, statement, conv.out, block);
  ir::Statement &st = *findStatement(program.calls[call].kernel, statement);
  if (broadcast)
    broadcastStatement(st, conv, out, in, block, inputBlock);
  else
    channelwiseStatement(st, conv, out, in, block);
  return inputBlock;
}

} // namespace nasc::compiler
