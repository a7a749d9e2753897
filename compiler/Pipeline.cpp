#include "compiler/Pipeline.h"

#include "ir/lower/Lower.h"

namespace nasc::compiler {

PolyhedralModel lowerToPolyhedral(ir::Graph graph) {
  PolyhedralModel model;
  model.isl = std::make_unique<poly::IslContext>();
  model.program = ir::lowerGraph(graph);
  model.graph = std::move(graph);
  for (const auto &call : model.program.calls) {
    model.scops.push_back(poly::buildScop(model.isl->get(), call.kernel));
    model.asts.push_back(poly::generateAst(model.scops.back()));
  }
  return model;
}

codegen::GeneratedCode generateCode(const PolyhedralModel &model, const CompileOptions &options) {
  return codegen::GeneratedCode(model.program, model.asts, options.symbolPrefix, options.target);
}

} // namespace nasc::compiler
