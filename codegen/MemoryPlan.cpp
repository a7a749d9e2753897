#include "codegen/MemoryPlan.h"

#include <algorithm>

namespace nasc::codegen {

namespace {

/// Live range [first, last] of a buffer in call indices, and its size in bytes.
struct Lifetime {
  int buffer = -1;
  int first = -1;
  int last = -1;
  int64_t bytes = 0;
};

int64_t alignUp(int64_t value) {
  return (value + kWorkspaceAlignment - 1) / kWorkspaceAlignment * kWorkspaceAlignment;
}

std::vector<Lifetime> tempLifetimes(const ir::Program &program) {
  std::vector<Lifetime> lifetimes(program.buffers.size());
  for (size_t c = 0; c < program.calls.size(); ++c) {
    for (int b : program.calls[c].args) {
      if (program.buffers[b].kind != ir::BufferKind::Temp)
        continue;
      Lifetime &l = lifetimes[b];
      if (l.first < 0)
        l.first = static_cast<int>(c);
      l.last = static_cast<int>(c);
      l.buffer = b;
      l.bytes = alignUp(ir::numElements(program.buffers[b].shape) * int64_t(sizeof(float)));
    }
  }
  std::erase_if(lifetimes, [](const Lifetime &l) { return l.buffer < 0; });
  std::stable_sort(lifetimes.begin(), lifetimes.end(), [](const Lifetime &a, const Lifetime &b) {
    return a.first != b.first ? a.first < b.first : a.bytes > b.bytes;
  });
  return lifetimes;
}

bool overlap(const Lifetime &a, const Lifetime &b) {
  return a.first <= b.last && b.first <= a.last;
}

/// Lowest offset for `buffer` clear of the byte ranges of the placed, simultaneously live ones.
int64_t lowestFreeOffset(const Lifetime &buffer, const std::vector<Lifetime> &placed,
                         const std::vector<int64_t> &offsets) {
  std::vector<std::pair<int64_t, int64_t>> busy;
  for (const Lifetime &other : placed)
    if (overlap(buffer, other))
      busy.emplace_back(offsets[other.buffer], offsets[other.buffer] + other.bytes);
  std::sort(busy.begin(), busy.end());
  int64_t offset = 0;
  for (const auto &[begin, end] : busy) {
    if (offset + buffer.bytes <= begin)
      break;
    offset = std::max(offset, end);
  }
  return offset;
}

} // namespace

MemoryPlan planMemory(const ir::Program &program) {
  MemoryPlan plan;
  plan.offsets.assign(program.buffers.size(), -1);
  std::vector<Lifetime> placed;
  for (const Lifetime &l : tempLifetimes(program)) {
    int64_t offset = lowestFreeOffset(l, placed, plan.offsets);
    plan.offsets[l.buffer] = offset;
    plan.workspaceBytes = std::max(plan.workspaceBytes, offset + l.bytes);
    placed.push_back(l);
  }
  return plan;
}

} // namespace nasc::codegen
