// The generator of tir's random ops (aten::rand, randn, randperm, rand_like, randn_like).
//
// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011; the generator torch's CUDA kernels use), a counter-based generator: block k of a
// stream is philox(counter = (k low 32 bits, k high 32 bits, 0, 0), key = (seed low 32 bits,
// seed high 32 bits)), four uint32 values. A RandomStream hands out consecutive blocks, so a
// session with a given seed draws the same values run after run of the same program: each
// random node, in execution order, takes the next blocks it needs. The draws (random.cc):
//   rand:     u = (x >> 8) * 2^-24, one value per uint32 x: [0, 1) on the float32 grid.
//   randn:    Box-Muller on consecutive pairs (x0, x1): r = sqrt(-2 ln(((x0 >> 8) + 1) * 2^-24)),
//             z0 = r cos(2 pi u1), z1 = r sin(2 pi u1) with u1 from x1 as for rand (in double).
//   randperm: Fisher-Yates from the last index down: i swaps with j = (y * (i + 1)) >> 64, y a
//             uint64 from two consecutive uint32 values (low word first).
// The values differ from torch's CPU generator (mt19937): programs that draw random numbers
// match torch in distribution, not element by element.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

namespace tir::kernels {

/// One Philox4x32-10 block.
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

/// A stream of Philox blocks under one seed. Thread-safe: concurrent runs of a session's
/// contexts reserve disjoint blocks.
class RandomStream {
 public:
  explicit RandomStream(uint64_t seed) : seed_(seed) {}
  uint64_t seed() const { return seed_; }
  /// Reserves `blocks` consecutive blocks; returns the index of the first.
  uint64_t reserve(uint64_t blocks) { return next_.fetch_add(blocks, std::memory_order_relaxed); }
  /// Block `index` of this stream.
  std::array<uint32_t, 4> block(uint64_t index) const {
    return philox4x32_10({uint32_t(index), uint32_t(index >> 32), 0, 0},
                         {uint32_t(seed_), uint32_t(seed_ >> 32)});
  }

 private:
  uint64_t seed_;
  std::atomic<uint64_t> next_{0};
};

/// The stream random kernels draw from when KernelCall::random is null (kernel tests): seed 0,
/// shared by the process.
RandomStream& default_random_stream();

}  // namespace tir::kernels
