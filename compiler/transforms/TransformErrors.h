// Typed errors of the schedule transformations (compiler/transforms): one class per way a
// transformation request can be refused, so callers (search, CLI) can tell them apart.
#pragma once

#include "ir/Error.h"

#include <string>

namespace nasc::compiler {

/// A request a schedule or layout primitive refuses, for a reason it names: every typed refusal
/// (this file, PrimitiveErrors.h, the layout primitives' NotBlockable, NotZeroPadded,
/// NotSubsampled) derives from it. Any other nasc::Error a primitive throws is a malformed
/// request (an unknown argument, a wrong argument count), which a caller trying steps (the
/// default trace) lets through instead of recording it as refused.
class ScheduleRefusal : public Error {
public:
  explicit ScheduleRefusal(const std::string &message) : Error(message) {}
};

/// The transformation is well formed but would break a dependence; `what()` names the broken
/// dependence instances in isl notation, e.g. "{ S[i, j] -> S[i' = 1 + i, j' = -1 + j] : ... }".
class IllegalTransformation : public ScheduleRefusal {
public:
  explicit IllegalTransformation(const std::string &message) : ScheduleRefusal(message) {}
};

/// The request does not name a statement of the Scop's schedule.
class UnknownStatement : public ScheduleRefusal {
public:
  explicit UnknownStatement(const std::string &message) : ScheduleRefusal(message) {}
};

/// The request's loop order is not a permutation of the statement's band members.
class InvalidPermutation : public ScheduleRefusal {
public:
  explicit InvalidPermutation(const std::string &message) : ScheduleRefusal(message) {}
};

} // namespace nasc::compiler
