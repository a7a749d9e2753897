// Data dependences of a Scop (flow, anti, output; reductions kept apart). The legality
// questions asked of them are in polyhedral/Legality.h.
#pragma once

#include "ir/Kernel.h"
#include "polyhedral/Scop.h"

#include <isl/cpp.h>

namespace nasc::poly {

/// Dependences between statement instances of one Scop, as isl::union_map
/// { S[source instance] -> T[sink instance] }, computed under the Scop's initial schedule with
/// isl::union_access_info::compute_flow.
/// - `flow` (RAW): value-based: each read's last preceding write of the same element
///   (sink = reads, must source = writes).
/// - `anti` (WAR): each write's reads of the same element since the previous write
///   (sink = writes, may source = reads, killed by writes).
/// - `output` (WAW): each write's last preceding write of the same element
///   (sink = writes, must source = writes).
/// - `reductions`: the part of flow ∪ anti ∪ output between two instances of one reduction
///   statement (Update::Add/Max, at least one `reduction` dimension, written element
///   independent of the reduction dimensions, no other load of the written tensor) that agree
///   on every non-reduction dimension: reordering these keeps the result up to rounding.
/// - `others`: (flow ∪ anti ∪ output) minus `reductions`.
/// - `groups`: { S[x] -> S[y] } for each reduction statement S, x and y in its domain agreeing
///   on every non-reduction dimension: the instances that one reduction combines.
/// The transitively reduced `others` suffice for legality once `groups` stands in for
/// `reductions` (polyhedral/Legality.h): reduction instances may be reordered, so a chain
/// through a reduction proves nothing about its ends, while a group relates them directly.
struct Dependences {
  isl::union_map flow;
  isl::union_map anti;
  isl::union_map output;
  isl::union_map reductions;
  isl::union_map others;
  isl::union_map groups;

  /// reductions ∪ others.
  isl::union_map all() const { return reductions.unite(others); }
};

/// Computes the dependences of `scop`, built by buildScop from `kernel` (whose Statement
/// update and reduction flags identify the reduction statements).
Dependences computeDependences(const Scop &scop, const ir::Kernel &kernel);

} // namespace nasc::poly
