// The tuning database (compiler/search/TuningDb.h): records come back as written, the file is
// in WAL mode as SQLite itself reports, committed records survive a killed process, best()
// keys on workload, target and version, and bad files or records are refused naming the file.
#include "compiler/search/TuningDb.h"
#include "ir/Error.h"
#include "test/support/FreshPath.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

using Catch::Matchers::Contains;
using nasc::search::TuningDb;
using nasc::search::TuningRecord;

namespace {

TuningRecord record(const std::string &search, int64_t index, const std::string &status,
                    double seconds) {
  TuningRecord r;
  r.workload = "resnet8 conv1 [\"conv1:group(2)\"]";
  r.target = "x86_64-pc-linux-gnu znver3 +avx,+avx2,+fma";
  r.version = "0.1.0";
  r.search = search;
  r.index = index;
  r.status = status;
  r.seconds = seconds;
  r.detail = R"({"candidate": )" + std::to_string(index) + "}";
  return r;
}

void checkSame(const TuningRecord &a, const TuningRecord &b) {
  CHECK(a.workload == b.workload);
  CHECK(a.target == b.target);
  CHECK(a.version == b.version);
  CHECK(a.search == b.search);
  CHECK(a.index == b.index);
  CHECK(a.status == b.status);
  CHECK(a.seconds == b.seconds);
  CHECK(a.detail == b.detail);
}

/// The first column of `sql`'s first row, run on `path` through the raw SQLite C API.
std::string rawQuery(const std::string &path, const char *sql) {
  sqlite3 *db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
  sqlite3_stmt *statement = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql, -1, &statement, nullptr) == SQLITE_OK);
  std::string text;
  if (sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_text(statement, 0))
    text = reinterpret_cast<const char *>(sqlite3_column_text(statement, 0));
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return text;
}

std::string fileText(const std::string &path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

} // namespace

TEST_CASE("a record comes back with every field as written", "[search][db]") {
  const std::string path = nasc::test::freshPath("search", "round_trip.db");
  TuningRecord written;
  written.workload = "model \"r8\"\n\tconv1 → group(4), ünïcode";
  written.target = "aarch64-unknown-linux-gnu neoverse-n1 +neon";
  written.version = "9.8.7";
  written.search = "search 'evolution' seed=3";
  written.index = 1234567890123;
  written.status = "measured";
  written.seconds = 1.2345678901234567e-3;
  written.detail =
      R"json({"steps": ["conv1:group(4)", "tile(0, 32)"], "proxies": {"synflow": 1e30}})json";
  {
    TuningDb db(path);
    db.add(written);
  }
  const TuningDb db(path);
  REQUIRE(db.all().size() == 1);
  checkSame(db.all()[0], written);
  REQUIRE(db.searchRecords(written.search).size() == 1);
  checkSame(db.searchRecords(written.search)[0], written);
  CHECK(db.searchRecords("another search").empty());

  const nlohmann::json line = nlohmann::json::parse(nasc::search::recordJson(written));
  CHECK(line.at("workload") == written.workload);
  CHECK(line.at("target") == written.target);
  CHECK(line.at("version") == written.version);
  CHECK(line.at("search") == written.search);
  CHECK(line.at("index") == written.index);
  CHECK(line.at("status") == "measured");
  CHECK(line.at("seconds").get<double>() == written.seconds);
  REQUIRE(line.at("detail").is_object());
  CHECK(line.at("detail").at("steps")[1] == "tile(0, 32)");
  CHECK(line.at("detail").at("proxies").at("synflow") == 1e30);
  CHECK(nasc::search::recordJson(written).find('\n') == std::string::npos);
}

TEST_CASE("the file is in WAL mode, as SQLite reports it to another connection", "[search][db]") {
  const std::string path = nasc::test::freshPath("search", "wal.db");
  TuningDb db(path);
  db.add(record("s", 0, "measured", 0.5));
  CHECK(rawQuery(path, "PRAGMA journal_mode") == "wal");
  CHECK(rawQuery(path, "PRAGMA user_version") == std::to_string(TuningDb::kSchemaVersion));
}

TEST_CASE("records added before the process is killed are all there on reopening", "[search][db]") {
  const std::string path = nasc::test::freshPath("search", "killed.db");
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    try {
      TuningDb db(path);
      for (int64_t i = 0; i < 50; ++i)
        db.add(record("killed search", i, "measured", 0.001 * (i + 1)));
      raise(SIGKILL);
    } catch (...) {
      _exit(1);
    }
    _exit(2);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(WTERMSIG(status) == SIGKILL);
  CHECK(fs::exists(path + "-wal"));
  const TuningDb db(path);
  const std::vector<TuningRecord> records = db.searchRecords("killed search");
  REQUIRE(records.size() == 50);
  for (int64_t i = 0; i < 50; ++i) {
    INFO(i);
    checkSame(records[i], record("killed search", i, "measured", 0.001 * (i + 1)));
  }
}

TEST_CASE("best is the fastest measured record of exactly that workload, target and version",
          "[search][db]") {
  const std::string path = nasc::test::freshPath("search", "best.db");
  TuningDb db(path);
  const std::string workload = "r8 conv1", target = "x86_64-pc-linux-gnu znver3 +avx2,+fma";
  const std::string version = "0.1.0";
  auto add = [&](int64_t index, const std::string &status, double seconds, std::string w,
                 std::string t, std::string v) {
    TuningRecord r = record("best search", index, status, seconds);
    r.workload = std::move(w);
    r.target = std::move(t);
    r.version = std::move(v);
    db.add(r);
  };
  add(0, "measured", 0.004, workload, target, version);
  add(1, "measured", 0.003, workload, target, version);
  add(2, "measured", 0.005, workload, target, version);
  add(3, "refused", 0, workload, target, version);
  add(4, "failed", 0, workload, target, version);
  add(5, "wrong", 0, workload, target, version);
  add(6, "measured", 0.001, workload, "x86_64-pc-linux-gnu znver4 +avx2,+avx512f,+fma", version);
  add(7, "measured", 0.001, workload, "x86_64-pc-linux-gnu znver3 +avx2", version);
  add(8, "measured", 0.001, workload, target, "0.2.0");
  add(9, "measured", 0.001, "r8 conv2", target, version);
  add(10, "measured", 0.003, workload, target, version);
  add(11, "refused", 0, "r8 conv3", target, version);

  const std::optional<TuningRecord> best = db.best(workload, target, version);
  REQUIRE(best);
  CHECK(best->index == 1);
  CHECK(best->seconds == 0.003);
  CHECK(db.best(workload, "x86_64-pc-linux-gnu znver3 +avx2", version)->index == 7);
  CHECK(db.best(workload, target, "0.2.0")->index == 8);
  CHECK_FALSE(db.best(workload, target, "0.1.1"));
  CHECK_FALSE(db.best(workload, "x86_64-pc-linux-gnu znver3", version));
  CHECK_FALSE(db.best("r8 conv3", target, version));
}

TEST_CASE("a candidate recorded twice in one search is refused", "[search][db]") {
  const std::string path = nasc::test::freshPath("search", "duplicate.db");
  TuningDb db(path);
  db.add(record("first", 3, "measured", 0.25));
  CHECK_THROWS_AS(db.add(record("first", 3, "refused", 0)), nasc::Error);
  CHECK_THROWS_WITH(db.add(record("first", 3, "measured", 0.5)),
                    Contains(path) && Contains("search 'first' candidate 3 is already recorded"));
  db.add(record("second", 3, "measured", 0.5));
  db.add(record("first", 4, "failed", 0));
  const std::vector<TuningRecord> records = db.all();
  REQUIRE(records.size() == 3);
  checkSame(records[0], record("first", 3, "measured", 0.25));
  checkSame(records[1], record("second", 3, "measured", 0.5));
  checkSame(records[2], record("first", 4, "failed", 0));
}

TEST_CASE("records are in insertion order in all() and by index in searchRecords()",
          "[search][db]") {
  const std::string path = nasc::test::freshPath("search", "order.db");
  TuningDb db(path);
  for (int64_t index : {2, 0, 1})
    db.add(record("order", index, "refused", 0));
  db.add(record("other", 0, "refused", 0));
  std::vector<int64_t> inserted, byIndex;
  for (const TuningRecord &r : db.all())
    inserted.push_back(r.index);
  for (const TuningRecord &r : db.searchRecords("order"))
    byIndex.push_back(r.index);
  CHECK(inserted == std::vector<int64_t>{2, 0, 1, 0});
  CHECK(byIndex == std::vector<int64_t>{0, 1, 2});
}

TEST_CASE("a record that breaks its contract is refused and not added", "[search][db][error]") {
  const std::string path = nasc::test::freshPath("search", "contract.db");
  TuningDb db(path);
  CHECK_THROWS_WITH(db.add(record("s", 0, "timed out", 0)),
                    Contains(path) && Contains("status 'timed out' is not one of"));
  CHECK_THROWS_WITH(db.add(record("s", 0, "measured", 0)), Contains("finite positive seconds"));
  CHECK_THROWS_WITH(db.add(record("s", 0, "measured", std::nan(""))),
                    Contains("finite positive seconds"));
  CHECK_THROWS_WITH(db.add(record("s", 0, "refused", 0.5)), Contains("has 0 seconds"));
  TuningRecord r = record("s", 0, "measured", 0.5);
  for (const char *detail : {"", "[1, 2]", "\"text\"", "{\"unclosed\": "}) {
    INFO(detail);
    r.detail = detail;
    CHECK_THROWS_WITH(db.add(r), Contains("detail is not a JSON object"));
    CHECK_THROWS_AS(nasc::search::recordJson(r), nasc::Error);
  }
  CHECK(db.all().empty());
}

TEST_CASE("a text file given as the database is an error naming it, and is left as it was",
          "[search][db][error]") {
  const std::string path = nasc::test::freshPath("search", "notes.txt");
  const std::string text = "these are notes, not a database\n";
  std::ofstream(path) << text;
  CHECK_THROWS_WITH(TuningDb(path), Contains(path) && Contains("file is not a database"));
  CHECK_THROWS_WITH(TuningDb(path, TuningDb::Access::ReadOnly),
                    Contains(path) && Contains("file is not a database"));
  CHECK(fileText(path) == text);
}

TEST_CASE("a database of another schema version is refused", "[search][db][error]") {
  const std::string path = nasc::test::freshPath("search", "schema.db");
  {
    TuningDb db(path);
    db.add(record("s", 0, "measured", 0.5));
  }
  rawQuery(path, "PRAGMA user_version = 7");
  CHECK_THROWS_WITH(TuningDb(path),
                    Contains(path) && Contains("schema version 7") && Contains("reads version 1"));
  CHECK_THROWS_WITH(TuningDb(path, TuningDb::Access::ReadOnly), Contains("schema version 7"));
}

TEST_CASE("another SQLite database is refused, not given a tuning table", "[search][db][error]") {
  const std::string path = nasc::test::freshPath("search", "foreign.db");
  sqlite3 *raw = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &raw) == SQLITE_OK);
  REQUIRE(sqlite3_exec(raw, "CREATE TABLE notes (text TEXT)", nullptr, nullptr, nullptr) ==
          SQLITE_OK);
  sqlite3_close(raw);
  CHECK_THROWS_WITH(TuningDb(path), Contains(path) && Contains("not a tuning database"));
  CHECK(rawQuery(path, "SELECT count(*) FROM sqlite_schema") == "1");
}

TEST_CASE("a read-only open needs an existing tuning database and creates nothing",
          "[search][db][error]") {
  const std::string missing = nasc::test::freshPath("search", "missing.db");
  CHECK_THROWS_WITH(TuningDb(missing, TuningDb::Access::ReadOnly),
                    Contains(missing) && Contains("no such tuning database"));
  CHECK_FALSE(fs::exists(missing));
  const std::string empty = nasc::test::freshPath("search", "empty.db");
  std::ofstream{empty};
  CHECK_THROWS_WITH(TuningDb(empty, TuningDb::Access::ReadOnly),
                    Contains(empty) && Contains("not a tuning database"));
  const std::string path = nasc::test::freshPath("search", "read_only.db");
  TuningDb(path).add(record("s", 0, "measured", 0.5));
  TuningDb readOnly(path, TuningDb::Access::ReadOnly);
  REQUIRE(readOnly.all().size() == 1);
  CHECK_THROWS_WITH(readOnly.add(record("s", 1, "measured", 0.5)),
                    Contains(path) && Contains("readonly"));
}

TEST_CASE("a moved database keeps its file and records", "[search][db]") {
  const std::string path = nasc::test::freshPath("search", "moved.db");
  TuningDb first(path);
  first.add(record("s", 0, "measured", 0.5));
  TuningDb second = std::move(first);
  second.add(record("s", 1, "measured", 0.25));
  TuningDb third(nasc::test::freshPath("search", "moved_other.db"));
  third = std::move(second);
  CHECK(third.path() == path);
  CHECK(third.all().size() == 2);
}

TEST_CASE("targetKey is the triple, CPU and sorted features; nascVersion the project's and "
          "the git revision's",
          "[search][db]") {
  nasc::codegen::Target target;
  target.triple = "x86_64-pc-linux-gnu";
  target.cpu = "znver3";
  target.features = {"fma", "avx", "avx2"};
  CHECK(nasc::search::targetKey(target) == "x86_64-pc-linux-gnu znver3 +avx,+avx2,+fma");
  target.features.clear();
  CHECK(nasc::search::targetKey(target) == "x86_64-pc-linux-gnu znver3");
  CHECK_THAT(
      nasc::search::nascVersion(),
      Catch::Matchers::Matches("[0-9]+\\.[0-9]+\\.[0-9]+\\+([0-9a-f]{12}(-dirty)?|unknown)"));
}
