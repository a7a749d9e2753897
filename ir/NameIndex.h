// The index of a name in a fixed list of CLI names (policies, strategies), with one error for an
// unknown one.
#pragma once

#include "ir/Error.h"

#include <cstddef>
#include <string>
#include <vector>

namespace nasc {

/// The index of `name` in `names`. Throws nasc::Error "<unknown> '<name>' (expected one of a, b,
/// c)" when `names` does not hold it, e.g. unknown = "search: unknown strategy".
inline size_t nameIndex(const std::vector<std::string> &names, const std::string &name,
                        const std::string &unknown) {
  std::string list;
  for (size_t k = 0; k < names.size(); ++k) {
    if (names[k] == name)
      return k;
    list += (k ? ", " : "") + names[k];
  }
  throw Error(unknown + " '" + name + "' (expected one of " + list + ")");
}

} // namespace nasc
