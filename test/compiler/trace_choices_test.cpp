// The default_trace step (compiler/transforms/DefaultSchedule.h, TraceChoices): how schedule
// files write and read it, where a trace may hold it and what the pipeline makes of it.
#include "compiler/Pipeline.h"
#include "compiler/transforms/DefaultSchedule.h"
#include "ir/import/ModelLoader.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

using namespace nasc;

namespace {

/// convReluNet "choices": x [1, 16, 8, 28] -> Conv 3x3 (16 output channels) -> Relu.
std::string denseNet() { return test::convReluNet("choices", 1, 16, 8, 28, 16, 21); }

compiler::ModelSchedule choicesSchedule(const compiler::TraceChoices &choices) {
  return {"test", {{"conv", {compiler::defaultTraceStep(choices)}}}};
}

} // namespace

TEST_CASE("a schedule file's default_trace step names no statement and reads back",
          "[trace-choices]") {
  const compiler::ModelSchedule schedule = compiler::scheduleFromJson(
      R"({"nasc_schedule": 1, "kernels": {"conv": [{"primitive": "default_trace", "jam": 1,
          "unroll": 4}]}})",
      "s.json");
  REQUIRE(schedule.kernels.size() == 1);
  CHECK(compiler::traceChoices(schedule.kernels[0], "s.json") == compiler::TraceChoices{0, 1, 4});
  CHECK(compiler::scheduleToJson(schedule).find(
            R"({"primitive":"default_trace","block":0,"jam":1,"unroll":4})") != std::string::npos);
  CHECK_THROWS_WITH(
      compiler::scheduleFromJson(R"({"nasc_schedule": 1, "kernels": {"conv": [{"primitive":
          "default_trace", "statement": "S1"}]}})",
                                 "s.json"),
      Catch::Contains("unknown field 'statement'"));
}

TEST_CASE("a default_trace step comes last, after neural steps only, with no negative choice",
          "[trace-choices]") {
  const compiler::ScheduleStep choices = compiler::defaultTraceStep({0, 1, 0});
  const compiler::ScheduleStep group{"group", {}, {{"groups", {2}}}};
  const compiler::ScheduleStep split{"split", {"S1"}, {{"member", {0}}, {"factor", {2}}, {"band", {0}}}};
  CHECK(compiler::scheduledByDefault({"conv", {group, choices}}, "s.json"));
  CHECK(compiler::scheduledByDefault({"conv", {choices}}, "s.json"));
  CHECK_FALSE(compiler::scheduledByDefault({"conv", {split}}, "s.json"));
  CHECK_THROWS_WITH(compiler::scheduledByDefault({"conv", {choices, group}}, "s.json"),
                    Catch::Contains("s.json: node 'conv': a default_trace step must be the "
                                    "trace's last step"));
  CHECK_THROWS_WITH(compiler::scheduledByDefault({"conv", {split, choices}}, "s.json"),
                    Catch::Contains("after neural steps only"));
  CHECK_THROWS_WITH(compiler::traceChoices({"conv", {compiler::defaultTraceStep({0, -1, 0})}},
                                           "s.json"),
                    Catch::Contains("a choice must be 0"));
}

TEST_CASE("the pipeline gives a kernel with a default_trace step the default trace of its "
          "choices and drops the step",
          "[trace-choices]") {
  const std::string path = test::writeModel("choices", denseNet()).string();
  const codegen::VectorUnit avx2{8, 16};
  const compiler::PolyhedralModel chosen =
      compiler::lowerToPolyhedral(ir::loadModel(path), choicesSchedule({0, 1, 4}), avx2);
  const std::string text = compiler::scheduleToJson(chosen.schedule);
  CHECK(text.find("default_trace") == std::string::npos);
  // The blocked conv's ow (28 columns) split by the register tile's 4 (jam 1, unroll 4); the
  // default trace's own tile is 2 x 4 (k0 split by 2).
  CHECK(text.find(R"("primitive":"split","statement":"S1","member":3,"factor":4)") !=
        std::string::npos);
  const compiler::PolyhedralModel byDefault = compiler::lowerToPolyhedral(ir::loadModel(path), {}, avx2);
  CHECK(compiler::scheduleToJson(byDefault.schedule) != text);
  CHECK(test::referenceError(compiler::lowerToPolyhedral(ir::loadModel(path),
                                                         choicesSchedule({0, 1, 4}), avx2),
                             path) <= 1e-5);
}
