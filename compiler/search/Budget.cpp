#include "compiler/search/Budget.h"

#include <algorithm>

namespace nasc::search {

BudgetPlan planBudget(double budgetSeconds, double setupSeconds, double wholeSeconds,
                      int finalists) {
  BudgetPlan plan;
  plan.reserve = (finalists + 2) * (wholeSeconds + kWholeMinSeconds) + wholeSeconds;
  const double free = std::max(0.0, budgetSeconds - setupSeconds - plan.reserve);
  plan.exploreEnd = setupSeconds + kExploreShare * free;
  plan.schedulesEnd = setupSeconds + free;
  return plan;
}

} // namespace nasc::search
