#include "compiler/Pipeline.h"

#include "compiler/transforms/DefaultSchedule.h"
#include "ir/lower/Lower.h"
#include "polyhedral/ParallelLoops.h"

namespace nasc::compiler {

PolyhedralModel lowerToPolyhedral(ir::Graph graph) {
  PolyhedralModel model;
  model.isl = std::make_unique<poly::IslContext>();
  model.program = ir::lowerGraph(graph);
  model.graph = std::move(graph);
  for (const auto &call : model.program.calls) {
    poly::Scop scop = poly::buildScop(model.isl->get(), call.kernel);
    model.dependences.push_back(poly::computeDependences(scop, call.kernel));
    scop.schedule = defaultSchedule(scop, model.dependences.back(), call.kernel);
    scop.schedule = poly::markParallelLoops(scop, model.dependences.back());
    model.asts.push_back(poly::generateAst(scop));
    model.scops.push_back(std::move(scop));
  }
  return model;
}

codegen::GeneratedCode generateCode(const PolyhedralModel &model, const CompileOptions &options) {
  return codegen::GeneratedCode(model.program, model.asts, options.symbolPrefix, options.target,
                                options.profile);
}

} // namespace nasc::compiler
