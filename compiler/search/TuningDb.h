// The tuning database of `nasc search` (docs/search.md, "Tuning database"): one SQLite file
// (WAL) holding one committed record per candidate a search measured, refused or lost, keyed by
// workload, target and nasc version so that later searches and compiles reuse only what was
// measured on the same machine by the same nasc.
#pragma once

#include "codegen/TargetDescription.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace nasc::search {

namespace detail {
/// sqlite3_close_v2, for std::unique_ptr.
struct CloseSqlite {
  void operator()(sqlite3 *db) const;
};
/// sqlite3_finalize, for std::unique_ptr.
struct FinalizeSqlite {
  void operator()(sqlite3_stmt *statement) const;
};
} // namespace detail

/// One measured (or refused / failed) candidate of a search.
struct TuningRecord {
  /// What was measured: canonical text chosen by the caller (model structure + steps).
  std::string workload;
  std::string target;        ///< targetKey() of the target it ran on
  std::string version;       ///< nascVersion() of the nasc that measured it
  std::string search;        ///< identity of the search that produced it (caller's text)
  int64_t index = 0;         ///< the candidate's number in that search, 0-based
  std::string status;        ///< "measured", "refused", "failed" or "wrong"
  double seconds = 0;        ///< median latency in seconds when measured, else 0
  std::string detail = "{}"; ///< a JSON object as text (steps, proxies, reason, ...), as is
};

/// The statuses a TuningRecord may have, in the order of its doc: measured, refused (by the
/// capacity gate or isl legality), failed (did not build or run), wrong (its output differs from
/// the reference executor's).
const std::vector<std::string> &recordStatuses();

/// The target part of a record's key: the triple, the CPU and the features (sorted, each with a
/// leading '+'), separated by spaces, e.g. "x86_64-pc-linux-gnu znver3 +avx,+avx2,+fma"; just
/// "TRIPLE CPU" for a target without features. Two targets with the same key run the same code
/// equally fast, as far as nasc can tell.
std::string targetKey(const codegen::Target &target);

/// The version of this nasc: the project version of the root CMakeLists.txt and the git
/// revision of the tree it was built from (12 hex digits, "-dirty" with uncommitted changes;
/// "unknown" outside git), e.g. "0.1.0+a8abaf4c0d1e": a commit that changes the code nasc
/// generates also changes which records a search reuses.
const std::string &nascVersion();

/// `record` as one line of JSON: {"workload", "target", "version", "search", "index", "status",
/// "seconds", "detail"} in that order, "detail" embedded as the JSON object it holds; bytes that
/// are not UTF-8 are written as U+FFFD. Throws nasc::Error when `detail` is not a JSON object.
std::string recordJson(const TuningRecord &record);

/// A tuning database file, open. The file holds one table of TuningRecords in insertion order,
/// with a unique (search, index) so a resumed search cannot record one candidate twice, and its
/// schema version in `PRAGMA user_version`. It is in WAL mode with synchronous=NORMAL: a record
/// that add() returned from survives the process being killed (not necessarily a power loss),
/// readers do not block the writer, and several processes may open the same file (a writer
/// waits up to kBusyTimeoutMs for another's lock before add() fails). Every error is a
/// nasc::Error naming the file (and quoting SQLite's message when SQLite failed). Not copyable;
/// movable (a moved-from TuningDb may only be destroyed or assigned to).
class TuningDb {
public:
  /// The schema version this nasc reads and writes.
  static constexpr int kSchemaVersion = 1;
  /// How long one call waits for another connection's lock, in milliseconds.
  static constexpr int kBusyTimeoutMs = 10'000;

  enum class Access {
    ReadWrite, ///< open `path`, creating an empty database when the file does not exist
    ReadOnly,  ///< open an existing database only (`nasc db export`); add() fails
  };

  /// Opens the database at `path`. Throws nasc::Error naming `path` when the file is not an
  /// SQLite database, is another SQLite database (tables but no schema version), has a schema
  /// version other than kSchemaVersion, is not (or cannot be put) in WAL mode, or, with
  /// Access::ReadOnly, does not exist or holds no tuning database.
  explicit TuningDb(const std::string &path, Access access = Access::ReadWrite);
  ~TuningDb();
  TuningDb(TuningDb &&) noexcept;
  TuningDb &operator=(TuningDb &&) noexcept;
  TuningDb(const TuningDb &) = delete;
  TuningDb &operator=(const TuningDb &) = delete;

  /// The file this database was opened from.
  const std::string &path() const { return path_; }

  /// Appends `record` in one committed INSERT. Throws nasc::Error, adding nothing, when the
  /// database already holds (record.search, record.index), when record.status is not one of
  /// recordStatuses(), when a measured record's seconds are not finite and positive or another
  /// record's are not 0, when record.detail is not a JSON object, or when SQLite fails.
  void add(const TuningRecord &record);

  /// The records of search `search`, by index.
  std::vector<TuningRecord> searchRecords(const std::string &search) const;

  /// The measured record with the lowest seconds among those of exactly this workload, target
  /// (targetKey) and version (nascVersion), the first added of equal ones; nullopt when there
  /// is none. Records of another target or version are never returned.
  std::optional<TuningRecord> best(const std::string &workload, const std::string &target,
                                   const std::string &version) const;

  /// Every record, in insertion order.
  std::vector<TuningRecord> all() const;

private:
  std::string path_;
  std::unique_ptr<sqlite3, detail::CloseSqlite> db_;
  std::unique_ptr<sqlite3_stmt, detail::FinalizeSqlite> insert_; ///< add()'s, prepared once
};

} // namespace nasc::search
