#include "compiler/nas/NeuralRegistry.h"

#include "compiler/nas/ConvLayer.h"

namespace nasc::nas {

// The definitions, each in the file of its graph rewrite (NeuralRegistry.h).
NeuralTransform groupTransform();
NeuralTransform depthwiseTransform();
NeuralTransform bottleneckTransform();
NeuralTransform spatialBottleneckTransform();
NeuralTransform seq1Transform();
NeuralTransform seq2Transform();
NeuralTransform seq3Transform();

namespace {

size_t scalarCount(const NeuralTransform &t) {
  size_t count = 0;
  for (const compiler::ArgumentSpec &p : t.parameters)
    count += p.isList ? 0 : 1;
  return count;
}

bool hasList(const NeuralTransform &t) {
  return !t.parameters.empty() && t.parameters.back().isList;
}

std::string knownTransforms() {
  std::string known;
  for (const NeuralTransform &t : neuralTransforms())
    known += (known.empty() ? "" : ", ") + t.usage();
  return known;
}

/// "`G`", "none", "`u`, `G`", "`groups` (list)": the trace arguments of `t`.
std::string traceArguments(const NeuralTransform &t) {
  std::string text;
  for (const compiler::ArgumentSpec &p : t.parameters)
    text += (text.empty() ? "`" : ", `") + p.name + "`" + (p.isList ? " (list)" : "");
  return text.empty() ? "none" : text;
}

} // namespace

std::string NeuralTransform::usage() const {
  std::string arguments;
  for (const compiler::ArgumentSpec &p : parameters)
    arguments += (arguments.empty() ? "" : ",") + (p.isList ? listUsage : p.name);
  return arguments.empty() ? name : name + "(" + arguments + ")";
}

std::string NeuralTransform::arity() const {
  const size_t least = scalarCount(*this) + listMin, most = scalarCount(*this) + listMax;
  std::string count = std::to_string(least);
  if (most != least)
    count += " to " + std::to_string(most);
  return count + " integer argument" + (most == 1 ? "" : "s");
}

void NeuralTransform::checkArgumentCount(size_t count, const std::string &context) const {
  const size_t scalars = scalarCount(*this);
  const bool takes =
      hasList(*this) ? count >= scalars + listMin && count <= scalars + listMax : count == scalars;
  if (!takes)
    throw Error(context + ": " + name + " takes " + arity());
}

compiler::ArgumentSpec scalarParameter(const std::string &name) {
  return {name, false, std::nullopt};
}

compiler::ArgumentSpec listParameter(const std::string &name) { return {name, true, std::nullopt}; }

const std::vector<NeuralTransform> &neuralTransforms() {
  static const std::vector<NeuralTransform> all{
      groupTransform(), depthwiseTransform(), bottleneckTransform(), spatialBottleneckTransform(),
      seq1Transform(),  seq2Transform(),      seq3Transform()};
  return all;
}

const NeuralTransform &findNeuralTransform(const std::string &name, const std::string &context) {
  for (const NeuralTransform &t : neuralTransforms())
    if (t.name == name)
      return t;
  throw Error(context + ": unknown transformation '" + name + "' (known: " + knownTransforms() +
              ")");
}

std::vector<ScopRewrite> neuralIslForm(isl::ctx ctx, const ir::Graph &graph,
                                       const NeuralStep &step) {
  const NeuralTransform &t = findNeuralTransform(step.transform, step.toString());
  if (convLayer(graph, step.node, step.toString()).group != 1)
    return {};
  return t.islForm(ctx, graph, step);
}

std::string neuralTransformTable() {
  std::string table = "| step | trace arguments | computes | FLOP of the Conv | parameters | "
                      "refused when |\n|---|---|---|---|---|---|\n";
  for (const NeuralTransform &t : neuralTransforms())
    table += "| `" + t.usage() + "` | " + traceArguments(t) + " | " + t.summary + " | " + t.flops +
             " | " + t.params + " | " + t.refusedWhen + " |\n";
  return table;
}

} // namespace nasc::nas
