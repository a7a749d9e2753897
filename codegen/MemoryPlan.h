// Workspace layout of a Program's Temp buffers: offsets reused once a buffer's lifetime ended.
#pragma once

#include "ir/Program.h"

#include <cstdint>
#include <vector>

namespace nasc::codegen {

/// Byte alignment of every workspace offset (one cache line, the widest AVX-512 vector).
inline constexpr int64_t kWorkspaceAlignment = 64;

/// Where the Temp buffers live in the workspace.
struct MemoryPlan {
  /// Per program buffer: its byte offset in the workspace, or -1 if it is not a Temp buffer
  /// or no call uses it.
  std::vector<int64_t> offsets;
  /// Workspace size in bytes (a multiple of kWorkspaceAlignment; 0 without Temp buffers).
  int64_t workspaceBytes = 0;
};

/// Plans the workspace of `program`. A Temp buffer is live from the first to the last call
/// that binds it (inclusive); two buffers share bytes only if their lifetimes are disjoint.
/// Greedy: buffers in order of first use, larger first on ties, each at the lowest
/// 64-byte-aligned offset that overlaps no placed buffer with an overlapping lifetime.
MemoryPlan planMemory(const ir::Program &program);

} // namespace nasc::codegen
