#include "compiler/search/TuningDb.h"
#include "tools/nasc/Commands.h"

#include <iostream>
#include <memory>

namespace nasc::cli {

namespace {

struct ExportArgs {
  std::string db;
  bool jsonl = false;
};

/// Prints every record of the database as one line of JSON, in insertion order.
void exportJsonl(const ExportArgs &args) {
  const search::TuningDb db(args.db, search::TuningDb::Access::ReadOnly);
  for (const search::TuningRecord &record : db.all())
    std::cout << search::recordJson(record) << "\n";
}

void addExportCommand(CLI::App &db) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App *cmd = db.add_subcommand(
      "export", "Prints every record of the tuning database DB, in the order they were added, "
                "as one JSON object per line: {\"workload\": what was measured, \"target\": "
                "triple, CPU and features it ran on, \"version\": the nasc that measured it, "
                "\"search\": the search that produced it, \"index\": the candidate's number in "
                "that search, \"status\": measured|refused|failed|wrong, \"seconds\": median "
                "latency (0 unless measured), \"detail\": {steps, proxies, reason, ...}}");
  cmd->add_option("DB", args->db, "The tuning database (an SQLite file nasc search wrote)")
      ->required();
  cmd->add_flag("--jsonl", args->jsonl, "One JSON object per line (the only format so far)")
      ->required();
  cmd->callback([args] { exportJsonl(*args); });
}

} // namespace

void addDbCommand(CLI::App &app) {
  CLI::App *db = app.add_subcommand(
      "db", "The tuning database of nasc search (docs/search.md, \"Tuning database\"): one "
            "record per candidate, keyed by workload, target and nasc version");
  db->require_subcommand(1);
  addExportCommand(*db);
}

} // namespace nasc::cli
