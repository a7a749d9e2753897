#include "compiler/transforms/Tile.h"

#include "compiler/transforms/BandLookup.h"
#include "compiler/transforms/PrimitiveLegality.h"

#include "polyhedral/IslExtras.h"

#include <algorithm>

namespace nasc::compiler {

namespace {

std::string sizesText(const std::vector<int> &sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i)
    text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

/// Throws IllegalTransformation naming the first tiled member that runs a dependence backwards.
void checkPermutable(const isl::schedule_node_band &band, const poly::Dependences &deps,
                     int members, const std::string &request) {
  for (int i = 0; i < members; ++i) {
    isl::union_map reversed = poly::reversedAtMember(deps, band, i);
    if (!reversed.is_empty())
      throw IllegalTransformation(request + " needs band members 0 .. " +
                                  std::to_string(members - 1) + " permutable, but member " +
                                  std::to_string(i) + " runs the dependence " + islText(reversed) +
                                  " backwards");
  }
}

isl::multi_val tileSizes(const isl::schedule_node_band &band, const std::vector<int> &sizes) {
  isl::multi_val result = isl::multi_val::zero(poly::bandSpace(band));
  for (size_t i = 0; i < sizes.size(); ++i)
    result = result.set_at(static_cast<int>(i), isl::val(band.ctx(), sizes[i]));
  return result;
}

/// `band`'s first sizes.size() members tiled, the tile band marked permutable.
isl::schedule tileLeadingMembers(isl::schedule_node_band band, const std::vector<int> &sizes) {
  int tiled = static_cast<int>(sizes.size());
  if (tiled < static_cast<int>(band.n_member()))
    band = band.split(tiled);
  poly::UnscaledTiling options(band.ctx());
  isl::schedule_node_band tiles = band.tile(tileSizes(band, sizes));
  return tiles.set_permutable(1).schedule();
}

} // namespace

isl::schedule tile(const poly::Scop &scop, const poly::Dependences &deps,
                   const std::string &statement, const std::vector<int> &sizes, int band) {
  std::string request = "tile of statement '" + statement + "' with sizes " + sizesText(sizes);
  if (std::any_of(sizes.begin(), sizes.end(), [](int size) { return size < 1; }))
    throw InvalidFactor(request + ": every size must be at least 1");
  isl::schedule_node_band node = statementBand(scop, statement, band, "tile");
  int members = static_cast<int>(node.n_member());
  if (sizes.empty() || static_cast<int>(sizes.size()) > members)
    throw MemberOutOfRange(request + ": needs 1 .. " + std::to_string(members) +
                           " sizes, one per leading member of its band");
  checkPermutable(node, deps, static_cast<int>(sizes.size()), request);
  isl::schedule schedule = tileLeadingMembers(node, sizes);
  if (!poly::isValidSchedule(scop, deps, schedule))
    throw IllegalTransformation(request + " would break the dependence " +
                                islText(poly::brokenDependences(deps, schedule)));
  return schedule;
}

} // namespace nasc::compiler
