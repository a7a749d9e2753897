#include "ir/Program.h"

namespace nasc::ir {

double Program::flops() const {
  double total = 0;
  for (const auto &call : calls)
    total += call.kernel.flops();
  return total;
}

} // namespace nasc::ir
