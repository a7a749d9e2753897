// Typed errors of the schedule primitives split and tile (compiler/transforms), besides those of
// TransformErrors.h: one class per further way a request can be refused.
#pragma once

#include "ir/Error.h"

#include <string>

namespace nasc::compiler {

/// A split factor or tile size is below 1.
class InvalidFactor : public Error {
public:
  explicit InvalidFactor(const std::string &message) : Error(message) {}
};

/// A band member index is outside the band, or more tile sizes than members were given.
class MemberOutOfRange : public Error {
public:
  explicit MemberOutOfRange(const std::string &message) : Error(message) {}
};

/// The statement has fewer nested bands than the requested band depth.
class NoSuchBand : public Error {
public:
  explicit NoSuchBand(const std::string &message) : Error(message) {}
};

} // namespace nasc::compiler
