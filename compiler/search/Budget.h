// The wall-time plan of a search with a time budget (docs/search.md, "Budget"): the budget is the
// search's whole wall time, from loading the model to its outputs written. After the setup (the
// original loaded, gated, timed), the end is reserved for timing the finalists and the originals
// whole and compiling the outputs; of the rest, a share explores candidates and the remainder
// measures schedule choices of the finalists' and the original's layers.
#pragma once

namespace nasc::search {

/// The least wall seconds of runs a network timed whole gets (at least 20 runs and this).
inline constexpr double kWholeMinSeconds = 1.0;

/// The share of a time budget's free seconds (after setup and the reserve) that explores
/// candidates; the rest measures schedule choices. With CIFAR ResNet-34 the best candidate's
/// schedule choices gained 1-3% over its default trace (docs/search.md), a candidate more often.
inline constexpr double kExploreShare = 0.7;

/// When the phases of a search with a time budget end, in wall seconds since it started.
struct BudgetPlan {
  double exploreEnd = 0;   ///< No candidate is drawn after it.
  double schedulesEnd = 0; ///< No new schedule choice is measured after it.
  double reserve = 0;      ///< Seconds kept after schedulesEnd: timing whole and the outputs.
};

/// The plan of a search of `budgetSeconds` whose setup took `setupSeconds` and whose original
/// took `wholeSeconds` to be compiled, checked and timed once: `finalists` + 2 networks (the
/// finalists, the original and the tuned original) timed whole, each wholeSeconds +
/// kWholeMinSeconds, and one more compile for the outputs are reserved at the end; of the free
/// seconds between setup and the reserve, kExploreShare explore. Neither end is before
/// setupSeconds: a budget shorter than setup and reserve explores and tunes nothing.
BudgetPlan planBudget(double budgetSeconds, double setupSeconds, double wholeSeconds,
                      int finalists);

} // namespace nasc::search
