#include "compiler/transforms/Interchange.h"

#include "compiler/transforms/BandLookup.h"
#include "compiler/transforms/PrimitiveLegality.h"
#include "polyhedral/IslExtras.h"

#include <algorithm>

namespace nasc::compiler {

namespace {

std::string orderText(const std::vector<int> &order) {
  std::string text = "[";
  for (size_t i = 0; i < order.size(); ++i)
    text += (i ? ", " : "") + std::to_string(order[i]);
  return text + "]";
}

bool isPermutation(const std::vector<int> &order, unsigned members) {
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != static_cast<int>(i))
      return false;
  return sorted.size() == members;
}

/// `band` replaced by a band whose member i is old member order[i], with its flags.
isl::schedule permuteMembers(const isl::schedule_node_band &band, const std::vector<int> &order) {
  isl::multi_union_pw_aff partial = band.partial_schedule();
  isl::multi_union_pw_aff permuted = partial;
  for (size_t i = 0; i < order.size(); ++i)
    permuted = permuted.set_at(static_cast<int>(i), partial.at(order[i]));
  isl::schedule_node child = poly::deleteNode(band);
  auto result = child.insert_partial_schedule(permuted).as<isl::schedule_node_band>();
  result = result.set_permutable(band.permutable());
  for (size_t i = 0; i < order.size(); ++i) {
    result = poly::copyMemberFlags(result, static_cast<int>(i), band, order[i]);
  }
  return result.schedule();
}

} // namespace

isl::schedule interchange(const poly::Scop &scop, const poly::Dependences &deps,
                          const std::string &statement, const std::vector<int> &order) {
  isl::schedule_node_band band = statementBand(scop, statement, 0, "interchange");
  if (!isPermutation(order, band.n_member()))
    throw InvalidPermutation("interchange of statement '" + statement + "': order " +
                             orderText(order) + " is not a permutation of its " +
                             std::to_string(band.n_member()) + " band members");
  isl::schedule schedule = permuteMembers(band, order);
  if (!poly::isValidSchedule(scop, deps, schedule))
    throw IllegalTransformation("interchange of statement '" + statement + "' to order " +
                                orderText(order) + " would break the dependence " +
                                islText(poly::brokenDependences(deps, schedule)));
  return schedule;
}

} // namespace nasc::compiler
