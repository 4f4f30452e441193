// Greedy-by-size memory planner (the TFLM scheme): buffers are placed largest first, each
// at the lowest 64-byte-aligned offset where it overlaps no already-placed buffer whose
// lifetime intersects its own. Lifetimes are inclusive node-index ranges [first, last].
// The result is one arena; `arena_bytes` is what it needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tir {

struct BufferRequest {
  size_t bytes = 0;
  int32_t first_use = 0;  // node index that writes it
  int32_t last_use = 0;   // last node index that reads it (inclusive)
};

struct MemoryPlan {
  std::vector<size_t> offsets;  // parallel to the requests
  size_t arena_bytes = 0;
};

inline constexpr size_t kArenaAlignment = 64;

MemoryPlan plan_memory(const std::vector<BufferRequest>& requests);

}  // namespace tir
