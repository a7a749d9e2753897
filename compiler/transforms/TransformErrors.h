// Typed errors of the schedule transformations (compiler/transforms): one class per way a
// transformation request can be refused, so callers (search, CLI) can tell them apart.
#pragma once

#include "ir/Error.h"

#include <string>

namespace nasc::compiler {

/// The transformation is well formed but would break a dependence; `what()` names the broken
/// dependence instances in isl notation, e.g. "{ S[i, j] -> S[i' = 1 + i, j' = -1 + j] : ... }".
class IllegalTransformation : public Error {
public:
  explicit IllegalTransformation(const std::string &message) : Error(message) {}
};

/// The request does not name a statement of the Scop's schedule.
class UnknownStatement : public Error {
public:
  explicit UnknownStatement(const std::string &message) : Error(message) {}
};

/// The request's loop order is not a permutation of the statement's band members.
class InvalidPermutation : public Error {
public:
  explicit InvalidPermutation(const std::string &message) : Error(message) {}
};

} // namespace nasc::compiler
