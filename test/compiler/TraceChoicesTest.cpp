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
  CHECK(compiler::traceChoices(schedule.kernels[0], "s.json") ==
        compiler::TraceChoices{0, 1, 4, 0});
  CHECK(compiler::scheduleToJson(schedule).find(
            R"({"primitive":"default_trace","block":0,"jam":1,"unroll":4,"order":0})") !=
        std::string::npos);
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
  const compiler::ScheduleStep split{
      "split", {"S1"}, {{"member", {0}}, {"factor", {2}}, {"band", {0}}}};
  CHECK(compiler::scheduledByDefault({"conv", {group, choices}}, "s.json"));
  CHECK(compiler::scheduledByDefault({"conv", {choices}}, "s.json"));
  CHECK_FALSE(compiler::scheduledByDefault({"conv", {split}}, "s.json"));
  CHECK_THROWS_WITH(compiler::scheduledByDefault({"conv", {choices, group}}, "s.json"),
                    Catch::Contains("s.json: node 'conv': a default_trace step must be the "
                                    "trace's last step"));
  CHECK_THROWS_WITH(compiler::scheduledByDefault({"conv", {split, choices}}, "s.json"),
                    Catch::Contains("after neural steps only"));
  CHECK_THROWS_WITH(
      compiler::traceChoices({"conv", {compiler::defaultTraceStep({0, -1, 0})}}, "s.json"),
      Catch::Contains("a choice must be 0"));
  CHECK_THROWS_WITH(
      compiler::traceChoices({"conv", {compiler::defaultTraceStep({0, 0, 0, 3})}}, "s.json"),
      Catch::Contains("order must be 0, 1 (output channels outside the rows) or 2"));
}

TEST_CASE("the pipeline gives a kernel with a default_trace step the default trace of its "
          "choices and drops the step",
          "[trace-choices]") {
  const std::string path = test::writeModel("choices", denseNet()).string();
  const codegen::VectorUnit avx2{8, 16};
  const compiler::PolyhedralModel chosen =
      compiler::lowerToPolyhedral(ir::loadModel(path), choicesSchedule({0, 1, 4}), avx2);
  const std::string text = compiler::scheduleToJson(chosen.schedule());
  CHECK(text.find("default_trace") == std::string::npos);
  // The blocked conv's ow (28 columns) split by the register tile's 4 (jam 1, unroll 4); the
  // default trace's own tile is 2 x 4 (k0 split by 2).
  CHECK(text.find(R"("primitive":"split","statement":"S1","member":3,"factor":4)") !=
        std::string::npos);
  const compiler::PolyhedralModel byDefault =
      compiler::lowerToPolyhedral(ir::loadModel(path), {}, avx2);
  CHECK(compiler::scheduleToJson(byDefault.schedule()) != text);
  CHECK(test::referenceError(
            compiler::lowerToPolyhedral(ir::loadModel(path), choicesSchedule({0, 1, 4}), avx2),
            path) <= 1e-5);
}

namespace {

/// The interchange of the blocked conv S1 (n, k0, oh, ow, k1, c0, r, s, c1) after the AVX2
/// register tile's splits of k0 by 2 and ow by 4, i.e. of (n, k0o, k0i, oh, owo, owi, k1, c0,
/// r, s, c1): the outer outputs, the reductions, the tile (k0i, owi, k1); `rowsOutside` puts oh
/// before k0o.
std::string tiledInterchange(bool rowsOutside) {
  return std::string(R"("primitive":"interchange","statement":"S1","order":)") +
         (rowsOutside ? "[0,3,1,4,7,8,9,10,2,5,6]" : "[0,1,3,4,7,8,9,10,2,5,6]");
}

/// The schedule text of the model at `path` compiled for AVX2 with `choices` for node "conv".
std::string avx2Schedule(const std::string &path, const compiler::TraceChoices &choices) {
  return compiler::scheduleToJson(
      compiler::lowerToPolyhedral(ir::loadModel(path), choicesSchedule(choices), {8, 16})
          .schedule());
}

} // namespace

TEST_CASE("a one-vector register tile puts the output rows outside its output channels when the "
          "weights streamed per row move fewer bytes beyond the cache than the input streamed per "
          "channel block, and order chooses",
          "[trace-choices]") {
  // 1x1 conv 256 -> 64 at 28x28 on AVX2, blocked by 8, 2 x 4 tile (4 blocks of 2 vectors): the
  // input, 256 * 28 * 28 * 4 = 802816 bytes (> 512 KiB), streamed 4 times moves 3 * 802816
  // bytes; the weights, 256 * 64 * 4 = 65536 bytes, stay in cache: rows outside.
  const std::string pointwise =
      test::writeModel("order_1x1", test::convReluNet("order_1x1", 1, 256, 28, 28, 64, 31, 1))
          .string();
  CHECK(avx2Schedule(pointwise, {}).find(tiledInterchange(true)) != std::string::npos);
  // Channels outside by choice: a 1x1 conv whose 2 blocks' weights, 2 * 256 * 8 * 4 = 16384
  // bytes, exceed kL1WeightBytes also gets c0 (member 7 after the tile's splits, 32 blocks) in
  // chunks of 8, their loop right after k0o: (n, k0o, c0o, oh, owo, c0i, r, s, c1, k0i, owi, k1).
  const compiler::TraceChoices channelsOutside{0, 0, 0, compiler::kChannelsOutside};
  const std::string chunked = avx2Schedule(pointwise, channelsOutside);
  CHECK(chunked.find(R"("primitive":"split","statement":"S1","member":7,"factor":8)") !=
        std::string::npos);
  CHECK(chunked.find(R"("primitive":"interchange","statement":"S1","order":)"
                     "[0,1,7,3,4,8,9,10,11,2,5,6]") != std::string::npos);
  // 3x3 conv 16 -> 32 at 8x28: the padded input's 2 * 10 * 30 * 8 = 4800 elements and the
  // weights' 4 * 2 * 3 * 3 * 8 * 8 = 4608 over 4 / 2 = 2 blocks, 4 * (4800 + 2304) bytes, fit.
  const std::string dense =
      test::writeModel("order_3x3", test::convReluNet("order_3x3", 1, 16, 8, 28, 32, 33)).string();
  CHECK(avx2Schedule(dense, {}).find(tiledInterchange(false)) != std::string::npos);
  const compiler::TraceChoices rowsOutside{0, 0, 0, compiler::kRowsOutside};
  CHECK(avx2Schedule(dense, rowsOutside).find(tiledInterchange(true)) != std::string::npos);
  // 3x3 conv 256 -> 256 at 28x28: the padded input, 256 * 30 * 30 * 4 = 921600 bytes, streamed
  // 32 / 2 = 16 times moves 15 * 921600 bytes, less than the weights, 256 * 256 * 9 * 4 =
  // 2359296 bytes, streamed 28 times (27 * 2359296): channels outside.
  CHECK(avx2Schedule(
            test::writeModel("order_256", test::convReluNet("order_256", 1, 256, 28, 28, 256, 39))
                .string(),
            {})
            .find(tiledInterchange(false)) != std::string::npos);
  // 1x1 convs to 16 channels at 7x7 (one vector of 2 rows x 7 columns: the 7 columns alone
  // leave 7 accumulators; k0 = 2 blocks; S1 (n, k0, oh0, oh1, ow, k1, c0, r, s, c1) after the
  // split of oh by 2, its tile oh1, ow, k1 innermost), the weights in
  // cache: with 2048 input channels the input and one block's weights, 4 * (2048 * 49 + 2048 *
  // 16 / 2) = 466944 bytes, fit too: channels outside; with 2560, 4 * (2560 * 49 + 2560 * 16 /
  // 2) = 583680 bytes (the input alone 501760) do not: rows outside. With channels outside, one
  // block's 2048 * 8 * 4 bytes of weights exceed kL1WeightBytes: c0 (member 6, 256 blocks) in
  // chunks of 8 right after k0: (n, k0, c0o, oh0, c0i, r, s, c1, oh1, ow, k1).
  const std::string wide =
      R"("primitive":"interchange","statement":"S1","order":[0,1,6,2,7,8,9,10,3,4,5])";
  const std::string wideRows =
      R"("primitive":"interchange","statement":"S1","order":[0,2,1,6,7,8,9,3,4,5])";
  CHECK(avx2Schedule(test::writeModel("order_2048",
                                      test::convReluNet("order_2048", 1, 2048, 7, 7, 16, 35, 1))
                         .string(),
                     {})
            .find(wide) != std::string::npos);
  CHECK(avx2Schedule(test::writeModel("order_2560",
                                      test::convReluNet("order_2560", 1, 2560, 7, 7, 16, 37, 1))
                         .string(),
                     {})
            .find(wideRows) != std::string::npos);
  for (const auto &[path, choices] :
       {std::pair{pointwise, compiler::TraceChoices{}}, std::pair{pointwise, channelsOutside},
        std::pair{dense, rowsOutside}})
    CHECK(test::referenceError(
              compiler::lowerToPolyhedral(ir::loadModel(path), choicesSchedule(choices), {8, 16}),
              path) <= 1e-5);
}

TEST_CASE("a one-vector register tile of a whole 7-column row on AVX2 takes two output rows, the "
          "odd last row alone, and equals the reference executor",
          "[trace-choices]") {
  // 3x3 conv 32 -> 32 at 7x7, blocked by 8 (k0 = 4 blocks): 2 x r cannot reach 8 accumulators
  // (r divides 7 and 2r <= (16 - 2 - 1), so r = 1), one vector of the whole row holds 7, so the
  // tile takes floor(14 / 7) = 2 output rows: oh (member 2 of S1 after pad_input and
  // block_channels: n, k0, oh, ow, k1, c0, r, s, c1) split by 2 into 3 full tiles and row 6
  // alone, the 2 rows and 7 columns unrolled.
  const std::string path =
      test::writeModel("rows_7", test::convReluNet("rows_7", 1, 32, 7, 7, 32, 41)).string();
  const std::string schedule = avx2Schedule(path, {});
  CHECK(schedule.find(R"({"primitive":"split","statement":"S1","member":2,"factor":2,"band":0})") !=
        std::string::npos);
  CHECK(
      schedule.find(R"({"primitive":"unroll","statement":"S1","member":7,"factor":2,"band":0})") !=
      std::string::npos);
  CHECK(
      schedule.find(R"({"primitive":"unroll","statement":"S1","member":8,"factor":7,"band":0})") !=
      std::string::npos);
  for (int threads : {1, 2})
    CHECK(test::referenceError(compiler::lowerToPolyhedral(ir::loadModel(path), {}, {8, 16}), path,
                               threads) <= 1e-5);
}
