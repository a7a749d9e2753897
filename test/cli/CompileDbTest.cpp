// `nasc compile/inspect --db DB` as a user runs them: each Conv gets the schedule choices its
// workload's fastest record holds, exactly as a schedule file with that default_trace step
// gives them; a database without records changes nothing; a missing one is an error.
#include "compiler/search/ConvWorkload.h"
#include "compiler/search/LayerTimes.h"
#include "compiler/search/TuningDb.h"
#include "ir/import/ModelLoader.h"
#include "test/support/CliRun.h"
#include "test/support/FreshPath.h"
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

#include <fstream>

using namespace nasc;
using nasc::test::runNasc;

TEST_CASE("nasc inspect --db schedules a Conv as its fastest record's choices say",
          "[cli][db][schedule]") {
  const std::string model =
      test::writeModel("compile_db", test::convReluNet("compile_db", 1, 16, 8, 28, 16, 3)).string();
  const std::string path = test::freshPath("cli", "compile_db.db");
  const std::string schedulePath = test::freshPath("cli", "compile_db_schedule.json");
  const std::string target = search::targetKey(codegen::resolveTarget());
  const search::ConvWorkload workload = search::convWorkloads(ir::loadModel(model)).at(0);
  {
    search::TuningDb db(path);
    db.add({search::workloadRecordKey(workload, {}), target, search::nascVersion(), "t", 0,
            "measured", 2e-3, "{}"});
  }
  const test::CliResult byDefault = runNasc("inspect " + model + " --stage schedule");
  REQUIRE(byDefault.status == 0);
  const test::CliResult onlyDefault =
      runNasc("inspect " + model + " --stage schedule --db " + path);
  REQUIRE(onlyDefault.status == 0);
  CHECK(onlyDefault.output == byDefault.output);

  {
    search::TuningDb db(path);
    db.add({search::workloadRecordKey(workload, {0, 1, 4}), target, search::nascVersion(), "t", 1,
            "measured", 1e-3, "{}"});
  }
  std::ofstream(schedulePath) << R"({"nasc_schedule": 1, "kernels": {"conv": [
      {"primitive": "default_trace", "jam": 1, "unroll": 4}]}})";
  const test::CliResult tuned = runNasc("inspect " + model + " --stage schedule --db " + path);
  const test::CliResult written =
      runNasc("inspect " + model + " --stage schedule --schedule " + schedulePath);
  REQUIRE(tuned.status == 0);
  CHECK(tuned.output == written.output);
  CHECK(tuned.output != byDefault.output);

  const test::CliResult compiled = runNasc("compile " + model + " --db " + path + " -o " +
                                           test::freshPath("cli", "compile_db.so"));
  CHECK(compiled.status == 0);
  const test::CliResult missing = runNasc("compile " + model + " --db /nonexistent.db -o x.so");
  CHECK(missing.status != 0);
  CHECK(missing.output.find("/nonexistent.db") != std::string::npos);
}
