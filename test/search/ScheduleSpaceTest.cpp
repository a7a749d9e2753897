// The schedule part of nasc search (compiler/search/ScheduleSpace.h, LayerTimes.h): the choices
// it tries, that each computes what the reference executor computes, which of them are
// distinct, and the tuning database's fastest choices applied to a model's Convs.
#include "compiler/search/ScheduleSpace.h"
#include "compiler/Pipeline.h"
#include "compiler/search/ConvWorkload.h"
#include "compiler/search/LayerTimes.h"
#include "ir/import/ModelLoader.h"
#include "test/support/FreshPath.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>

using namespace nasc;

namespace {

/// convReluNet "choices": x [1, 16, 8, 28] -> Conv 3x3 (16 output channels) -> Relu.
std::string denseNet() { return test::convReluNet("choices", 1, 16, 8, 28, 16, 21); }

/// x [1, 16, 8, 16] -> Conv 3x3, group 2 (16 output channels), pads 1 -> y.
std::string groupedNet() {
  return R"({"name": "choices_grouped", "inputs": [{"name": "x", "shape": [1, 16, 8, 16]}],
  "outputs": ["y"],
  "nodes": [{"name": "conv", "op_type": "Conv", "inputs": ["x", "w"], "outputs": ["y"],
             "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "group": 2}}],
  "initializers": [{"name": "w", "shape": [16, 8, 3, 3], "init": "he_normal", "seed": 5}]})";
}

compiler::ModelSchedule choicesSchedule(const compiler::TraceChoices &choices) {
  return search::withChoices({"test", {}}, {{"conv", choices}});
}

} // namespace

TEST_CASE("the search's schedule choices: block, jam, unroll and order, the default first",
          "[search][schedule]") {
  const std::vector<compiler::TraceChoices> avx2 = search::traceChoiceSpace({8, 16});
  REQUIRE(avx2.size() == 27); // no block of 4 lanes: jam {0, 1, 2} x unroll {0, 4, 8} x order
  CHECK(avx2.front() == compiler::TraceChoices{});
  CHECK(avx2[1] == compiler::TraceChoices{0, 0, 0, 1});
  CHECK(avx2.back() == compiler::TraceChoices{0, 2, 8, 2});
  const std::vector<compiler::TraceChoices> avx512 = search::traceChoiceSpace({16, 32});
  REQUIRE(avx512.size() == 54); // block {0, 8}
  CHECK(avx512[27] == compiler::TraceChoices{8, 0, 0, 0});
}

TEST_CASE("every schedule choice of the search computes the reference executor's output",
          "[search][schedule]") {
  for (const auto &[name, json] :
       {std::pair{"choices", denseNet()}, std::pair{"choices_grouped", groupedNet()}}) {
    const std::string path = test::writeModel(name, json).string();
    for (const codegen::VectorUnit unit : {codegen::VectorUnit{8, 16}, codegen::VectorUnit{16, 32}})
      for (const compiler::TraceChoices &choices : search::traceChoiceSpace(unit)) {
        INFO(name << ", lanes " << unit.lanes << ", " << compiler::choicesText(choices));
        CHECK(test::referenceError(
                  compiler::lowerToPolyhedral(ir::loadModel(path), choicesSchedule(choices), unit),
                  path) <= 1e-5);
      }
  }
}

TEST_CASE("distinct schedule choices compile to distinct schedules, the others to one of them",
          "[search][schedule]") {
  const std::string path = test::writeModel("choices", denseNet()).string();
  const search::ConvWorkload workload = search::convWorkloads(ir::loadModel(path)).at(0);
  const codegen::VectorUnit unit{8, 16};
  auto scheduleOf = [&](const compiler::TraceChoices &choices) {
    return compiler::scheduleToJson(
        compiler::lowerToPolyhedral(ir::loadModel(path), choicesSchedule(choices), unit)
            .schedule());
  };
  std::set<std::string> distinct;
  const std::vector<compiler::TraceChoices> chosen = search::distinctChoices(workload, unit);
  CHECK(chosen.front() == compiler::TraceChoices{});
  for (const compiler::TraceChoices &choices : chosen)
    CHECK(distinct.insert(scheduleOf(choices)).second);
  for (const compiler::TraceChoices &choices : search::traceChoiceSpace(unit)) {
    INFO(compiler::choicesText(choices));
    CHECK(distinct.count(scheduleOf(choices)) == 1);
  }
  CHECK(chosen.size() > 1);
}

TEST_CASE("nasc compile --db's choices: the fastest record of each Conv's workload",
          "[search][schedule][db]") {
  const std::string path = test::writeModel("choices", denseNet()).string();
  const ir::Graph graph = ir::loadModel(path);
  const search::ConvWorkload workload = search::convWorkloads(graph).at(0);
  const codegen::Target target = codegen::resolveTarget();
  search::TuningDb db(test::freshPath("search", "choices.db"));
  auto add = [&](const compiler::TraceChoices &choices, double seconds, int64_t index,
                 const std::string &targetKey) {
    db.add({search::workloadRecordKey(workload, choices), targetKey, search::nascVersion(), "test",
            index, "measured", seconds, "{}"});
  };
  CHECK(search::tunedChoices(graph, db, target).empty());
  add({}, 2e-3, 0, search::targetKey(target));
  add({0, 1, 4}, 1e-3, 1, search::targetKey(target));
  add({0, 2, 0}, 0.5e-3, 2, "another-target");
  add({0, 0, 4}, 1.5e-3, 3, search::targetKey(target));
  const search::NodeChoices choices = search::tunedChoices(graph, db, target);
  REQUIRE(choices.size() == 1);
  CHECK(choices.at("conv") == compiler::TraceChoices{0, 1, 4});
  CHECK(search::workloadRecordKey(workload, {0, 1, 4}) ==
        workload.key + " schedule jam=1 unroll=4");

  // withChoices: appended after neural steps, a new entry for a node without one, and nothing
  // for a node its schedule already schedules step by step.
  const compiler::ScheduleStep group{"group", {}, {{"groups", {2}}}};
  const compiler::ScheduleStep split{
      "split", {"S1"}, {{"member", {0}}, {"factor", {2}}, {"band", {0}}}};
  const compiler::ModelSchedule merged =
      search::withChoices({"s", {{"a", {group}}, {"b", {split}}}},
                          {{"a", {0, 1, 0}}, {"b", {0, 1, 0}}, {"c", {0, 0, 4}}, {"d", {}}});
  REQUIRE(merged.kernels.size() == 3);
  CHECK(merged.kernels[0].steps.size() == 2);
  CHECK(compiler::traceChoices(merged.kernels[0], "s") == compiler::TraceChoices{0, 1, 0});
  CHECK(merged.kernels[1].steps.size() == 1);
  CHECK(merged.kernels[2].node == "c");
  CHECK(compiler::traceChoices(merged.kernels[2], "s") == compiler::TraceChoices{0, 0, 4});
}

TEST_CASE("LayerTimes::tune measures every distinct choice with the default's own order, then "
          "the fastest of them with the other order",
          "[search][schedule][db]") {
  // x [1, 16, 8, 28] -> Conv 3x3 to 64 channels: 4 or 8 channel blocks, so the order matters.
  const std::string path =
      test::writeModel("tune", test::convReluNet("tune", 1, 16, 8, 28, 64, 41)).string();
  const search::ConvWorkload workload = search::convWorkloads(ir::loadModel(path)).at(0);
  search::SearchOptions options;
  options.measure.repeat = 3;
  options.measure.minSeconds = 0;
  const codegen::VectorUnit unit = options.measure.target.vector;
  search::TuningDb db(test::freshPath("search", "tune.db"));
  search::LayerTimes times(db, "tune", options);
  const search::TunedLayer tuned = times.tune(workload);

  std::map<std::string, double> recorded; // record key -> seconds
  for (const search::TuningRecord &record : db.searchRecords("tune#layers"))
    recorded[record.workload] = record.seconds;
  std::vector<compiler::TraceChoices> ownOrder;
  for (const compiler::TraceChoices &choices : search::traceChoiceSpace(unit))
    if (choices.order == 0)
      ownOrder.push_back(choices);
  std::set<std::string> expected;
  std::optional<std::pair<double, compiler::TraceChoices>> firstRound;
  for (const compiler::TraceChoices &choices : search::distinctChoices(workload, unit, ownOrder)) {
    const std::string key = search::workloadRecordKey(workload, choices);
    REQUIRE(recorded.count(key) == 1);
    expected.insert(key);
    if (!firstRound || recorded[key] < firstRound->first)
      firstRound = {recorded[key], choices};
  }
  REQUIRE(firstRound);
  for (const compiler::TraceChoices &choices :
       search::distinctChoices(workload, unit, search::withEachOrder(firstRound->second)))
    expected.insert(search::workloadRecordKey(workload, choices));
  std::set<std::string> keys;
  for (const auto &[key, seconds] : recorded)
    keys.insert(key);
  CHECK(keys == expected);
  CHECK(expected.size() < search::distinctChoices(workload, unit).size());
  auto fastest = std::min_element(recorded.begin(), recorded.end(),
                                  [](const auto &a, const auto &b) { return a.second < b.second; });
  CHECK(tuned.seconds == fastest->second);
  CHECK(search::workloadRecordKey(workload, tuned.choices) == fastest->first);
}

TEST_CASE("after its tune deadline LayerTimes::tune measures only the default choice and picks "
          "among the recorded ones",
          "[search][schedule][db]") {
  const std::string path =
      test::writeModel("tune_deadline", test::convReluNet("tune_deadline", 1, 16, 8, 28, 64, 43))
          .string();
  const search::ConvWorkload workload = search::convWorkloads(ir::loadModel(path)).at(0);
  search::SearchOptions options;
  options.measure.repeat = 3;
  options.measure.minSeconds = 0;
  search::TuningDb db(test::freshPath("search", "tune_deadline.db"));
  const auto past = std::chrono::steady_clock::now();

  search::LayerTimes late(db, "late", options);
  late.setTuneDeadline(past);
  const search::TunedLayer untuned = late.tune(workload);
  CHECK(late.measured() == 1);
  CHECK(untuned.choices == compiler::TraceChoices{});
  CHECK(db.searchRecords("late#layers").size() == 1);

  search::LayerTimes timely(db, "timely", options);
  const search::TunedLayer tuned = timely.tune(workload);
  CHECK(timely.measured() > 1);

  // A late tune over the records of the timely one: nothing measured, the same fastest choice.
  search::LayerTimes replay(db, "replay", options);
  replay.setTuneDeadline(past);
  const search::TunedLayer replayed = replay.tune(workload);
  CHECK(replay.measured() == 0);
  CHECK(replayed.choices == tuned.choices);
  CHECK(replayed.seconds == std::min(tuned.seconds, untuned.seconds));
}
