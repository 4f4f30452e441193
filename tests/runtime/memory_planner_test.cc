#include "runtime/passes/memory_planner.h"

#include <gtest/gtest.h>

#include <random>

namespace tir {
namespace {

bool overlap_in_memory(size_t a0, size_t an, size_t b0, size_t bn) {
  return a0 < b0 + bn && b0 < a0 + an;
}

TEST(MemoryPlanner, ReusesMemoryOfDeadBuffers) {
  // A chain a -> b -> c: a is dead when c is written, so c can take a's place.
  std::vector<BufferRequest> r = {{1000, 0, 1}, {1000, 1, 2}, {1000, 2, 3}};
  const MemoryPlan p = plan_memory(r);
  EXPECT_EQ(p.arena_bytes, 2 * 1024u);
  EXPECT_EQ(p.offsets[0], p.offsets[2]);
  EXPECT_NE(p.offsets[0], p.offsets[1]);
}

TEST(MemoryPlanner, RandomPlansNeverOverlapLiveBuffers) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<BufferRequest> r(1 + rng() % 40);
    size_t total = 0;
    for (auto& b : r) {
      b.bytes = rng() % 5000;
      b.first_use = int32_t(rng() % 30);
      b.last_use = b.first_use + int32_t(rng() % 10);
      total += (b.bytes + 63) / 64 * 64;
    }
    const MemoryPlan p = plan_memory(r);
    EXPECT_LE(p.arena_bytes, total);
    for (size_t i = 0; i < r.size(); ++i) {
      EXPECT_EQ(p.offsets[i] % kArenaAlignment, 0u);
      EXPECT_LE(p.offsets[i] + r[i].bytes, p.arena_bytes);
      for (size_t j = i + 1; j < r.size(); ++j) {
        const bool live = r[i].first_use <= r[j].last_use && r[j].first_use <= r[i].last_use;
        if (live && r[i].bytes && r[j].bytes) {
          ASSERT_FALSE(overlap_in_memory(p.offsets[i], r[i].bytes, p.offsets[j], r[j].bytes))
              << "buffers " << i << " and " << j;
        }
      }
    }
  }
}

}  // namespace
}  // namespace tir
