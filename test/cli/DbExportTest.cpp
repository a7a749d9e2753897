// `nasc db export DB --jsonl` as a user runs it: one JSON line per record, in insertion order,
// holding the values written; one error line and exit 1 for a file that is no tuning database.
#include "compiler/search/TuningDb.h"
#include "test/support/CliRun.h"
#include "test/support/FreshPath.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

using nasc::search::TuningDb;
using nasc::search::TuningRecord;
using nasc::test::runNasc;

namespace {

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    result.push_back(line);
  return result;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("db export --jsonl prints every record as one JSON line holding its values",
          "[cli][db]") {
  const std::string path = nasc::test::freshPath("cli", "export.db");
  TuningRecord measured{"r8 conv1 [\"conv1:group(2)\"]",
                        "x86_64-pc-linux-gnu znver3 +avx2,+fma",
                        "0.1.0",
                        "random seed=1",
                        1,
                        "measured",
                        0.00125,
                        R"json({"steps": ["conv1:group(2)"], "proxies": {"synflow": 12.5}})json"};
  TuningRecord refused{"r8 conv1 [\"conv1:group(64)\"]",
                       measured.target,
                       "0.1.0",
                       "random seed=1",
                       0,
                       "refused",
                       0,
                       R"json({"reason": "synflow fell by 9.1 (tolerance 6.5)"})json"};
  {
    TuningDb db(path);
    db.add(measured);
    db.add(refused);
  }
  const nasc::test::CliResult r = runNasc("db export " + path + " --jsonl");
  REQUIRE(r.status == 0);
  const std::vector<std::string> out = lines(r.output);
  REQUIRE(out.size() == 2);
  const nlohmann::json first = nlohmann::json::parse(out[0]);
  CHECK(first.at("workload") == measured.workload);
  CHECK(first.at("target") == measured.target);
  CHECK(first.at("version") == "0.1.0");
  CHECK(first.at("search") == "random seed=1");
  CHECK(first.at("index") == 1);
  CHECK(first.at("status") == "measured");
  CHECK(first.at("seconds").get<double>() == 0.00125);
  CHECK(first.at("detail").at("steps") == nlohmann::json::array({"conv1:group(2)"}));
  CHECK(first.at("detail").at("proxies").at("synflow") == 12.5);
  const nlohmann::json second = nlohmann::json::parse(out[1]);
  CHECK(second.at("index") == 0);
  CHECK(second.at("status") == "refused");
  CHECK(second.at("seconds") == 0);
  CHECK(second.at("detail").at("reason") == "synflow fell by 9.1 (tolerance 6.5)");
}

TEST_CASE("db export of an empty tuning database prints nothing", "[cli][db]") {
  const std::string path = nasc::test::freshPath("cli", "export_empty.db");
  TuningDb{path};
  const nasc::test::CliResult r = runNasc("db export " + path + " --jsonl");
  CHECK(r.status == 0);
  CHECK(r.output.empty());
}

TEST_CASE("db export of a missing or non-database file is one error line and exit 1",
          "[cli][db][error]") {
  const std::string missing = nasc::test::freshPath("cli", "export_missing.db");
  const std::string text = nasc::test::freshPath("cli", "export_notes.txt");
  std::ofstream(text) << "not a database\n";
  for (const std::string &path : {missing, text}) {
    INFO(path);
    const nasc::test::CliResult r = runNasc("db export " + path + " --jsonl");
    CHECK(r.status == 1);
    CHECK(contains(r.output, "nasc: error: " + path + ": "));
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  }
  CHECK_FALSE(fs::exists(missing));
}

TEST_CASE("db export --help says what a record holds", "[cli][db]") {
  const nasc::test::CliResult r = runNasc("db export --help");
  CHECK(r.status == 0);
  for (const char *field :
       {"workload", "target", "version", "search", "index", "status", "seconds", "detail"}) {
    INFO(field);
    CHECK(contains(r.output, field));
  }
  CHECK(contains(runNasc("--help").output, "db"));
  CHECK(contains(runNasc("db --help").output, "export"));
}
