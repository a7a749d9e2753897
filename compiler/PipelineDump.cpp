#include "compiler/PipelineDump.h"

#include "ir/Error.h"

#include <functional>
#include <ostream>

namespace nasc::compiler {

namespace {

/// Calls `print(call, record)` for each kernel implementing `node` (all when it is empty).
void forSelected(const PolyhedralModel &model, const std::string &node,
                 const std::function<void(const ir::KernelCall &, const KernelRecord &)> &print) {
  bool any = false;
  for (size_t c = 0; c < model.kernels.size(); ++c)
    if (node.empty() || implementsNode(model.program.calls[c], node)) {
      any = true;
      print(model.program.calls[c], model.kernels[c]);
    }
  if (!any && !node.empty())
    throw Error("no kernel implements node '" + node + "'");
}

void printTrace(std::ostream &out, const KernelSchedule &trace) {
  out << "// trace of " << trace.node << ": " << trace.steps.size() << " step(s)\n";
  for (const ScheduleStep &step : trace.steps)
    out << "//   " << step.toString() << "\n";
}

} // namespace

void printGraph(std::ostream &out, const PolyhedralModel &model, const std::string &) {
  out << model.graph.toString();
}

void printKernels(std::ostream &out, const PolyhedralModel &model, const std::string &node) {
  forSelected(model, node, [&](const ir::KernelCall &call, const KernelRecord &) {
    out << call.kernel.toString();
  });
}

void printKernelsAndTraces(std::ostream &out, const PolyhedralModel &model,
                           const std::string &node) {
  forSelected(model, node, [&](const ir::KernelCall &call, const KernelRecord &record) {
    out << call.kernel.toString();
    printTrace(out, record.trace);
  });
}

void printScops(std::ostream &out, const PolyhedralModel &model, const std::string &node) {
  forSelected(model, node, [&](const ir::KernelCall &call, const KernelRecord &record) {
    const poly::Scop &scop = record.scop.value();
    out << "kernel " << call.kernel.name << "\n  domain: " << scop.domain
        << "\n  writes: " << scop.writes << "\n  reads: " << scop.reads
        << "\n  schedule: " << scop.schedule << "\n";
  });
}

void printDependences(std::ostream &out, const PolyhedralModel &model, const std::string &node) {
  forSelected(model, node, [&](const ir::KernelCall &call, const KernelRecord &record) {
    const poly::Dependences &deps = record.dependences.value();
    out << "kernel " << call.kernel.name << "\n  flow: " << deps.flow << "\n  anti: " << deps.anti
        << "\n  output: " << deps.output << "\n  reductions: " << deps.reductions << "\n";
  });
}

void printSchedules(std::ostream &out, const PolyhedralModel &model, const std::string &node) {
  forSelected(model, node, [&](const ir::KernelCall &call, const KernelRecord &record) {
    printTrace(out, record.trace);
    out << "kernel " << call.kernel.name << " schedule: " << record.scop.value().schedule << "\n";
  });
}

void printAsts(std::ostream &out, const PolyhedralModel &model, const std::string &node) {
  forSelected(model, node, [&](const ir::KernelCall &call, const KernelRecord &record) {
    out << "// kernel " << call.kernel.name << "\n" << poly::astToString(record.ast.value());
  });
}

} // namespace nasc::compiler
