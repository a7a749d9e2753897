// What nasc search leaves in its output directory (docs/search.md, "Outputs").
#pragma once

#include "compiler/search/Search.h"
#include "compiler/search/TuningDb.h"

#include <string>
#include <vector>

namespace nasc::search {

/// Writes into `dir` (created when missing), for the best candidate of `result` (SearchResult::
/// best) found on the model file `modelPath`:
///  - model.onnx: the transformed architecture with fresh He-initialised weights (seed
///    options.seed), to retrain; metadata nasc.source, nasc.transformations, nasc.capacity;
///  - schedule.json: its neural steps, one entry per node, that `nasc compile MODEL --schedule`
///    replays (the gate's record on the last step);
///  - libmodel.so and model.h: the library compiled for options.measure.target (threads
///    options.measure.threads);
///  - report.json and report.md: per transformed Conv its steps, FLOP, parameters and latency
///    (its workload's record in `db`) before and after; every gate proxy before and after; the
///    totals; the candidates' counts by status; the finalists timed whole;
///  - pareto.svg: each measured candidate's estimate against its gate proxy relative to the
///    original (writeParetoSvg), the best marked.
/// Without a best candidate only the reports and the plot are written, the reports saying so. Each
/// file is written under a temporary name and renamed, so none is left half-written. Throws
/// nasc::Error naming the file that cannot be written. Returns the names of the files written,
/// in the order above.
std::vector<std::string> writeSearchOutputs(const std::string &dir, const std::string &modelPath,
                                            const SearchResult &result,
                                            const SearchOptions &options, const TuningDb &db);

/// The Markdown table of report.md (also what `nasc search` prints at its end); the proxies of
/// report.json's "original" and "best" in rows of original, searched and their ratio, synflow's
/// (report.json holds its natural log) in a row "ln synflow" whose ratio is e^(searched −
/// original).
std::string reportMarkdown(const std::string &reportJson);

} // namespace nasc::search
