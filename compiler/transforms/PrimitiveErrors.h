// Typed errors of the schedule primitives split, tile, fuse, parallelize, vectorize and
// unroll (compiler/transforms), besides those of TransformErrors.h: one class per further way a
// request can be refused.
#pragma once

#include "compiler/transforms/TransformErrors.h"
#include "ir/Error.h"

#include <string>

namespace nasc::compiler {

/// A split factor or tile size is below 1, an unroll factor below 2, or a vector width not 0 or
/// a power of two in 2 .. 64.
class InvalidFactor : public ScheduleRefusal {
public:
  explicit InvalidFactor(const std::string &message) : ScheduleRefusal(message) {}
};

/// A band member index is outside the band, or more tile sizes than members were given.
class MemberOutOfRange : public ScheduleRefusal {
public:
  explicit MemberOutOfRange(const std::string &message) : ScheduleRefusal(message) {}
};

/// The statement has fewer nested bands than the requested band depth.
class NoSuchBand : public ScheduleRefusal {
public:
  explicit NoSuchBand(const std::string &message) : ScheduleRefusal(message) {}
};

/// A loop asked to run in parallel or as vector code carries a dependence (reductions
/// included); `what()` names the carried dependence instances in isl notation.
class CarriedDependence : public ScheduleRefusal {
public:
  explicit CarriedDependence(const std::string &message) : ScheduleRefusal(message) {}
};

/// A loop asked to run in parallel has at most one iteration: isl's AST drops it, so a mark on
/// it would land on the loop below.
class SingleIteration : public ScheduleRefusal {
public:
  explicit SingleIteration(const std::string &message) : ScheduleRefusal(message) {}
};

/// A loop asked to run in parallel is inside, or contains, a loop already marked parallel.
class NestedParallelism : public ScheduleRefusal {
public:
  explicit NestedParallelism(const std::string &message) : ScheduleRefusal(message) {}
};

/// A loop asked to be vectorized is not the statement's innermost loop.
class NotInnermost : public ScheduleRefusal {
public:
  explicit NotInnermost(const std::string &message) : ScheduleRefusal(message) {}
};

/// The statements named for fusion are fewer than two, named twice, not whole consecutive
/// children of the schedule's top-level sequence in sequence order, or already one child.
class InvalidFusion : public ScheduleRefusal {
public:
  explicit InvalidFusion(const std::string &message) : ScheduleRefusal(message) {}
};

/// A schedule tree holds a node type that the subtree copy (ScheduleTreeCopy.h) cannot rebuild.
class UnsupportedScheduleNode : public ScheduleRefusal {
public:
  explicit UnsupportedScheduleNode(const std::string &message) : ScheduleRefusal(message) {}
};

} // namespace nasc::compiler
