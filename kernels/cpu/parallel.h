// Splits [0, n) into contiguous chunks run on OpenMP threads when the work is large
// enough to pay for the fork; small work runs inline on the calling thread.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tir::kernels {

/// Calls f(begin, end) over chunks of [0, n); `grain` is the minimum chunk size.
template <typename F>
void parallel_chunks(int64_t n, int64_t grain, F&& f) {
  if (n <= grain) {
    if (n > 0) f(int64_t{0}, n);
    return;
  }
  const int64_t chunks = (n + grain - 1) / grain;
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    f(c * grain, std::min(n, (c + 1) * grain));
  }
}

}  // namespace tir::kernels
