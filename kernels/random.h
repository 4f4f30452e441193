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
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tir::kernels {

/// One Philox4x32-10 block.
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

/// A stream of Philox blocks under one seed. Thread-safe: concurrent runs of a session's
/// contexts reserve disjoint blocks.
///
/// Replay, for the data-dependent probe (runtime/exec/data_dependent.h): before a run whose
/// sizes depend on values, the executor runs part of the method (the probe) to read them; a
/// random node in that part (VITS draws the noise its durations are computed from) must draw
/// in the run what it drew in the probe, or the run's sizes would not be the ones bound. An
/// executor's stream (made over the session's with `RandomStream(&shared)`: the same seed and
/// counter, so still disjoint from other executors') remembers, between replay_begin() and
/// replay_end(), which blocks each node reserved; after each later replay_begin() the node's
/// next reservation of the same size returns them again. Outside replay nothing is kept.
class RandomStream {
 public:
  explicit RandomStream(uint64_t seed) : seed_(seed) {}
  /// Draws from `shared`'s counter (same seed) with replay state of its own.
  explicit RandomStream(RandomStream* shared) : seed_(shared->seed_), shared_(shared) {}
  RandomStream(const RandomStream&) = delete;
  RandomStream& operator=(const RandomStream&) = delete;
  uint64_t seed() const { return seed_; }
  /// Reserves `blocks` consecutive blocks; returns the index of the first.
  uint64_t reserve(uint64_t blocks) {
    return (shared_ ? shared_ : this)->next_.fetch_add(blocks, std::memory_order_relaxed);
  }
  /// reserve(blocks) for node `node`: while replaying, the blocks the node reserved (in the
  /// same size) since replay started, the first not yet returned since the last replay_begin.
  uint64_t reserve(std::string_view node, uint64_t blocks);
  /// Starts replay, or rewinds it: every remembered reservation may be returned again.
  void replay_begin();
  /// Ends replay and forgets what was remembered.
  void replay_end();
  /// Block `index` of this stream.
  std::array<uint32_t, 4> block(uint64_t index) const {
    return philox4x32_10({uint32_t(index), uint32_t(index >> 32), 0, 0},
                         {uint32_t(seed_), uint32_t(seed_ >> 32)});
  }

 private:
  struct Reserved {
    std::string node;
    uint64_t blocks = 0, first = 0;
    bool returned = false;  // since the last replay_begin
  };
  uint64_t seed_;
  RandomStream* shared_ = nullptr;
  std::atomic<uint64_t> next_{0};
  std::mutex mutex_;  // replay state
  bool replaying_ = false;
  std::vector<Reserved> reserved_;
};

/// The stream random kernels draw from when KernelCall::random is null (kernel tests): seed 0,
/// shared by the process.
RandomStream& default_random_stream();

}  // namespace tir::kernels
