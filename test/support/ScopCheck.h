// Catch check shared by the tests of the neural transformations' isl forms.
#pragma once

#include "compiler/nas/NeuralScop.h"

#include <catch2/catch.hpp>

namespace nasc::test {

/// Checks that `rewritten` has exactly the domain, reads and writes of `expected` (isl
/// is_equal), printing both when it does not.
inline void checkSameRelations(const nas::ScopRelations &rewritten,
                               const nas::ScopRelations &expected) {
  INFO("rewritten: " << rewritten.domain << "\n  reads " << rewritten.reads << "\n  writes "
                     << rewritten.writes << "\nexpected: " << expected.domain << "\n  reads "
                     << expected.reads << "\n  writes " << expected.writes);
  CHECK(rewritten.domain.is_equal(expected.domain));
  CHECK(rewritten.reads.is_equal(expected.reads));
  CHECK(rewritten.writes.is_equal(expected.writes));
}

} // namespace nasc::test
