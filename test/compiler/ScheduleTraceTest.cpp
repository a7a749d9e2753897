// Schedules as data: the JSON form of traces (golden text, round trip, every parse error naming
// the file, node and step), applyTrace against the primitives called directly, stale steps
// refused with the step named, schedule entries matched to kernels by node name, and a
// compilation replayed from its printed trace giving bit-identical outputs.
#include "compiler/transforms/Primitives.h"
#include "compiler/transforms/Split.h"
#include "compiler/transforms/Tile.h"
#include "compiler/transforms/TransformErrors.h"
#include "test/support/Compare.h"
#include "test/support/Kernels.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace nasc;

namespace {

const char *kTraceJson = R"({
  "nasc_schedule": 1,
  "kernels": {
    "conv": [
      {"primitive":"interchange","statement":"S1","order":[0,1,2,4,5,6,3]},
      {"primitive":"tile","statement":"S1","sizes":[1,2],"band":0},
      {"primitive":"split","statement":"S1","member":4,"factor":4,"band":2},
      {"primitive":"parallelize","statement":"S0","member":1,"band":0}
    ],
    "pool": []
  }
}
)";

compiler::ScheduleStep step(const std::string &primitive, const std::string &statement,
                            std::map<std::string, std::vector<int>> args) {
  return {primitive, {statement}, std::move(args)};
}

std::string parseError(const std::string &text) {
  try {
    compiler::scheduleFromJson(text, "s.json");
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

std::string wrapSteps(const std::string &steps) {
  return R"({"nasc_schedule": 1, "kernels": {"conv": [)" + steps + "]}}";
}

} // namespace

TEST_CASE("a schedule prints as JSON, one step per line, and parses back to the same steps",
          "[schedule-trace]") {
  compiler::ModelSchedule schedule = compiler::scheduleFromJson(kTraceJson, "s.json");
  REQUIRE(schedule.kernels.size() == 2);
  CHECK(schedule.source == "s.json");
  CHECK(schedule.kernels[0].node == "conv");
  REQUIRE(schedule.kernels[0].steps.size() == 4);
  CHECK(schedule.kernels[0].steps[1].toString() == "tile(S1, sizes=[1, 2], band=0)");
  CHECK(schedule.kernels[0].steps[2].list("factor") == std::vector<int>{4});
  CHECK(schedule.kernels[1].node == "pool");
  CHECK(schedule.kernels[1].steps.empty());
  CHECK(compiler::scheduleToJson(schedule) == kTraceJson);
}

TEST_CASE("optional arguments are filled in when a schedule is parsed", "[schedule-trace]") {
  compiler::ModelSchedule schedule = compiler::scheduleFromJson(
      wrapSteps(R"({"primitive": "vectorize", "statement": "S0", "member": 3})"), "s.json");
  CHECK(schedule.kernels.at(0).steps.at(0).toString() ==
        "vectorize(S0, member=3, width=0, band=0)");
}

TEST_CASE("malformed schedules are refused naming the file, node, step and field",
          "[schedule-trace][error]") {
  CHECK(parseError("{").rfind("s.json: invalid JSON: ", 0) == 0);
  CHECK(parseError(R"({"kernels": {}})") ==
        "s.json: field 'nasc_schedule' must be 1 (the schedule format version)");
  CHECK(parseError(R"({"nasc_schedule": 1, "kernels": []})") ==
        "s.json: field 'kernels' must be an object mapping node names to steps");
  CHECK(parseError(R"({"nasc_schedule": 1, "kernels": {}, "extra": 0})") ==
        "s.json: unknown field 'extra'");
  CHECK(parseError(R"({"nasc_schedule": 1, "kernels": {"conv": 3}})") ==
        "s.json: node 'conv': must map to a list of steps");
  CHECK(parseError(wrapSteps(R"({"primitive": "skew", "statement": "S1"})")) ==
        "s.json: node 'conv' step 1 (skew): unknown primitive 'skew' (known: interchange, split, "
        "tile, fuse, unroll, vectorize, parallelize, pad_input, subsample_input, "
        "block_channels, default_trace, "
        "group, depthwise, bottleneck, spatial_bottleneck, seq1, seq2, seq3)");
  CHECK(parseError(wrapSteps(R"({"primitive": "tile", "statement": "S1"})")) ==
        "s.json: node 'conv' step 1 (tile): missing argument 'sizes'");
  CHECK(parseError(wrapSteps(R"({"primitive": "tile", "sizes": [2]})")) ==
        "s.json: node 'conv' step 1 (tile): field 'statement' must be a string");
  CHECK(parseError(wrapSteps(R"({"primitive": "split", "statement": "S1", "member": [1], )"
                             R"("factor": 2})")) ==
        "s.json: node 'conv' step 1 (split): argument 'member' must be an integer");
  CHECK(parseError(wrapSteps(R"({"primitive": "tile", "statement": "S1", "sizes": [2, 1.5]})")) ==
        "s.json: node 'conv' step 1 (tile): argument 'sizes' must be a list of integers");
  CHECK(parseError(wrapSteps(R"({"primitive": "split", "statement": "S1", "member": 1, )"
                             R"("factor": 4294967296})")) ==
        "s.json: node 'conv' step 1 (split): argument 'factor' must be an integer");
  CHECK(parseError(wrapSteps(R"({"primitive": "tile", "statement": "S1", "sizes": [2], )"
                             R"("size": 3})")) ==
        "s.json: node 'conv' step 1 (tile): unknown field 'size'");
  CHECK(parseError(wrapSteps(R"({"primitive": "fuse", "statements": []})")) ==
        "s.json: node 'conv' step 1 (fuse): field 'statements' must be a non-empty list of "
        "statement names");
  CHECK(parseError(wrapSteps(R"(7)")) == "s.json: node 'conv' step 1: must be an object");
}

TEST_CASE("applyTrace equals the primitives called one after another", "[schedule-trace]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  compiler::KernelSchedule trace{
      "matmul",
      {step("tile", "S1", {{"sizes", {2, 4}}, {"band", {0}}}),
       step("split", "S1", {{"member", {0}}, {"factor", {3}}, {"band", {2}}})}};
  poly::Scop direct = scop;
  direct.schedule = compiler::tile(direct, deps, "S1", {2, 4});
  direct.schedule = compiler::split(direct, deps, "S1", 0, 3, 2);
  CHECK(test::scheduleText(compiler::applyTrace(scop, deps, trace, "t.json")) ==
        test::scheduleText(direct.schedule));
}

TEST_CASE("applyTrace keeps the cause of a refused step as its type: illegal or stale",
          "[schedule-trace][error]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  // S1[i, j, k] sums over k: a parallel k loop would race on C[i, j] (CarriedDependence).
  compiler::KernelSchedule illegal{"matmul",
                                   {step("parallelize", "S1", {{"member", {2}}, {"band", {0}}})}};
  CHECK_THROWS_AS(compiler::applyTrace(scop, deps, illegal, "t.json"),
                  compiler::IllegalScheduleStep);
  CHECK_THROWS_AS(compiler::applyTrace(scop, deps, illegal, "t.json"), compiler::StaleScheduleStep);
  // A member the band does not have: the model changed under the step, not illegal.
  compiler::KernelSchedule stale{"matmul",
                                 {step("parallelize", "S1", {{"member", {5}}, {"band", {0}}})}};
  try {
    compiler::applyTrace(scop, deps, stale, "t.json");
    FAIL("no error");
  } catch (const compiler::StaleScheduleStep &e) {
    CHECK(dynamic_cast<const compiler::IllegalScheduleStep *>(&e) == nullptr);
    CHECK(dynamic_cast<const compiler::RefusedScheduleStep *>(&e) == nullptr);
  }
}

TEST_CASE("a primitive's refusal is a ScheduleRefusal, a malformed step is not",
          "[schedule-trace][error]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  // The k loop carries the sum: refused (the default trace records such a step and goes on).
  CHECK_THROWS_AS(
      compiler::applyStep(scop, deps, step("parallelize", "S1", {{"member", {2}}, {"band", {0}}})),
      compiler::ScheduleRefusal);
  // No such primitive, no statement: errors of the step itself, which the default trace throws.
  for (const compiler::ScheduleStep &bad :
       {step("paralellize", "S1", {{"member", {0}}, {"band", {0}}}),
        compiler::ScheduleStep{"parallelize", {}, {{"member", {0}}, {"band", {0}}}}}) {
    try {
      compiler::applyStep(scop, deps, bad);
      FAIL("no error");
    } catch (const Error &e) {
      CHECK(dynamic_cast<const compiler::ScheduleRefusal *>(&e) == nullptr);
    }
  }
}

TEST_CASE("a neural step its transformation refuses is a RefusedScheduleStep",
          "[schedule-trace][error]") {
  // group(4) of a conv with 5 input and 6 output channels: 4 divides neither.
  const std::string path = test::writeModel("refusednet", test::kSmallConvNet).string();
  compiler::ModelSchedule schedule = compiler::scheduleFromJson(
      R"({"nasc_schedule": 1, "kernels": {"conv": [{"primitive": "group", "G": 4}]}})", "r.json");
  CHECK_THROWS_AS(compiler::lowerToPolyhedral(ir::loadModel(path), schedule),
                  compiler::RefusedScheduleStep);
  CHECK_THROWS_WITH(compiler::lowerToPolyhedral(ir::loadModel(path), schedule),
                    Catch::StartsWith("r.json: node 'conv' step 1 group("));
}

TEST_CASE("a step that no longer applies is refused naming the file, node and step",
          "[schedule-trace][error]") {
  poly::IslContext ctx;
  auto [kernel, scop, deps] = test::Scheduled(ctx, test::matmulWithInit(5, 6, 3));
  compiler::KernelSchedule trace{
      "matmul",
      {step("tile", "S1", {{"sizes", {2, 4}}, {"band", {0}}}),
       step("split", "S1", {{"member", {2}}, {"factor", {3}}, {"band", {1}}})}};
  CHECK_THROWS_AS(compiler::applyTrace(scop, deps, trace, "t.json"), compiler::StaleScheduleStep);
  CHECK_THROWS_WITH(
      compiler::applyTrace(scop, deps, trace, "t.json"),
      "t.json: node 'matmul' step 2 split(S1, member=2, factor=3, band=1) does not "
      "apply: split of statement 'S1' member 2 by 3: the band has 2 members (0 .. 1)");
  compiler::KernelSchedule unknown{"matmul",
                                   {step("parallelize", "S9", {{"member", {0}}, {"band", {0}}})}};
  CHECK_THROWS_WITH(compiler::applyTrace(scop, deps, unknown, "t.json"),
                    "t.json: node 'matmul' step 1 parallelize(S9, member=0, band=0) does not "
                    "apply: parallelize: no statement named 'S9' in the Scop");
}

namespace {

const char *kNet = R"({
  "name": "tracenet",
  "inputs": [{"name": "x", "shape": [1, 3, 10, 9]}],
  "outputs": ["y"],
  "nodes": [
    {"name": "conv", "op_type": "Conv", "inputs": ["x", "w", "b"], "outputs": ["c"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
    {"name": "relu", "op_type": "Relu", "inputs": ["c"], "outputs": ["r"]},
    {"name": "pool", "op_type": "MaxPool", "inputs": ["r"], "outputs": ["y"],
     "attributes": {"kernel_shape": [2, 2], "strides": [2, 2]}}
  ],
  "initializers": [
    {"name": "w", "shape": [8, 3, 3, 3], "init": "he_normal", "seed": 3},
    {"name": "b", "shape": [8], "init": "he_normal", "seed": 4}
  ]
})";

std::vector<float> runModel(compiler::PolyhedralModel model, const ir::Tensor &input) {
  return compiler::CompiledModel::compile(std::move(model))->run({input}).at(0).f;
}

} // namespace

TEST_CASE("a compilation replayed from its printed schedule gives bit-identical outputs",
          "[schedule-trace][jit]") {
  std::string path = test::writeModel("tracenet", kNet).string();
  compiler::ModelSchedule custom = compiler::scheduleFromJson(kTraceJson, "s.json");
  compiler::PolyhedralModel first = compiler::lowerToPolyhedral(ir::loadModel(path), custom);
  REQUIRE(first.schedule().kernels.size() == 2);
  CHECK(first.schedule().kernels[0].steps.size() == 4);
  std::string printed = compiler::scheduleToJson(first.schedule());
  CHECK(printed == kTraceJson);
  compiler::PolyhedralModel replay = compiler::lowerToPolyhedral(
      ir::loadModel(path), compiler::scheduleFromJson(printed, "printed.json"));
  CHECK(compiler::generateCode(first, {}).llvmIr() == compiler::generateCode(replay, {}).llvmIr());
  ir::Tensor input = test::normalTensor({1, 3, 10, 9}, 9);
  std::vector<float> a = runModel(std::move(first), input);
  std::vector<float> b = runModel(std::move(replay), input);
  REQUIRE(a.size() == b.size());
  CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
  auto expected = runtime::runReference(ir::loadModelRaw(path), {{"x", input}}).at("y");
  CHECK(test::relativeError(a, expected.f) <= 1e-5);
}

TEST_CASE("the default schedule, printed and replayed, is the default schedule",
          "[schedule-trace]") {
  std::string path = test::writeModel("tracenet", kNet).string();
  compiler::PolyhedralModel defaults = compiler::lowerToPolyhedral(ir::loadModel(path));
  CHECK(defaults.schedule().source == "default schedule");
  REQUIRE(defaults.schedule().kernels.size() == 2);
  CHECK(defaults.schedule().kernels[0].node == "conv");
  CHECK(defaults.schedule().kernels[1].node == "pool");
  compiler::PolyhedralModel replay = compiler::lowerToPolyhedral(
      ir::loadModel(path),
      compiler::scheduleFromJson(compiler::scheduleToJson(defaults.schedule()), "d.json"));
  for (size_t k = 0; k < defaults.kernels.size(); ++k)
    CHECK(test::scheduleText(defaults.kernels[k].scop->schedule) ==
          test::scheduleText(replay.kernels[k].scop->schedule));
}

TEST_CASE("schedule entries name kernels by any node they implement, each kernel once",
          "[schedule-trace][error]") {
  std::string path = test::writeModel("tracenet", kNet).string();
  auto lower = [&](const std::string &text) {
    return compiler::lowerToPolyhedral(ir::loadModel(path),
                                       compiler::scheduleFromJson(text, "s.json"));
  };
  compiler::PolyhedralModel byRelu = lower(R"({"nasc_schedule": 1, "kernels": {"relu": []}})");
  CHECK(byRelu.schedule().kernels[0].node == "relu");
  CHECK(byRelu.schedule().kernels[0].steps.empty());
  CHECK_THROWS_WITH(
      lower(R"({"nasc_schedule": 1, "kernels": {"conv9": []}})"),
      "s.json: node 'conv9' is implemented by no kernel of model 'tracenet' (see "
      "`nasc inspect MODEL --stage schedule`; the parts that seq1, seq2 and seq3 make of "
      "a node are scheduled under their own names)");
  CHECK_THROWS_WITH(lower(R"({"nasc_schedule": 1, "kernels": {"conv": [], "relu": []}})"),
                    "s.json: nodes 'conv' and 'relu' name the same kernel 'conv'");
  CHECK_THROWS_AS(lower(wrapSteps(R"({"primitive": "interchange", "statement": "S1", )"
                                  R"("order": [0, 1, 2]})")),
                  compiler::StaleScheduleStep);
}
