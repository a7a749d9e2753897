#include "compiler/search/TuningDb.h"
#include "GitRevision.h"

#include "ir/Error.h"

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace nasc::search {

namespace detail {

void CloseSqlite::operator()(sqlite3 *db) const { sqlite3_close_v2(db); }

void FinalizeSqlite::operator()(sqlite3_stmt *statement) const { sqlite3_finalize(statement); }

} // namespace detail

namespace {

using Db = std::unique_ptr<sqlite3, detail::CloseSqlite>;
using Statement = std::unique_ptr<sqlite3_stmt, detail::FinalizeSqlite>;

/// Schema version 1 (TuningDb::kSchemaVersion): `candidate` is TuningRecord::index, `id` the
/// insertion order.
constexpr const char *kCreateSchema = R"sql(
CREATE TABLE records (
  id INTEGER PRIMARY KEY,
  workload TEXT NOT NULL,
  target TEXT NOT NULL,
  version TEXT NOT NULL,
  search TEXT NOT NULL,
  candidate INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('measured', 'refused', 'failed', 'wrong')),
  seconds REAL NOT NULL,
  detail TEXT NOT NULL
);
CREATE UNIQUE INDEX records_search_candidate ON records (search, candidate);
CREATE INDEX records_key ON records (workload, target, version, status, seconds);
PRAGMA user_version = 1;
)sql";

constexpr const char *kInsert =
    "INSERT INTO records (workload, target, version, search, candidate, status, seconds, detail) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";

constexpr const char *kSelect = "SELECT workload, target, version, search, candidate, status, "
                                "seconds, detail FROM records ";

/// What a file's schema version and tables say it holds.
enum class Contents { Empty, TuningDb };

[[noreturn]] void fail(sqlite3 *db, const std::string &path, const std::string &what) {
  throw Error(path + ": " + what + ": " + sqlite3_errmsg(db));
}

Db openFile(const std::string &path, TuningDb::Access access) {
  if (access == TuningDb::Access::ReadOnly && !std::filesystem::exists(path))
    throw Error(path + ": no such tuning database");
  const int flags = access == TuningDb::Access::ReadOnly
                        ? SQLITE_OPEN_READONLY
                        : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  sqlite3 *raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags | SQLITE_OPEN_EXRESCODE, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK)
    throw Error(path + ": cannot open the tuning database: " +
                (db ? sqlite3_errmsg(db.get()) : sqlite3_errstr(rc)));
  return db;
}

Statement prepare(sqlite3 *db, const std::string &path, const std::string &sql) {
  sqlite3_stmt *raw = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK)
    fail(db, path, "cannot read the tuning database");
  return Statement(raw);
}

void execute(sqlite3 *db, const std::string &path, const char *sql) {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK)
    fail(db, path, "cannot write the tuning database");
}

std::string columnText(sqlite3_stmt *statement, int column) {
  const auto *text = reinterpret_cast<const char *>(sqlite3_column_text(statement, column));
  return std::string(text ? text : "", sqlite3_column_bytes(statement, column));
}

/// The text of the first column of the first row of `sql`.
std::string pragmaText(sqlite3 *db, const std::string &path, const char *sql) {
  Statement statement = prepare(db, path, sql);
  if (sqlite3_step(statement.get()) != SQLITE_ROW)
    fail(db, path, "cannot read the tuning database");
  return columnText(statement.get(), 0);
}

/// Throws unless `path` is empty or a tuning database of kSchemaVersion.
Contents readContents(sqlite3 *db, const std::string &path) {
  const int version = std::stoi(pragmaText(db, path, "PRAGMA user_version"));
  if (version == TuningDb::kSchemaVersion)
    return Contents::TuningDb;
  if (version != 0)
    throw Error(path + ": tuning database of schema version " + std::to_string(version) +
                "; this nasc reads version " + std::to_string(TuningDb::kSchemaVersion));
  if (pragmaText(db, path, "SELECT count(*) FROM sqlite_schema") != "0")
    throw Error(path + ": an SQLite database but not a tuning database (no schema version)");
  return Contents::Empty;
}

void setWal(sqlite3 *db, const std::string &path, TuningDb::Access access) {
  const char *sql =
      access == TuningDb::Access::ReadOnly ? "PRAGMA journal_mode" : "PRAGMA journal_mode = WAL";
  const std::string mode = pragmaText(db, path, sql);
  if (mode != "wal")
    throw Error(path + ": the tuning database must be in WAL journal mode, SQLite reports '" +
                mode + "'");
}

/// Creates the schema unless another process did since readContents.
void createSchema(sqlite3 *db, const std::string &path) {
  execute(db, path, "BEGIN IMMEDIATE");
  if (readContents(db, path) == Contents::Empty)
    execute(db, path, kCreateSchema);
  execute(db, path, "COMMIT");
}

/// Resets and unbinds a statement when it goes out of scope.
struct ResetOnExit {
  sqlite3_stmt *statement;
  ~ResetOnExit() {
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
  }
};

std::string recordName(const TuningRecord &record) {
  return "search '" + record.search + "' candidate " + std::to_string(record.index);
}

/// `record.detail` parsed; a discarded value unless it is a JSON object.
nlohmann::ordered_json parseDetail(const TuningRecord &record) {
  nlohmann::ordered_json detail = nlohmann::ordered_json::parse(record.detail, nullptr, false);
  return detail.is_object() ? detail : nlohmann::ordered_json(nlohmann::json::value_t::discarded);
}

/// Throws unless `record` keeps TuningRecord's contract (TuningDb::add).
void checkRecord(const TuningRecord &record, const std::string &path) {
  const std::string name = path + ": " + recordName(record) + ": ";
  const std::vector<std::string> &statuses = recordStatuses();
  if (std::find(statuses.begin(), statuses.end(), record.status) == statuses.end())
    throw Error(name + "status '" + record.status +
                "' is not one of measured, refused, failed, wrong");
  if (record.status == "measured" && !(std::isfinite(record.seconds) && record.seconds > 0))
    throw Error(name + "a measured record needs finite positive seconds, not " +
                std::to_string(record.seconds));
  if (record.status != "measured" && record.seconds != 0)
    throw Error(name + "a " + record.status + " record has 0 seconds, not " +
                std::to_string(record.seconds));
  if (parseDetail(record).is_discarded())
    throw Error(name + "detail is not a JSON object: " + record.detail);
}

void bindText(sqlite3_stmt *statement, int parameter, const std::string &text) {
  sqlite3_bind_text64(statement, parameter, text.data(), text.size(), SQLITE_STATIC, SQLITE_UTF8);
}

void bindRecord(sqlite3_stmt *statement, const TuningRecord &record) {
  bindText(statement, 1, record.workload);
  bindText(statement, 2, record.target);
  bindText(statement, 3, record.version);
  bindText(statement, 4, record.search);
  sqlite3_bind_int64(statement, 5, record.index);
  bindText(statement, 6, record.status);
  sqlite3_bind_double(statement, 7, record.seconds);
  bindText(statement, 8, record.detail);
}

TuningRecord readRecord(sqlite3_stmt *statement) {
  TuningRecord record;
  record.workload = columnText(statement, 0);
  record.target = columnText(statement, 1);
  record.version = columnText(statement, 2);
  record.search = columnText(statement, 3);
  record.index = sqlite3_column_int64(statement, 4);
  record.status = columnText(statement, 5);
  record.seconds = sqlite3_column_double(statement, 6);
  record.detail = columnText(statement, 7);
  return record;
}

/// Every row of `statement` (its parameters bound), as records.
std::vector<TuningRecord> readRecords(sqlite3 *db, const std::string &path,
                                      sqlite3_stmt *statement) {
  std::vector<TuningRecord> records;
  int rc;
  while ((rc = sqlite3_step(statement)) == SQLITE_ROW)
    records.push_back(readRecord(statement));
  if (rc != SQLITE_DONE)
    fail(db, path, "cannot read the tuning database");
  return records;
}

} // namespace

const std::vector<std::string> &recordStatuses() {
  static const std::vector<std::string> statuses = {"measured", "refused", "failed", "wrong"};
  return statuses;
}

std::string targetKey(const codegen::Target &target) {
  std::vector<std::string> features = target.features;
  std::sort(features.begin(), features.end());
  std::string key = target.triple + " " + target.cpu;
  for (size_t i = 0; i < features.size(); ++i)
    key += (i ? ",+" : " +") + features[i];
  return key;
}

const std::string &nascVersion() {
  static const std::string version = std::string(NASC_VERSION) + "+" + NASC_GIT_REVISION;
  return version;
}

std::string recordJson(const TuningRecord &record) {
  nlohmann::ordered_json detail = parseDetail(record);
  if (detail.is_discarded())
    throw Error(recordName(record) + ": detail is not a JSON object: " + record.detail);
  const nlohmann::ordered_json out = {{"workload", record.workload}, {"target", record.target},
                                      {"version", record.version},   {"search", record.search},
                                      {"index", record.index},       {"status", record.status},
                                      {"seconds", record.seconds},   {"detail", detail}};
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

TuningDb::TuningDb(const std::string &path, Access access)
    : path_(path), db_(openFile(path, access)) {
  sqlite3 *db = db_.get();
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  const Contents contents = readContents(db, path);
  if (contents == Contents::Empty && access == Access::ReadOnly)
    throw Error(path + ": an empty file, not a tuning database");
  setWal(db, path, access);
  if (contents == Contents::Empty)
    createSchema(db, path);
  execute(db, path, "PRAGMA synchronous = NORMAL");
  insert_ = prepare(db, path, kInsert);
}

TuningDb::~TuningDb() = default;
TuningDb::TuningDb(TuningDb &&) noexcept = default;
TuningDb &TuningDb::operator=(TuningDb &&) noexcept = default;

void TuningDb::add(const TuningRecord &record) {
  checkRecord(record, path_);
  ResetOnExit reset{insert_.get()};
  bindRecord(insert_.get(), record);
  const int rc = sqlite3_step(insert_.get());
  if (rc == SQLITE_CONSTRAINT_UNIQUE)
    throw Error(path_ + ": " + recordName(record) + " is already recorded");
  if (rc != SQLITE_DONE)
    fail(db_.get(), path_, "cannot add " + recordName(record));
}

std::vector<TuningRecord> TuningDb::searchRecords(const std::string &search) const {
  Statement statement =
      prepare(db_.get(), path_, std::string(kSelect) + "WHERE search = ?1 ORDER BY candidate");
  bindText(statement.get(), 1, search);
  return readRecords(db_.get(), path_, statement.get());
}

std::optional<TuningRecord> TuningDb::best(const std::string &workload, const std::string &target,
                                           const std::string &version) const {
  Statement statement =
      prepare(db_.get(), path_,
              std::string(kSelect) + "WHERE workload = ?1 AND target = ?2 AND version = ?3 AND "
                                     "status = 'measured' ORDER BY seconds, id LIMIT 1");
  bindText(statement.get(), 1, workload);
  bindText(statement.get(), 2, target);
  bindText(statement.get(), 3, version);
  std::vector<TuningRecord> records = readRecords(db_.get(), path_, statement.get());
  if (records.empty())
    return std::nullopt;
  return records.front();
}

std::vector<TuningRecord> TuningDb::all() const {
  Statement statement = prepare(db_.get(), path_, std::string(kSelect) + "ORDER BY id");
  return readRecords(db_.get(), path_, statement.get());
}

} // namespace nasc::search
