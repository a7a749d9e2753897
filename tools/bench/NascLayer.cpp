#include "tools/bench/NascLayer.h"

#include "ir/Error.h"
#include "ir/passes/Passes.h"
#include "runtime/jit/KernelProfile.h"
#include "tools/bench/Timing.h"

#include <algorithm>

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

/// Adds node `name` to `g`: a `kernel` x `kernel` conv (stride 1, pad kernel / 2, so the
/// spatial size is kept) of `channels` channels from `in` to `out` whose weights "<name>.w" are
/// the identity matrix at the centre tap and zero elsewhere (no bias).
void addIdentityConv(ir::Graph &g, const std::string &name, int64_t channels, int64_t kernel,
                     const std::string &in, const std::string &out) {
  ir::Tensor w = ir::Tensor::zeros({channels, channels, kernel, kernel});
  const int64_t centre = (kernel / 2) * kernel + kernel / 2;
  for (int64_t c = 0; c < channels; ++c)
    w.f[static_cast<size_t>((c * channels + c) * kernel * kernel + centre)] = 1.0f;
  g.initializers[name + ".w"] = w;
  const int64_t p = kernel / 2;
  g.nodes.push_back({name,
                     "Conv",
                     {in, name + ".w"},
                     {out},
                     {{"kernel_shape", std::vector<int64_t>{kernel, kernel}},
                      {"pads", std::vector<int64_t>{p, p, p, p}}}});
}

} // namespace

ir::Graph layerGraph(const std::string &name, const LayerShape &shape, const LayerTensors &tensors,
                     int64_t neighbourKernel) {
  ir::Graph g;
  g.name = name;
  g.source = "<layer_bench " + name + ">";
  g.inputs = {"x"};
  g.outputs = {"y"};
  g.values["x"] = {ir::DType::Float32, tensors.x.shape};
  g.initializers["w"] = tensors.w;
  g.initializers["b"] = tensors.b;
  ir::Node node = layerNode(name, shape);
  if (neighbourKernel > 0) {
    node.inputs[0] = "layer_in";
    node.outputs[0] = "layer_out";
    addIdentityConv(g, "before", shape.C, neighbourKernel, "x", "layer_in");
    g.nodes.push_back(node);
    addIdentityConv(g, "after", shape.K, neighbourKernel, "layer_out", "y");
  } else {
    g.nodes = {node};
  }
  for (const auto &[value, tensor] : g.initializers)
    g.values[value] = {ir::DType::Float32, tensor.shape};
  ir::prepareForInference(g);
  return g;
}

NascLayer::NascLayer(const BenchLayer &layer, const LayerTensors &tensors, int threads,
                     bool kernelOnly)
    : input_(tensors.x.f), output_(static_cast<size_t>(ir::numElements(outputShape(layer.shape)))) {
  if (kernelOnly && layer.shape.gemm)
    throw Error("layer " + layer.name + ": a Gemm has no kernel-only timing");
  compiler::CompileOptions options;
  options.threads = threads;
  options.profile = kernelOnly;
  model_ = compiler::CompiledModel::compile(
      layerGraph(layer.name, layer.shape, tensors, kernelOnly ? layer.neighbourKernel : 0),
      options);
  const ir::Program &program = model_->program();
  if (kernelOnly) {
    auto it =
        std::find_if(program.calls.begin(), program.calls.end(), [&](const ir::KernelCall &c) {
          return std::find(c.nodes.begin(), c.nodes.end(), layer.name) != c.nodes.end();
        });
    if (it == program.calls.end())
      throw Error("layer " + layer.name + ": no kernel of nasc's program implements it");
    kernel_ = static_cast<size_t>(it - program.calls.begin());
  }
  const ir::Shape &produced = program.buffers[static_cast<size_t>(program.outputs.at(0))].shape;
  if (produced != outputShape(layer.shape))
    throw Error("layer " + layer.name + ": nasc's output has shape " + ir::shapeToString(produced) +
                ", expected " + ir::shapeToString(outputShape(layer.shape)));
}

double NascLayer::run() {
  const float *in = input_.data();
  float *out = output_.data();
  if (!kernel_)
    return secondsOf([&] { model_->runRaw(&in, &out); });
  runtime::KernelProfile profile(model_->program().calls.size());
  model_->runRaw(&in, &out);
  return profile.seconds().at(*kernel_);
}

} // namespace nasc::bench
