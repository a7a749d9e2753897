// `nasc search` as a user runs it: the outputs and the report table; a search killed with SIGKILL
// and run again with --resume keeps every record and draws what an uninterrupted run draws; a
// malformed --budget is one error line.
#include "compiler/search/TuningDb.h"
#include "ir/Error.h"
#include "test/support/CliRun.h"
#include "test/support/FreshPath.h"
#include "test/support/SmallCnn.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using nasc::search::TuningDb;
using nasc::test::runNasc;

namespace {

/// The arguments of a small search: 8 candidates, every one legal (synflow tolerance 1e9, no
/// weight floor).
std::string searchArgs(const std::string &model, const std::string &out) {
  return "search " + model +
         " --budget 8c --seed 5 --tolerance-per-layer 0 --tolerance 1e9 --weight-floor 0 --out " +
         out;
}

/// index -> "status steps" of the candidate records in `db` (not the layers').
std::map<int64_t, std::string> candidates(const std::string &db) {
  std::map<int64_t, std::string> found;
  for (const nasc::search::TuningRecord &r : TuningDb(db, TuningDb::Access::ReadOnly).all())
    if (r.workload.rfind("network ", 0) == 0) {
      CHECK(found.count(r.index) == 0);
      found[r.index] = r.status + " " + nlohmann::json::parse(r.detail)["steps"].dump();
    }
  return found;
}

/// How many candidates `db` holds while a search writes it: 0 until the search has created it
/// (the file may exist before its schema does).
size_t recordedSoFar(const std::string &db) {
  try {
    return fs::exists(db) ? candidates(db).size() : 0;
  } catch (const nasc::Error &) {
    return 0;
  }
}

} // namespace

TEST_CASE("nasc search writes the architecture, the library and the report", "[cli][search]") {
  const std::string model = nasc::test::writeSmallCnn("search_cli_cnn", {16, 16, 4, 16, 10});
  const std::string out = nasc::test::freshDir("cli", "search_out");
  const nasc::test::CliResult run = runNasc(searchArgs(model, out) + " --threads 2");
  INFO(run.output);
  REQUIRE(run.status == 0);
  CHECK_THAT(run.output, Contains("8 candidates in"));
  for (const char *file : {"report.json", "report.md", "pareto.svg", "tuning.db"})
    CHECK(fs::exists(fs::path(out) / file));
  CHECK(candidates(out + "/tuning.db").size() == 8);
  // Whether a candidate beats the original is timed, so both outcomes are checked.
  const nlohmann::json report = nlohmann::json::parse(std::ifstream(out + "/report.json"));
  if (report["best"].is_null()) {
    CHECK_THAT(run.output, Contains("No legal candidate ran faster than the original"));
    CHECK_FALSE(fs::exists(fs::path(out) / "model.onnx"));
    return;
  }
  CHECK_THAT(run.output, Contains("| latency (ms) |"));
  for (const char *file : {"model.onnx", "schedule.json", "libmodel.so", "model.h"})
    CHECK(fs::exists(fs::path(out) / file));
}

TEST_CASE("a search killed with SIGKILL resumes with every record kept", "[cli][search]") {
  const std::string model = nasc::test::writeSmallCnn("search_kill_cnn", {16, 16, 4, 16, 10});
  const std::string whole = nasc::test::freshDir("cli", "search_whole");
  const std::string killed = nasc::test::freshDir("cli", "search_killed");
  REQUIRE(runNasc(searchArgs(model, whole)).status == 0);

  const std::string command = std::string(NASC_BINARY_DIR) + "/tools/nasc " +
                              searchArgs(model, killed) + " > /dev/null 2>&1";
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), static_cast<char *>(nullptr));
    _exit(127);
  }
  const std::string db = killed + "/tuning.db";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  while (std::chrono::steady_clock::now() < deadline && recordedSoFar(db) < 3)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  const size_t before = candidates(db).size();
  INFO("records before the resume: " << before);
  CHECK(before < 8);
  CHECK_FALSE(fs::exists(fs::path(killed) / "report.json"));

  const nasc::test::CliResult resumed = runNasc(searchArgs(model, killed) + " --resume");
  INFO(resumed.output);
  REQUIRE(resumed.status == 0);
  CHECK(candidates(db) == candidates(whole + "/tuning.db"));
}

TEST_CASE("nasc search names a malformed budget", "[cli][search]") {
  const std::string model = nasc::test::writeSmallCnn("search_budget_cnn", {16, 16, 4, 16, 10});
  const nasc::test::CliResult run = runNasc("search " + model + " --budget 5x --out " +
                                            nasc::test::freshDir("cli", "search_budget"));
  CHECK(run.status == 1);
  CHECK_THAT(run.output, Contains("--budget '5x': expected a count of candidates (500c) or a "
                                  "duration (90s, 10m, 1h)"));
}

TEST_CASE("nasc search names an unknown transformation of --transforms", "[cli][search]") {
  const std::string model = nasc::test::writeSmallCnn("search_transforms_cnn", {16, 16, 4, 16, 10});
  const nasc::test::CliResult run =
      runNasc("search " + model + " --transforms group,shuffle --out " +
              nasc::test::freshDir("cli", "search_transforms"));
  CHECK(run.status == 1);
  CHECK_THAT(run.output,
             Contains("search: --transforms: unknown transformation 'shuffle' (known: "));
}
