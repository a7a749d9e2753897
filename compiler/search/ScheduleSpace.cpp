#include "compiler/search/ScheduleSpace.h"

#include "ir/lower/Lower.h"

#include <set>
#include <string>

namespace nasc::search {

namespace {

/// What the default trace with `choices` decides for `workload`: its layout steps and the
/// register tile of each statement, as text.
std::string traceSignature(const ConvWorkload &workload, const compiler::TraceChoices &choices,
                           const codegen::VectorUnit &unit) {
  ir::Program program = ir::lowerGraph(workload.graph);
  std::string text;
  for (size_t call = 0; call < program.calls.size(); ++call) {
    for (const compiler::ScheduleStep &step :
         compiler::applyDefaultLayout(program, call, unit, choices))
      text += step.toString() + ";";
    for (const ir::Statement &st : program.calls[call].kernel.statements)
      if (std::optional<compiler::RegisterTile> tile =
              compiler::defaultRegisterTile(st, unit, choices)) {
        text += st.name + (tile->rowsOutside ? " rows outside:" : ":");
        for (const compiler::RegisterTile::Loop &loop : tile->loops)
          text += " " + std::to_string(loop.dim) + "x" + std::to_string(loop.count);
        text += ";";
      }
  }
  return text;
}

} // namespace

std::vector<compiler::TraceChoices> withEachOrder(compiler::TraceChoices choices) {
  std::vector<compiler::TraceChoices> ordered;
  for (int order : {0, compiler::kChannelsOutside, compiler::kRowsOutside}) {
    choices.order = order;
    ordered.push_back(choices);
  }
  return ordered;
}

std::vector<compiler::TraceChoices> traceChoiceSpace(const codegen::VectorUnit &unit) {
  std::vector<int> blocks{0};
  if (unit.lanes / 2 >= 8)
    blocks.push_back(unit.lanes / 2);
  std::vector<compiler::TraceChoices> space;
  for (int block : blocks)
    for (int jam : {0, 1, 2})
      for (int unroll : {0, 4, 8})
        for (const compiler::TraceChoices &choices : withEachOrder({block, jam, unroll, 0}))
          space.push_back(choices);
  return space;
}

std::vector<compiler::TraceChoices>
distinctChoices(const ConvWorkload &workload, const codegen::VectorUnit &unit,
                const std::vector<compiler::TraceChoices> &candidates) {
  std::vector<compiler::TraceChoices> distinct;
  std::set<std::string> seen;
  for (const compiler::TraceChoices &choices : candidates)
    if (seen.insert(traceSignature(workload, choices, unit)).second)
      distinct.push_back(choices);
  return distinct;
}

std::vector<compiler::TraceChoices> distinctChoices(const ConvWorkload &workload,
                                                    const codegen::VectorUnit &unit) {
  return distinctChoices(workload, unit, traceChoiceSpace(unit));
}

} // namespace nasc::search
