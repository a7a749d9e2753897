// The pareto.svg plot of `nasc search` (docs/search.md, "Outputs"): every measured candidate's
// latency against its gate proxy, the Pareto front among the legal ones, drawn by gnuplot.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nasc::search {

/// One measured candidate of a search, as the plot shows it.
struct PlotPoint {
  double seconds; ///< latency estimate of the candidate (s)
  /// The gate proxy's value relative to the original: ln(new) - ln(original) for synflow (the
  /// difference of its ln values); the caller decides. 0 is the original's value; higher is
  /// better.
  double proxy;
  bool legal; ///< passed the gate
  bool best;  ///< the search's result
};

/// The indices into `points` of the Pareto front of its legal points (lower seconds and higher
/// proxy are better), by increasing seconds; points whose seconds or proxy are not finite are
/// never on it. A legal point is on the front when no other legal point is at least as good in
/// both and better in one. Of points equal in both, only the first (lowest index) is on it, so
/// along the front seconds and proxy both strictly increase. Empty when no point is legal.
std::vector<size_t> paretoFront(const std::vector<PlotPoint> &points);

/// Writes an SVG plot to `path`: latency (ms, x) against the proxy (y, axis label
/// `proxyLabel`) of every point of `points`, refused ones in grey, legal ones in blue, the
/// paretoFront() as a connected line, the best ones (PlotPoint::best) marked, the original
/// (`originalSeconds`, proxy 0) marked, the title `title`. The legend reads "refused (N)",
/// "legal (N)", "Pareto front (N)", "best (T ms)", "original (T ms)", N the points drawn (an
/// empty set has no entry). Points whose seconds or proxy are not finite are left out. Control
/// characters in `title` and `proxyLabel` are drawn as spaces; the text is never interpreted
/// (no gnuplot markup, macros or backquotes).
///
/// Runs Debian's gnuplot (`gnuplot` found on PATH, ~/.gnuplot not read) on a script in a
/// temporary directory with the data inline, its `svg` terminal writing `path`.partial, renamed
/// to `path` when gnuplot succeeded; no temporary file is left either way. Throws nasc::Error
/// naming gnuplot when it is not on PATH (install Debian's gnuplot-nox: scripts/install-deps.sh),
/// cannot be started, exits non-zero or is killed (its stderr in the message, on one line), or
/// writes nothing; nasc::Error naming `path` when `originalSeconds` is not finite and positive
/// or the file cannot be written.
void writeParetoSvg(const std::string &path, const std::vector<PlotPoint> &points,
                    double originalSeconds, const std::string &proxyLabel,
                    const std::string &title);

} // namespace nasc::search
