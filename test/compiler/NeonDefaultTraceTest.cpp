// The default trace for aarch64-linux-gnu: NEON's vector unit (4 float lanes, 32 registers)
// sizes the channel blocks (test/aarch64 checks the library's code is 4-lane fmla).
#include "compiler/Pipeline.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

using namespace nasc;

TEST_CASE("the vector unit of aarch64-linux-gnu is NEON's: 4 float lanes, 32 registers",
          "[aarch64][default-schedule]") {
  const codegen::VectorUnit unit = codegen::resolveTarget("aarch64-linux-gnu").vector;
  CHECK(unit.lanes == 4);
  CHECK(unit.registers == 32);
}

TEST_CASE("the default trace for aarch64-linux-gnu blocks a dense conv NCHW[4]c",
          "[aarch64][default-schedule]") {
  const std::string path =
      test::writeModel("neon_conv", test::convReluNet("neon_conv", 1, 8, 6, 8, 16, 3)).string();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(
      ir::loadModel(path), {}, codegen::resolveTarget("aarch64-linux-gnu").vector);
  const std::string trace = compiler::scheduleToJson(model.schedule());
  INFO(trace);
  CHECK(trace.find(R"("primitive":"block_channels","statement":"S1","block":4,)") !=
        std::string::npos);
}
