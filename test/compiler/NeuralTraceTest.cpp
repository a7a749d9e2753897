// Neural steps in schedule traces (compiler/nas/NeuralTrace.h): parsed and printed with their
// capacity record, applied to the graph before lowering and followed by the default trace or by
// schedule steps, replayed from the printed schedule, and compiled results checked against the
// Eigen reference executor on the transformed graph; misplaced and refused steps are named.
#include "compiler/nas/NeuralTrace.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

using namespace nasc;

namespace {

/// x [2, 8, 8, 8] -> Conv (8 -> 8, 3x3, pad 1) -> Relu -> y.
const std::string kNet = test::convReluNet("neuralnet", 2, 8, 8, 8, 8, 21);

compiler::ModelSchedule parse(const std::string &kernels) {
  return compiler::scheduleFromJson(R"({"nasc_schedule": 1, "kernels": {)" + kernels + "}}",
                                    "n.json");
}

std::string parseError(const std::string &kernels) {
  try {
    parse(kernels);
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

std::string lowerError(const std::string &path, const std::string &kernels) {
  try {
    compiler::lowerToPolyhedral(ir::loadModel(path), parse(kernels));
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

/// Relative error of `model` (JIT) against the reference executor on `graph`, for one input.
double errorAgainst(compiler::PolyhedralModel model, const ir::Graph &graph) {
  const ir::Tensor x = test::normalTensor({2, 8, 8, 8}, 4);
  const ir::Tensor expected = runtime::runReference(graph, {{"x", x}}).at("y");
  const std::vector<ir::Tensor> got = compiler::CompiledModel::compile(std::move(model))->run({x});
  REQUIRE(got.at(0).shape == expected.shape);
  return test::relativeError(got[0].f, expected.f);
}

const char *kGroup = R"({"primitive":"group","G":2,"capacity":{"legal":true,"policy":"synflow"}})";

} // namespace

TEST_CASE("neural steps parse without a statement and print with their capacity record",
          "[schedule-trace][neural]") {
  const compiler::ModelSchedule schedule =
      parse(std::string(R"("conv": [)") + kGroup +
            R"(, {"primitive":"seq2","u":2,"G":2}, {"primitive":"seq1","groups":[1,2]}])");
  const std::vector<compiler::ScheduleStep> &steps = schedule.kernels.at(0).steps;
  REQUIRE(steps.size() == 3);
  CHECK(steps[0].statements.empty());
  CHECK(steps[0].scalar("G") == 2);
  CHECK(steps[0].capacity == R"({"legal":true,"policy":"synflow"})");
  CHECK(steps[1].toString() == "seq2(u=2, G=2)");
  CHECK(nas::toNeuralStep("conv", steps[1]).toString() == "conv:seq2(2, 2)");
  CHECK(nas::toNeuralStep("conv", steps[2]).toString() == "conv:seq1(1, 2)");
  CHECK(nas::toScheduleStep(nas::toNeuralStep("conv", steps[2])).list("groups") ==
        std::vector<int>{1, 2});
  const std::string printed = compiler::scheduleToJson(schedule);
  CHECK_THAT(printed, Catch::Contains(std::string("\n      ") + kGroup + ",\n"));
  CHECK(compiler::scheduleToJson(compiler::scheduleFromJson(printed, "p.json")) == printed);
}

TEST_CASE("malformed neural steps are refused naming the file, node, step and field",
          "[schedule-trace][neural]") {
  CHECK(parseError(R"("conv": [{"primitive":"group","statement":"S1","G":2}])") ==
        "n.json: node 'conv' step 1 (group): unknown field 'statement'");
  CHECK(parseError(R"("conv": [{"primitive":"bottleneck"}])") ==
        "n.json: node 'conv' step 1 (bottleneck): missing argument 'B'");
  CHECK(parseError(R"("conv": [{"primitive":"depthwise","capacity":true}])") ==
        "n.json: node 'conv' step 1 (depthwise): field 'capacity' must be an object (the "
        "capacity gate's record)");
}

TEST_CASE("a trace of neural steps changes the node, then the default trace schedules it",
          "[schedule-trace][neural][jit]") {
  const std::string path = test::writeModel("neuralnet", kNet).string();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(
      ir::loadModel(path), parse(std::string(R"("conv": [)") + kGroup + "]"));
  const compiler::KernelSchedule &trace = model.kernels.at(0).trace;
  CHECK(trace.node == "conv");
  REQUIRE(trace.steps.size() > 1);
  CHECK(trace.steps[0].primitive == "group");
  CHECK(trace.steps[0].capacity == R"({"legal":true,"policy":"synflow"})");
  CHECK(model.graph.nodes.at(0).getInt("group", 1) == 2);
  const ir::Graph grouped = nas::applyNeuralStep(ir::loadModel(path), {"conv", "group", {2}});
  const std::string printed = compiler::scheduleToJson(model.schedule());
  compiler::PolyhedralModel replay = compiler::lowerToPolyhedral(
      ir::loadModel(path), compiler::scheduleFromJson(printed, "p.json"));
  CHECK(compiler::scheduleToJson(replay.schedule()) == printed);
  CHECK(compiler::generateCode(model, {}).llvmIr() == compiler::generateCode(replay, {}).llvmIr());
  CHECK(errorAgainst(std::move(model), grouped) <= 1e-5);
}

TEST_CASE("schedule steps follow the neural steps of their node in the same trace",
          "[schedule-trace][neural][jit]") {
  const std::string path = test::writeModel("neuralnet", kNet).string();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(
      ir::loadModel(path), parse(R"("conv": [{"primitive":"spatial_bottleneck","S":2},
                        {"primitive":"interchange","statement":"S1","order":[0,1,2,4,5,6,3]},
                        {"primitive":"parallelize","statement":"S1","member":1}])"));
  REQUIRE(model.schedule().kernels.at(0).steps.size() == 3);
  const ir::Graph strided =
      nas::applyNeuralStep(ir::loadModel(path), {"conv", "spatial_bottleneck", {2}});
  CHECK(strided.shapeOf(strided.nodes.at(0).outputs.at(0)) == ir::Shape{2, 8, 4, 4});
  CHECK(errorAgainst(std::move(model), strided) <= 1e-5);
}

TEST_CASE("a node replaced by seq1 keeps its neural trace; its parts are scheduled by name",
          "[schedule-trace][neural][jit]") {
  const std::string path = test::writeModel("neuralnet", kNet).string();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(
      ir::loadModel(path),
      parse(R"("conv": [{"primitive":"seq1","groups":[1,2]}], "conv_part1": [])"));
  REQUIRE(model.schedule().kernels.size() >= 3);
  CHECK(model.schedule().kernels[0].node == "conv");
  CHECK(model.schedule().kernels[0].steps.size() == 1);
  std::vector<std::string> nodes;
  for (const compiler::KernelSchedule &k : model.schedule().kernels)
    nodes.push_back(k.node);
  CHECK(std::count(nodes.begin(), nodes.end(), "conv_part0") == 1);
  CHECK(std::count(nodes.begin(), nodes.end(), "conv_part1") == 1);
  const std::string printed = compiler::scheduleToJson(model.schedule());
  compiler::PolyhedralModel replay = compiler::lowerToPolyhedral(
      ir::loadModel(path), compiler::scheduleFromJson(printed, "p.json"));
  CHECK(compiler::scheduleToJson(replay.schedule()) == printed);
  const ir::Graph parts = nas::applyNeuralStep(ir::loadModel(path), {"conv", "seq1", {1, 2}});
  CHECK(errorAgainst(std::move(model), parts) <= 1e-5);
}

TEST_CASE("misplaced, refused and orphaned neural steps are errors naming the step",
          "[schedule-trace][neural]") {
  const std::string path = test::writeModel("neuralnet", kNet).string();
  CHECK(lowerError(path, R"("conv": [{"primitive":"interchange","statement":"S1",
                                      "order":[0,1,2,4,5,6,3]}, {"primitive":"group","G":2}])") ==
        "n.json: node 'conv' step 2 group(G=2) does not apply: a neural step must come before "
        "the schedule steps of its node");
  CHECK_THAT(lowerError(path, R"("conv": [{"primitive":"group","G":3}])"),
             Catch::StartsWith("n.json: node 'conv' step 1 group(G=3) does not apply: ") &&
                 Catch::Contains("does not divide the input channels C = 8"));
  CHECK_THAT(lowerError(path, R"("conv": [{"primitive":"seq1","groups":[1,2]},
                                         {"primitive":"parallelize","statement":"S1","member":1}])"),
             Catch::Contains("node 'conv' is implemented by no kernel") &&
                 Catch::Contains("seq1, seq2 and seq3"));
}
