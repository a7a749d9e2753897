#include "tools/nasc/GateArgs.h"

#include "compiler/nas/ExpansionRule.h"
#include "ir/Error.h"

#include <sstream>

namespace nasc::cli {

nas::GateParams gateParams(const GateArgs &args, nas::Policy policy) {
  nas::GateParams params;
  params.theta = args.theta;
  params.expansionRule = !args.noExpansionRule;
  params.synflowShareTolerance = args.shareTolerance;
  params.layerWeightFloor = args.weightFloor;
  if (!args.tolerance)
    return params;
  if (!params.tolerances.count(policy))
    throw Error(
        "capacity: --tolerance applies to the synflow, jacob_cov and train-loss "
        "policies, not to '" +
        args.policy + "' (" +
        (policy == nas::Policy::Vote ? "its members use their own tolerances" : "use --theta") +
        ")");
  params.tolerances[policy] = *args.tolerance;
  return params;
}

nas::CapacityOptions capacityOptions(const GateArgs &args) {
  nas::CapacityOptions options;
  options.fisher.batch = args.batch;
  options.fisher.seed = args.seed;
  options.fisher.seeds = args.seeds;
  options.fisher.threads = args.threads;
  options.training.seed = args.seed;
  options.training.seeds = args.seeds;
  options.training.steps = args.steps;
  return options;
}

namespace {

/// --policy help: one line per policy.
const char *kPolicyHelp =
    "Decision rule, one of:\n"
    "paper: Fisher Potential FP(new) >= theta * FP(original) (Turner et al. 2021)\n"
    "fisher-layer: min over Conv layers (by name) of FP_l(new) / FP_l(original) >= theta\n"
    "fisher-seeds: FP(new) >= theta * FP(original) in a majority of the paired seeds\n"
    "synflow: ln synflow(new) - ln synflow(original) >= -tolerance (synflow is measured as its\n"
    "  natural log), no Conv layer's share of it\n"
    "  falling by more than --share-tolerance, none keeping less than --weight-floor of its "
    "weights\n"
    "jacob_cov: jacob_cov(new) - jacob_cov(original) >= -tolerance (log-determinants)\n"
    "train-loss: train_loss(new) <= train_loss(original) + tolerance\n"
    "vote: at least 2 of synflow, jacob_cov, train-loss legal";

/// --tolerance help with the default of each policy that has one.
std::string toleranceHelp() {
  std::ostringstream help;
  help << "Tolerance of the selected policy (defaults";
  std::string separator = ": ";
  for (const auto &[policy, tolerance] : nas::kDefaultTolerances) {
    help << separator << nas::policyName(policy) << " " << tolerance;
    separator = ", ";
  }
  help << ")";
  return help.str();
}

/// The --steps help with the other short-training defaults.
std::string stepsHelp() {
  const nas::ShortTrainingOptions training;
  std::ostringstream help;
  help << "SGD steps of train_loss (batch " << training.batch << ", lr " << training.lr
       << ", mean loss of the last " << training.window << " steps)";
  return help.str();
}

} // namespace

void addGateOptions(CLI::App &cmd, GateArgs &args, const GateOptionSet &set) {
  cmd.add_option("--policy", args.policy, kPolicyHelp)
      ->check(CLI::IsMember(nas::policyNames()))
      ->capture_default_str();
  cmd.add_option("--theta", args.theta, "Threshold of paper, fisher-layer and fisher-seeds")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_option("--tolerance", args.tolerance, toleranceHelp())->check(CLI::NonNegativeNumber);
  cmd.add_option("--share-tolerance", args.shareTolerance,
                 "With synflow (also in vote): the most, in natural log, by which a Conv layer's "
                 "share of the synflow total may fall (a branch such as a shortcut projection, "
                 "which the total does not see; docs/capacity.md)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_option("--weight-floor", args.weightFloor,
                 "With synflow (also in vote): the smallest fraction of its weights a conv layer "
                 "of the original may keep (steps stacked on one layer compound, which synflow "
                 "does not see; docs/capacity.md)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd.add_option("--batch", args.batch, "Images in the zero-cost proxies' batch")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  if (set.seed)
    cmd.add_option("--seed", args.seed, "Seed of the first He initialisation")
        ->capture_default_str();
  cmd.add_option("--seeds", args.seeds,
                 "Initialisations averaged (every proxy; fisher-seeds pairs them)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option("--steps", args.steps, stepsHelp())
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option(set.threads, args.threads,
                 "Seeds of a zero-cost proxy measured at the same time (the values do not depend "
                 "on it; memory grows with it)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_flag("--no-expansion-rule", args.noExpansionRule,
               "Do not refuse upsampling Resizes the original lacks that enlarge a dim more than " +
                   std::to_string(nas::kMaxExpansionFactor) +
                   "x or are read by anything but a stride-1 Conv with a window (the "
                   "spatial-expansion rule, docs/capacity.md); the policy alone decides");
  if (set.policyOnly)
    cmd.add_flag("--policy-only", args.policyOnly,
                 "Measure only the proxies --policy reads (the report then lists only those and "
                 "the decisions of the policies they decide)");
}

nas::CapacityReport runGate(const GateArgs &args, const ir::Graph &original,
                            const ir::Graph &transformed) {
  const nas::Policy policy = nas::parsePolicy(args.policy);
  return nas::runCapacityGate(original, transformed, policy, capacityOptions(args),
                              gateParams(args, policy),
                              args.policyOnly ? nas::proxiesOf(policy) : nas::capacityProxyNames());
}

} // namespace nasc::cli
