// Overflow-checked size arithmetic for shapes read from files. Every reader that turns
// declared sizes into a byte count goes through checked_nbytes, before it allocates or
// maps anything, so a hostile header (a 2^40-element shape, a product that wraps 64 bits)
// becomes an error naming the field instead of a huge allocation or a wrapped size.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "core/read_limits.h"
#include "core/status.h"

namespace tir {

/// The product of `sizes` times `elem_size` in bytes. An error names `what` (e.g.
/// "'x.npy' shape") when a size is negative, the product of the non-zero sizes (elements
/// or bytes) overflows 64 bits, or the bytes exceed `max_bytes` (by default the process-wide
/// read_limits(), `--max-bytes` of the tools).
inline Result<uint64_t> checked_nbytes(std::span<const int64_t> sizes, uint64_t elem_size,
                                       std::string_view what,
                                       uint64_t max_bytes = read_limits().max_bytes) {
  // The product of the non-zero sizes must fit int64 even when a zero makes the tensor
  // empty: Tensor::numel multiplies them all in int64.
  uint64_t n = elem_size;
  int64_t numel = 1;
  bool empty = false;
  for (int64_t d : sizes) {
    if (d < 0) return make_error(StatusCode::kCorrupt, what, " has a negative size ", d);
    if (d == 0) {
      empty = true;
      continue;
    }
    if (__builtin_mul_overflow(numel, d, &numel) ||
        __builtin_mul_overflow(n, static_cast<uint64_t>(d), &n))
      return make_error(StatusCode::kCorrupt, what, " overflows 64-bit byte counts");
  }
  if (empty) return uint64_t{0};
  if (n > max_bytes)
    return make_error(StatusCode::kCorrupt, what, " declares ", n,
                      " bytes, more than the limit of ", max_bytes, " (--max-bytes)");
  return n;
}

}  // namespace tir
