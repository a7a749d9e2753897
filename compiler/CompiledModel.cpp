#include "compiler/CompiledModel.h"

#include "ir/Error.h"

namespace nasc::compiler {

void checkInputs(const ir::Program &program, const std::vector<ir::Tensor> &inputs) {
  if (inputs.size() != program.inputs.size())
    throw Error("model expects " + std::to_string(program.inputs.size()) + " inputs, got " +
                std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Buffer &b = program.buffers[static_cast<size_t>(program.inputs[i])];
    if (inputs[i].shape != b.shape || inputs[i].dtype != ir::DType::Float32 ||
        inputs[i].f.size() != static_cast<size_t>(ir::numElements(b.shape)))
      throw Error("input '" + b.name + "' must have shape " + ir::shapeToString(b.shape) +
                  " (float32), got " + ir::shapeToString(inputs[i].shape));
  }
}

std::unique_ptr<CompiledModel> CompiledModel::compile(ir::Graph graph,
                                                      const CompileOptions &options) {
  return compile(lowerToPolyhedral(std::move(graph)), options);
}

std::unique_ptr<CompiledModel> CompiledModel::compile(PolyhedralModel model,
                                                      const CompileOptions &options) {
  auto jit =
      std::make_unique<runtime::JitProgram>(generateCode(model, options), options.symbolPrefix);
  jit->setThreads(options.threads);
  return std::unique_ptr<CompiledModel>(
      new CompiledModel(std::move(model.graph), std::move(model.program), std::move(jit)));
}

std::vector<ir::Tensor> CompiledModel::run(const std::vector<ir::Tensor> &inputs) {
  checkInputs(program_, inputs);
  std::vector<const float *> in;
  for (const auto &t : inputs)
    in.push_back(t.f.data());
  std::vector<ir::Tensor> outputs;
  std::vector<float *> out;
  for (int id : program_.outputs)
    outputs.push_back(ir::Tensor::zeros(program_.buffers[static_cast<size_t>(id)].shape));
  for (auto &t : outputs)
    out.push_back(t.f.data());
  jit_->run(in.data(), out.data());
  return outputs;
}

} // namespace nasc::compiler
