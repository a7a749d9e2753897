// Data dependences of a Scop (flow, anti, output; reductions kept apart) and the legality
// questions asked of them: is a band member parallel, is a new schedule valid.
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
/// These transitively reduced sets suffice for legality: a chain of dependences each kept
/// (or each not carried at a loop) keeps (does not carry) their composition.
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

/// Whether band member `member` of `band` (a band node of a schedule tree over `scop`'s
/// domain) carries no dependence, as Polly's Dependences::isParallel: every dependence between
/// instances below `band` whose schedule values are equal on the outer prefix schedule and on
/// the band members before `member` also has equal values at `member`. Reduction dependences
/// count (running a reduction loop in parallel would need privatisation).
/// Throws nasc::Error if `band` is not a band node or `member` is out of range.
bool isParallel(const Scop &scop, const Dependences &deps, const isl::schedule_node &band,
                int member);

/// Whether `schedule` (over `scop`'s domain) keeps every dependence, as Polly's
/// Dependences::isValidSchedule: for each dependence source -> sink, the sink's schedule
/// value is lexicographically greater than the source's. Reduction dependences may be
/// reordered; in exchange every other dependence into (out of) an instance of a reduction
/// group must hold for all instances of that group (the whole reduction runs after its
/// initialisation and before its consumers).
bool isValidSchedule(const Scop &scop, const Dependences &deps, const isl::schedule &schedule);

} // namespace nasc::poly
