#include "tools/bench/NascLayer.h"

#include "ir/Error.h"
#include "ir/passes/Passes.h"

namespace nasc::bench {

namespace {

/// The Conv or Gemm node of layerGraph.
ir::Node layerNode(const std::string &name, const LayerShape &shape) {
  if (shape.gemm)
    return {name, "Gemm", {"x", "w", "b"}, {"y"}, {{"transB", int64_t{1}}}};
  const int64_t k = shape.kernel, s = shape.stride, p = shape.pad;
  return {name,
          "Conv",
          {"x", "w", "b"},
          {"y"},
          {{"kernel_shape", std::vector<int64_t>{k, k}},
           {"strides", std::vector<int64_t>{s, s}},
           {"pads", std::vector<int64_t>{p, p, p, p}},
           {"group", shape.group}}};
}

} // namespace

ir::Graph layerGraph(const std::string &name, const LayerShape &shape,
                     const LayerTensors &tensors) {
  ir::Graph g;
  g.name = name;
  g.source = "<layer_bench " + name + ">";
  g.inputs = {"x"};
  g.outputs = {"y"};
  g.values["x"] = {ir::DType::Float32, tensors.x.shape};
  g.initializers["w"] = tensors.w;
  g.initializers["b"] = tensors.b;
  for (const auto &[value, tensor] : g.initializers)
    g.values[value] = {ir::DType::Float32, tensor.shape};
  g.nodes = {layerNode(name, shape)};
  ir::prepareForInference(g);
  return g;
}

NascLayer::NascLayer(const BenchLayer &layer, const LayerTensors &tensors, int threads)
    : input_(tensors.x.f), output_(static_cast<size_t>(ir::numElements(outputShape(layer.shape)))) {
  compiler::CompileOptions options;
  options.threads = threads;
  model_ = compiler::CompiledModel::compile(layerGraph(layer.name, layer.shape, tensors), options);
  const ir::Program &program = model_->program();
  const ir::Shape &produced = program.buffers[static_cast<size_t>(program.outputs.at(0))].shape;
  if (produced != outputShape(layer.shape))
    throw Error("layer " + layer.name + ": nasc's output has shape " + ir::shapeToString(produced) +
                ", expected " + ir::shapeToString(outputShape(layer.shape)));
}

void NascLayer::run() {
  const float *in = input_.data();
  float *out = output_.data();
  model_->runRaw(&in, &out);
}

} // namespace nasc::bench
