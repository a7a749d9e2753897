// Producers write into their reader's padded copy: when pad_input left a kernel K copying a
// whole temporary activation T into a padded tensor T_p of its own (T_p[i + before] = T[i],
// the halo written with zeros by K's other statements), and one earlier kernel writes T, that
// kernel writes T_p[i + before] instead, every other reader of T reads T_p there, and K's copy
// is dropped. The activation then lives once, with its halo, as oneDNN's and TVM's padded
// producers keep it; K fills only the halo.
#pragma once

#include "ir/Program.h"

namespace nasc::compiler {

/// Applies the rewrite above to every pad copy of `program` it can; returns how many copies it
/// removed. A copy stays when T is not a Temp (a graph input), is written by more than one
/// kernel or by K itself, when T_p is bound by another kernel, or when another statement of K
/// writes T_p inside the copied box. Kernel tensors no longer used are unbound, so the
/// workspace plan drops T; T_p is then live from T's writer to T's last reader.
int forwardPaddedInputs(ir::Program &program);

} // namespace nasc::compiler
