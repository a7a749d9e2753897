#include "compiler/search/Evolution.h"

#include "compiler/nas/ModelCost.h"
#include "compiler/search/CandidateFeatures.h"
#include "ir/Error.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <utility>

namespace nasc::search {

namespace {

using Steps = std::vector<nas::NeuralStep>;

/// The steps of `steps` on `node`, in order.
Steps stepsOn(const Steps &steps, const std::string &node) {
  Steps on;
  for (const nas::NeuralStep &step : steps)
    if (step.node == node)
      on.push_back(step);
  return on;
}

/// The regressor of ln(seconds) and the classifier of passing the gate, fitted on `history`.
struct Models {
  CostModel seconds, pass;
};

/// Whether the gate passed `scored` (Measured and Failed passed it).
bool passed(const Scored &scored) { return scored.outcome != Scored::Outcome::Refused; }

/// The classifier of passing the gate, fitted on every entry of `history`.
CostModel fitPass(const std::vector<Scored> &history, const CandidateFeatures &features,
                  const CostModelOptions &options) {
  std::vector<std::vector<float>> rows;
  std::vector<float> targets;
  for (const Scored &s : history) {
    rows.push_back(features(s.steps));
    targets.push_back(passed(s) ? 1.0f : 0.0f);
  }
  return CostModel(Objective::Classification, rows, targets, options);
}

Models fit(const std::vector<Scored> &history, const CandidateFeatures &features,
           const CostModelOptions &options) {
  std::vector<std::vector<float>> measured;
  std::vector<float> logSeconds;
  for (const Scored &s : history)
    if (s.outcome == Scored::Outcome::Measured) {
      measured.push_back(features(s.steps));
      logSeconds.push_back(static_cast<float>(std::log(s.seconds)));
    }
  return {CostModel(Objective::Regression, measured, logSeconds, options),
          fitPass(history, features, options)};
}

/// Whether `history` holds at least `count` entries, some passed by the gate and some not.
bool gateRankable(const std::vector<Scored> &history, size_t count) {
  const auto pass = static_cast<size_t>(std::count_if(history.begin(), history.end(), passed));
  return history.size() >= count && pass > 0 && pass < history.size();
}

/// The index of the likeliest to pass of `pass` when none is >= 1/2, else of the least FLOP of
/// those that are: the first of equal ones.
size_t warmupChoice(const std::vector<Candidate> &drawn, const std::vector<float> &pass) {
  const auto likeliest = std::max_element(pass.begin(), pass.end());
  if (*likeliest < 0.5f)
    return static_cast<size_t>(likeliest - pass.begin());
  size_t best = drawn.size();
  double bestFlops = 0;
  for (size_t i = 0; i < drawn.size(); ++i)
    if (pass[i] >= 0.5f) {
      const double flops = nas::modelCost(drawn[i].graph).flops;
      if (best == drawn.size() || flops < bestFlops)
        std::tie(best, bestFlops) = std::pair(i, flops);
    }
  return best;
}

/// One of `draws` sampleCandidate draws with steps (the first draw when none has), chosen
/// by warmupChoice on the gate classifier fitted on `history`.
Candidate gateRankedDraw(const ir::Graph &original, const std::vector<Scored> &history,
                         std::mt19937_64 &rng, const EvolutionOptions &options) {
  std::vector<Candidate> drawn;
  Candidate empty;
  for (size_t i = 0; i < options.draws; ++i)
    if (Candidate c = sampleCandidate(original, rng, options.transforms); !c.steps.empty())
      drawn.push_back(std::move(c));
    else if (i == 0)
      empty = std::move(c);
  if (drawn.empty())
    return empty;
  const CandidateFeatures features(original);
  std::vector<std::vector<float>> rows;
  for (const Candidate &c : drawn)
    rows.push_back(features(c.steps));
  return std::move(
      drawn[warmupChoice(drawn, fitPass(history, features, options.model).predict(rows))]);
}

/// The searchable Convs of the original and the steps each offers there.
struct Space {
  std::vector<std::string> convs;
  std::vector<Steps> choices;
};

Space space(const ir::Graph &original, const std::vector<std::string> &transforms) {
  Space s{searchableConvs(original), {}};
  for (const std::string &node : s.convs)
    s.choices.push_back(stepChoices(original, node, transforms));
  return s;
}

/// The fastest of `size` entries drawn uniformly (with repetition) from `population` (indices
/// of Measured entries of `history`); the first drawn of equal ones.
const Scored &tournament(const std::vector<Scored> &history, const std::vector<size_t> &population,
                         size_t size, std::mt19937_64 &rng) {
  const Scored *best = nullptr;
  for (size_t i = 0; i < size; ++i) {
    const Scored &drawn = history[population[uniformIndex(rng, population.size())]];
    if (!best || drawn.seconds < best->seconds)
      best = &drawn;
  }
  return *best;
}

/// The steps of a child of `first` and, when not null, `second`, Conv by Conv: uniform
/// crossover, then with probability 1 / N a mutation (removed, or one step of the Conv's choices).
Steps breed(const Space &space, const Scored &first, const Scored *second, std::mt19937_64 &rng) {
  Steps child;
  const double mutation = 1.0 / static_cast<double>(space.convs.size());
  for (size_t c = 0; c < space.convs.size(); ++c) {
    const Scored &parent = second && uniform(rng) < 0.5 ? *second : first;
    Steps steps = stepsOn(parent.steps, space.convs[c]);
    if (uniform(rng) < mutation) {
      const Steps &choices = space.choices[c];
      const bool remove = choices.empty() || (!steps.empty() && uniform(rng) < 0.5);
      steps = remove ? Steps{} : Steps{choices[uniformIndex(rng, choices.size())]};
    }
    child.insert(child.end(), steps.begin(), steps.end());
  }
  return child;
}

/// Up to options.pool distinct children's steps, none empty or equal to a history entry's; at
/// most 4·pool tries.
std::vector<Steps> children(const ir::Graph &original, const std::vector<Scored> &history,
                            const std::vector<size_t> &population, std::mt19937_64 &rng,
                            const EvolutionOptions &options) {
  const Space s = space(original, options.transforms);
  std::set<std::string> seen;
  for (const Scored &scored : history)
    seen.insert(nas::stepsText(scored.steps));
  std::vector<Steps> pool;
  for (size_t tries = 0; tries < 4 * options.pool && pool.size() < options.pool; ++tries) {
    const Scored &first = tournament(history, population, options.tournament, rng);
    const Scored *second = uniform(rng) < options.crossover
                               ? &tournament(history, population, options.tournament, rng)
                               : nullptr;
    Steps child = breed(s, first, second, rng);
    if (!child.empty() && seen.insert(nas::stepsText(child)).second)
      pool.push_back(std::move(child));
  }
  return pool;
}

/// The indices of `pool` by increasing predicted ln(seconds) − ln(max(P(pass), 1e-6)), equal
/// ones in pool order.
std::vector<size_t> ranked(const std::vector<Steps> &pool, const Models &models,
                           const CandidateFeatures &features) {
  std::vector<std::vector<float>> rows;
  for (const Steps &child : pool)
    rows.push_back(features(child));
  const std::vector<float> logSeconds = models.seconds.predict(rows);
  const std::vector<float> pass = models.pass.predict(rows);
  std::vector<double> score;
  for (size_t i = 0; i < pool.size(); ++i)
    score.push_back(logSeconds[i] - std::log(std::max(static_cast<double>(pass[i]), 1e-6)));
  std::vector<size_t> order(pool.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return score[a] < score[b]; });
  return order;
}

/// `steps` applied to `original` (addStep); after a refused step the rest on its Conv dropped.
Candidate build(const ir::Graph &original, const Steps &steps) {
  Candidate candidate{{}, original, {}};
  std::string dropped;
  for (const nas::NeuralStep &step : steps)
    if (step.node != dropped && !addStep(candidate, step))
      dropped = step.node;
  return candidate;
}

/// Whether `candidate` has steps and none of `history` has the same.
bool isNew(const Candidate &candidate, const std::vector<Scored> &history) {
  const std::string k = nas::stepsText(candidate.steps);
  return !candidate.steps.empty() &&
         std::none_of(history.begin(), history.end(),
                      [&](const Scored &s) { return nas::stepsText(s.steps) == k; });
}

} // namespace

Candidate proposeCandidate(const ir::Graph &original, const std::vector<Scored> &history,
                           std::mt19937_64 &rng, const EvolutionOptions &options) {
  if (options.population == 0 || options.tournament == 0 || options.pool == 0 || options.draws == 0)
    throw Error("evolution: population, tournament, pool and draws must be at least 1");
  std::vector<size_t> measured;
  for (size_t i = 0; i < history.size(); ++i)
    if (history[i].outcome == Scored::Outcome::Measured)
      measured.push_back(i);
  if (measured.size() < std::max<size_t>(options.warmup, 1))
    return gateRankable(history, options.gateWarmup)
               ? gateRankedDraw(original, history, rng, options)
               : sampleCandidate(original, rng, options.transforms);
  if (uniform(rng) < options.epsilon)
    return sampleCandidate(original, rng, options.transforms);
  const std::vector<size_t> population(
      measured.end() - static_cast<std::ptrdiff_t>(std::min(options.population, measured.size())),
      measured.end());
  const std::vector<Steps> pool = children(original, history, population, rng, options);
  if (!pool.empty()) {
    const CandidateFeatures features(original);
    for (size_t i : ranked(pool, fit(history, features, options.model), features))
      if (Candidate child = build(original, pool[i]); isNew(child, history))
        return child;
  }
  return sampleCandidate(original, rng, options.transforms);
}

} // namespace nasc::search
