#include "runtime/passes/memory_planner.h"

#include <algorithm>
#include <numeric>

namespace tir {
namespace {

size_t align_up(size_t n) { return (n + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

bool lifetimes_overlap(const BufferRequest& a, const BufferRequest& b) {
  return a.first_use <= b.last_use && b.first_use <= a.last_use;
}

}  // namespace

MemoryPlan plan_memory(const std::vector<BufferRequest>& requests) {
  MemoryPlan plan;
  plan.offsets.assign(requests.size(), 0);
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return requests[a].bytes > requests[b].bytes; });

  std::vector<size_t> placed;  // indices already given an offset
  for (size_t idx : order) {
    const BufferRequest& r = requests[idx];
    const size_t need = align_up(r.bytes);
    if (need == 0) continue;
    // Live neighbours in offset order; take the first gap large enough.
    std::vector<size_t> live;
    for (size_t p : placed)
      if (lifetimes_overlap(r, requests[p])) live.push_back(p);
    std::sort(live.begin(), live.end(),
              [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; });
    size_t offset = 0;
    for (size_t p : live) {
      if (plan.offsets[p] >= offset + need) break;
      offset = std::max(offset, plan.offsets[p] + align_up(requests[p].bytes));
    }
    plan.offsets[idx] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + need);
    placed.push_back(idx);
  }
  return plan;
}

}  // namespace tir
