// Limits on what a file may declare, applied by the readers before they allocate: the bytes
// of one tensor (or any one declared byte count) and the nodes of one graph. Process-wide:
// the tools set them once from --max-bytes / --max-nodes before reading anything; library
// users may do the same. The defaults stay generous for real models (the largest fixtures
// declare a few hundred nodes and MBs).
#pragma once

#include <atomic>
#include <cstdint>

namespace tir {

/// The largest tensor any tir reader accepts by default: 1 TiB.
inline constexpr uint64_t kDefaultMaxTensorBytes = uint64_t{1} << 40;
/// The most nodes one graph (method or subgraph) may have by default: 524,288.
inline constexpr uint64_t kDefaultMaxNodes = uint64_t{1} << 19;
/// Limits above this are clamped, so that two checked sizes still add without overflow.
inline constexpr uint64_t kMaxReadLimit = uint64_t{1} << 62;

struct ReadLimits {
  uint64_t max_bytes = kDefaultMaxTensorBytes;
  uint64_t max_nodes = kDefaultMaxNodes;
};

namespace detail {
inline std::atomic<uint64_t> max_bytes{kDefaultMaxTensorBytes};
inline std::atomic<uint64_t> max_nodes{kDefaultMaxNodes};
}  // namespace detail

inline ReadLimits read_limits() {
  return {detail::max_bytes.load(std::memory_order_relaxed),
          detail::max_nodes.load(std::memory_order_relaxed)};
}

inline void set_read_limits(const ReadLimits& l) {
  detail::max_bytes.store(l.max_bytes < kMaxReadLimit ? l.max_bytes : kMaxReadLimit,
                          std::memory_order_relaxed);
  detail::max_nodes.store(l.max_nodes < kMaxReadLimit ? l.max_nodes : kMaxReadLimit,
                          std::memory_order_relaxed);
}

}  // namespace tir
