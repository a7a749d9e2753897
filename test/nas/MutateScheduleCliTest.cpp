// Neural steps between `nasc mutate` and schedule files: --schedule-out writes the steps with the
// gate's record, `nasc mutate --schedule` turns them back into the same architecture, and
// `nasc run --schedule` on the original model computes what the mutated ONNX (sliced weights)
// computes.
#include "ir/Npy.h"
#include "test/support/CliRun.h"
#include "test/support/Compare.h"
#include "test/support/RandomTensor.h"
#include "test/support/SmallCnn.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <map>

namespace {

using nasc::test::runNasc;

std::string built(const std::string &name) { return std::string(NASC_BINARY_DIR) + "/" + name; }

std::map<std::string, std::string> metadataOf(const std::string &path) {
  onnx::ModelProto proto;
  std::ifstream in(path, std::ios::binary);
  REQUIRE(proto.ParseFromIstream(&in));
  std::map<std::string, std::string> metadata;
  for (const auto &entry : proto.metadata_props())
    metadata[entry.key()] = entry.value();
  return metadata;
}

nlohmann::json readJson(const std::string &path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

} // namespace

TEST_CASE("nasc mutate --schedule-out writes the neural steps with the gate's record, and "
          "schedules replay them",
          "[nas][cli][schedule]") {
  const std::string model = nasc::test::writeSmallCnn("mutate_schedule_base", {16, 16, 1, 16, 10});
  const std::string mutated = built("mutate_schedule.onnx"), trace = built("mutate_schedule.json");
  const auto m =
      runNasc("mutate " + model + " --apply 'c1:seq3(4)' --apply 'c2:group(4)' -o " + mutated +
              " --weights slice --check-capacity --policy synflow "
              "--batch 16 --seeds 1 --steps 3 --schedule-out " +
              trace);
  INFO(m.output);
  REQUIRE((m.status == 0 || m.status == 3));

  const nlohmann::json schedule = readJson(trace);
  CHECK(schedule["kernels"]["c1"] == nlohmann::json::parse(R"([{"primitive":"seq3","P":4}])"));
  const nlohmann::json &group = schedule["kernels"]["c2"].at(0);
  CHECK(group["primitive"] == "group");
  CHECK(group["G"] == 4);
  CHECK(group["capacity"] == nlohmann::json::parse(metadataOf(mutated).at("nasc.capacity")));
  CHECK(group["capacity"]["legal"] == (m.status == 0));

  const std::string again = built("mutate_schedule_again.onnx");
  const auto replay =
      runNasc("mutate " + model + " --schedule " + trace + " --weights slice -o " + again);
  INFO(replay.output);
  REQUIRE(replay.status == 0);
  CHECK(metadataOf(again).at("nasc.transformations") == "c1:seq3(4); c2:group(4)");

  const std::string x = built("mutate_schedule_x.npy"), fromTrace = built("mutate_schedule_y1.npy"),
                    fromOnnx = built("mutate_schedule_y2.npy");
  nasc::ir::writeNpy(x, nasc::test::normalTensor({1, 1, 16, 16}, 3));
  const auto run1 =
      runNasc("run " + model + " --schedule " + trace + " -i " + x + " -o " + fromTrace);
  const auto run2 = runNasc("run " + mutated + " -i " + x + " -o " + fromOnnx);
  INFO(run1.output << run2.output);
  REQUIRE(run1.status == 0);
  REQUIRE(run2.status == 0);
  CHECK(nasc::test::relativeError(nasc::ir::readNpy(fromTrace).f, nasc::ir::readNpy(fromOnnx).f) <=
        1e-5);

  const auto inspect = runNasc("inspect " + model + " --schedule " + trace + " --stage schedule");
  CHECK_THAT(inspect.output, Catch::Contains(R"("c1": [)") &&
                                 Catch::Contains(R"("c1_strip3": [)") &&
                                 Catch::Contains(R"({"primitive":"group","G":4,"capacity":{)"));
}

TEST_CASE("nasc mutate needs a step", "[nas][cli][schedule]") {
  const std::string model = nasc::test::writeSmallCnn("mutate_schedule_base", {16, 16, 1, 16, 10});
  const auto r = runNasc("mutate " + model + " -o " + built("mutate_nothing.onnx"));
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Catch::Contains("no neural step given"));
}
