// The wall-time plan of a search with a time budget (compiler/search/Budget.h), worked out by
// hand.
#include "compiler/search/Budget.h"

#include <catch2/catch.hpp>

using namespace nasc;

TEST_CASE("a time budget reserves the whole timings and the outputs, then splits the rest",
          "[search]") {
  // 3 finalists + 2 originals, each 5 s to compile and check + 1 s of runs, and 5 s for the
  // outputs: 35 s reserved. 120 - 20 - 35 = 65 s free: 45.5 s explore, 19.5 s schedules.
  const search::BudgetPlan plan = search::planBudget(120, 20, 5, 3);
  CHECK(plan.reserve == Approx(35));
  CHECK(plan.exploreEnd == Approx(65.5));
  CHECK(plan.schedulesEnd == Approx(85));
}

TEST_CASE("a time budget shorter than setup and reserve explores nothing", "[search]") {
  const search::BudgetPlan plan = search::planBudget(30, 20, 5, 1);
  CHECK(plan.reserve == Approx(3 * 6 + 5));
  CHECK(plan.exploreEnd == 20);
  CHECK(plan.schedulesEnd == 20);
}
