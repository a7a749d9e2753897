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

std::vector<compiler::TraceChoices> traceChoiceSpace(const codegen::VectorUnit &unit) {
  std::vector<int> blocks{0};
  if (unit.lanes / 2 >= 8)
    blocks.push_back(unit.lanes / 2);
  std::vector<compiler::TraceChoices> space;
  for (int block : blocks)
    for (int jam : {0, 1, 2})
      for (int unroll : {0, 4, 8})
        for (int order : {0, compiler::kChannelsOutside, compiler::kRowsOutside})
          space.push_back({block, jam, unroll, order});
  return space;
}

std::vector<compiler::TraceChoices> distinctChoices(const ConvWorkload &workload,
                                                    const codegen::VectorUnit &unit) {
  std::vector<compiler::TraceChoices> distinct;
  std::set<std::string> seen;
  for (const compiler::TraceChoices &choices : traceChoiceSpace(unit))
    if (seen.insert(traceSignature(workload, choices, unit)).second)
      distinct.push_back(choices);
  return distinct;
}

} // namespace nasc::search
