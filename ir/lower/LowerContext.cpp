#include "ir/lower/LowerContext.h"

#include "ir/Error.h"

#include <algorithm>

namespace nasc::ir::lower {

namespace {

BufferKind kindOf(const Graph &graph, const std::string &value) {
  if (std::find(graph.inputs.begin(), graph.inputs.end(), value) != graph.inputs.end())
    return BufferKind::Input;
  if (graph.isInitializer(value))
    return BufferKind::Constant;
  return BufferKind::Temp;
}

std::string uniqueName(const std::string &base, const std::set<std::string> &taken) {
  std::string name = base;
  for (int k = 1; taken.count(name); ++k)
    name = base + "_" + std::to_string(k);
  return name;
}

} // namespace

LowerContext::LowerContext(const Graph &graph) : graph_(graph) {
  for (const ConvFusion &f : planConvFusion(graph)) {
    fusionEndingAt_[f.last()] = f;
    for (auto k : {std::optional<size_t>(f.conv), f.add, f.relu})
      if (k && *k != f.last())
        fusedAway_.insert(*k);
  }
  program_.name = graph.name;
  for (const auto &in : graph.inputs)
    program_.inputs.push_back(buffer(in));
  for (const auto &out : graph.outputs) {
    if (kindOf(graph, out) != BufferKind::Temp) {
      program_.outputs.push_back(static_cast<int>(program_.buffers.size()));
      program_.buffers.push_back({out, graph.shapeOf(out), BufferKind::Output, {}});
      continue;
    }
    int b = buffer(out);
    program_.buffers[static_cast<size_t>(b)].kind = BufferKind::Output;
    program_.outputs.push_back(b);
  }
}

const Shape &LowerContext::shape(const std::string &value) const {
  auto it = graph_.initializers.find(value);
  return it != graph_.initializers.end() ? it->second.shape : graph_.shapeOf(value);
}

int LowerContext::buffer(const std::string &value) {
  auto it = valueBuffers_.find(value);
  if (it != valueBuffers_.end())
    return it->second;
  Buffer b;
  b.name = value;
  b.kind = kindOf(graph_, value);
  if (b.kind == BufferKind::Constant) {
    b.data = graph_.initializers.at(value);
    b.shape = b.data.shape;
    if (b.data.dtype != DType::Float32)
      throw Error(graph_.source + ": initializer '" + value + "' is not float32");
  } else {
    b.shape = graph_.shapeOf(value);
    if (graph_.values.at(value).dtype != DType::Float32)
      throw Error(graph_.source + ": value '" + value + "' is not float32");
  }
  int index = static_cast<int>(program_.buffers.size());
  program_.buffers.push_back(std::move(b));
  valueBuffers_[value] = index;
  return index;
}

std::string LowerContext::uniqueBufferName(const std::string &base) const {
  std::set<std::string> taken;
  for (const auto &b : program_.buffers)
    taken.insert(b.name);
  for (const auto &[name, info] : graph_.values)
    taken.insert(name);
  for (const auto &[name, tensor] : graph_.initializers)
    taken.insert(name);
  return uniqueName(base, taken);
}

int LowerContext::addConstant(const std::string &base, Tensor data) {
  Buffer b;
  b.name = uniqueBufferName(base);
  b.shape = data.shape;
  b.kind = BufferKind::Constant;
  b.data = std::move(data);
  program_.buffers.push_back(std::move(b));
  return static_cast<int>(program_.buffers.size()) - 1;
}

void LowerContext::emit(Kernel kernel, std::vector<int> args, std::vector<std::string> nodes) {
  kernel.name = uniqueName(kernel.name, kernelNames_);
  kernelNames_.insert(kernel.name);
  program_.calls.push_back({std::move(kernel), std::move(args), std::move(nodes)});
}

std::string LowerContext::where(const Node &node, const std::string &message) const {
  std::string prefix = graph_.source + ": " + node.describe();
  return message.empty() ? prefix : prefix + ": " + message;
}

KernelBuilder::KernelBuilder(LowerContext &ctx, const std::string &name) : ctx_(ctx) {
  kernel_.name = toIdentifier(name);
}

int KernelBuilder::tensor(const std::string &value) { return bufferTensor(ctx_.buffer(value)); }

int KernelBuilder::bufferTensor(int buffer) {
  for (size_t t = 0; t < args_.size(); ++t)
    if (args_[t] == buffer)
      return static_cast<int>(t);
  const Buffer &b = ctx_.program().buffers.at(static_cast<size_t>(buffer));
  std::set<std::string> taken;
  for (const auto &decl : kernel_.tensors)
    taken.insert(decl.name);
  kernel_.tensors.push_back({uniqueName(toIdentifier(b.name), taken), b.shape});
  args_.push_back(buffer);
  return static_cast<int>(args_.size()) - 1;
}

void KernelBuilder::add(Statement st) {
  st.name = "S" + std::to_string(kernel_.statements.size());
  if (st.reduction.empty())
    st.reduction.assign(st.depth(), false);
  kernel_.statements.push_back(std::move(st));
}

void KernelBuilder::emit(std::vector<std::string> nodes) {
  ctx_.emit(std::move(kernel_), std::move(args_), std::move(nodes));
}

const Node *LowerContext::kernelNodeAt(size_t k) const {
  if (fusedAway_.count(k))
    return nullptr;
  auto it = fusionEndingAt_.find(k);
  return &graph_.nodes.at(it != fusionEndingAt_.end() ? it->second.conv : k);
}

const ConvFusion &LowerContext::fusionOf(const Node &conv) const {
  const auto index = static_cast<size_t>(&conv - graph_.nodes.data());
  for (const auto &[last, fusion] : fusionEndingAt_)
    if (fusion.conv == index)
      return fusion;
  throw Error(where(conv, "is not a Conv of the graph being lowered"));
}

} // namespace nasc::ir::lower
