// Random legal schedule traces for property tests: candidate steps of every primitive with
// random arguments drawn from the current schedule tree's shape, kept only when the primitive
// accepts them (so every kept trace is legal by the primitives' own checks).
#pragma once

#include "compiler/transforms/BandLookup.h"
#include "compiler/transforms/Primitives.h"
#include "ir/Kernel.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace nasc::test {

/// Draws traces for one kernel (`scop` from poly::buildScop, its dependences `deps`).
class RandomTraceGenerator {
public:
  RandomTraceGenerator(const ir::Kernel &kernel, const poly::Scop &scop,
                       const poly::Dependences &deps, unsigned seed)
      : kernel_(kernel), scop_(scop), deps_(deps), rng_(seed) {}

  /// Up to `attempts` candidate steps, each kept if the primitive accepts it on the schedule
  /// built so far; the kept steps form a legal trace named `node`.
  compiler::KernelSchedule draw(const std::string &node, int attempts) {
    compiler::KernelSchedule trace{node, {}};
    poly::Scop current = scop_;
    for (int a = 0; a < attempts; ++a) {
      compiler::ScheduleStep step = candidate(current);
      try {
        current.schedule = compiler::applyStep(current, deps_, step);
        trace.steps.push_back(step);
      } catch (const Error &) {
      }
    }
    return trace;
  }

private:
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  /// Member counts of the statement's bands, outermost first (shared bands of fused statements
  /// included: parallelize accepts them, the other primitives refuse them).
  std::vector<int> bandSizes(const poly::Scop &scop, const std::string &statement) {
    std::vector<int> sizes;
    for (int depth = 0;; ++depth) {
      try {
        sizes.push_back(static_cast<int>(
            compiler::statementBand(scop, statement, depth, "probe", true).n_member()));
      } catch (const Error &) {
        return sizes;
      }
    }
  }

  std::vector<int> permutation(int n) {
    std::vector<int> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng_);
    return order;
  }

  compiler::ScheduleStep fuseCandidate() {
    int count = static_cast<int>(kernel_.statements.size());
    int first = uniform(0, count - 1), last = uniform(first, count - 1);
    compiler::ScheduleStep step{"fuse", {}, {{"depth", {uniform(1, 4)}}}};
    for (int s = first; s <= last; ++s)
      step.statements.push_back(kernel_.statements[static_cast<size_t>(s)].name);
    return step;
  }

  compiler::ScheduleStep candidate(const poly::Scop &current) {
    const std::string &statement = kernel_
                                       .statements[static_cast<size_t>(uniform(
                                           0, static_cast<int>(kernel_.statements.size()) - 1))]
                                       .name;
    std::vector<int> bands = bandSizes(current, statement);
    int kind = uniform(0, 6);
    if (kind == 6 || bands.empty())
      return fuseCandidate();
    int band = uniform(0, static_cast<int>(bands.size()) - 1);
    int members = bands[static_cast<size_t>(band)];
    int member = uniform(0, members - 1);
    std::vector<int> bandArg{band}, memberArg{member};
    switch (kind) {
    case 0:
      return {"interchange", {statement}, {{"order", permutation(bands[0])}}};
    case 1:
      return {"split",
              {statement},
              {{"member", memberArg}, {"factor", {uniform(1, 6)}}, {"band", bandArg}}};
    case 2: {
      std::vector<int> sizes(static_cast<size_t>(uniform(1, members)));
      for (int &size : sizes)
        size = uniform(1, 5);
      return {"tile", {statement}, {{"sizes", sizes}, {"band", bandArg}}};
    }
    case 3:
      return {"unroll",
              {statement},
              {{"member", memberArg}, {"factor", {uniform(2, 4)}}, {"band", bandArg}}};
    case 4: {
      int widths[] = {0, 4, 8};
      return {"vectorize",
              {statement},
              {{"member", {members - 1}},
               {"width", {widths[uniform(0, 2)]}},
               {"band", {static_cast<int>(bands.size()) - 1}}}};
    }
    default:
      return {"parallelize", {statement}, {{"member", memberArg}, {"band", bandArg}}};
    }
  }

  const ir::Kernel &kernel_;
  const poly::Scop &scop_;
  const poly::Dependences &deps_;
  std::mt19937 rng_;
};

} // namespace nasc::test
