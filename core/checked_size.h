// Overflow-checked size arithmetic for shapes read from files. Every reader that turns
// declared sizes into a byte count goes through checked_nbytes, before it allocates or
// maps anything, so a hostile header (a 2^40-element shape, a product that wraps 64 bits)
// becomes an error naming the field instead of a huge allocation or a wrapped size.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "core/status.h"

namespace tir {

/// The largest tensor any tir reader accepts by default: 1 TiB.
inline constexpr uint64_t kDefaultMaxTensorBytes = uint64_t{1} << 40;

/// The product of `sizes` times `elem_size` in bytes. An error names `what` (e.g.
/// "'x.npy' shape") when a size is negative, the product overflows 64 bits, or the bytes
/// exceed `max_bytes`.
inline Result<uint64_t> checked_nbytes(std::span<const int64_t> sizes, uint64_t elem_size,
                                       std::string_view what,
                                       uint64_t max_bytes = kDefaultMaxTensorBytes) {
  uint64_t n = elem_size;
  bool wrapped = false;
  for (int64_t d : sizes) {
    if (d < 0) return make_error(StatusCode::kCorrupt, what, " has a negative size ", d);
    wrapped = wrapped || __builtin_mul_overflow(n, static_cast<uint64_t>(d), &n);
  }
  // A zero anywhere makes the product zero even if a partial product wrapped.
  for (int64_t d : sizes)
    if (d == 0) return uint64_t{0};
  if (wrapped) return make_error(StatusCode::kCorrupt, what, " overflows 64-bit byte counts");
  if (n > max_bytes)
    return make_error(StatusCode::kCorrupt, what, " declares ", n, " bytes, more than the limit of ",
                      max_bytes);
  return n;
}

}  // namespace tir
