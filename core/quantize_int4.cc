#include "core/quantize_int4.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tir {

void quantize_int4_groups(const float* w, int64_t rows, int64_t cols, int64_t group,
                          bool asymmetric, uint8_t* stored) {
  const size_t total = int4_stored_bytes(rows, cols, group, asymmetric);
  std::memset(stored, 0, total);
  const Int4View v = int4_view(stored, rows, cols, group, asymmetric);
  auto* scales = const_cast<float*>(v.scales);
  auto* offsets = const_cast<float*>(v.offsets);
  uint8_t* codes = stored;
  const int64_t groups = cols / group;
  uint8_t q[kInt4Block];
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = w + r * cols;
    for (int64_t g = 0; g < groups; ++g) {
      const float* x = row + g * group;
      float s = 1.0f, m = 0.0f;
      if (asymmetric) {
        const auto [lo, hi] = std::minmax_element(x, x + group);
        s = (*hi - *lo) / 15.0f;
        m = *lo;
      } else {
        float extreme = 0.0f;
        for (int64_t i = 0; i < group; ++i)
          if (std::fabs(x[i]) > std::fabs(extreme)) extreme = x[i];
        if (extreme != 0.0f) s = extreme / -8.0f;
        m = -8.0f * s;
      }
      scales[r * groups + g] = s;
      if (offsets) offsets[r * groups + g] = m;
      const float inv = s != 0.0f ? 1.0f / s : 0.0f;
      for (int64_t b = 0; b < group; b += kInt4Block) {
        for (int64_t i = 0; i < kInt4Block; ++i) {
          const float c = asymmetric ? std::nearbyint((x[b + i] - m) * inv)
                                     : std::nearbyint(x[b + i] * inv) + 8.0f;
          q[i] = uint8_t(std::clamp(c, 0.0f, 15.0f));  // NaN: clamp keeps it, cast below
          if (!(c >= 0.0f)) q[i] = asymmetric ? 0 : 8;
        }
        uint8_t* out = codes + (r * cols + g * group + b) / 2;
        for (int i = 0; i < 16; ++i) out[i] = uint8_t(q[i] | (q[i + 16] << 4));
      }
    }
  }
}

void int4_unpack_block(const uint8_t* bytes, uint8_t* q) {
  for (int i = 0; i < 16; ++i) {
    q[i] = bytes[i] & 0x0f;
    q[i + 16] = bytes[i] >> 4;
  }
}

Int4View int4_view(const uint8_t* stored, int64_t rows, int64_t cols, int64_t group,
                   bool asymmetric) {
  Int4View v;
  v.codes = stored;
  v.scales = reinterpret_cast<const float*>(stored + int4_scales_offset(rows, cols));
  if (asymmetric)
    v.offsets = reinterpret_cast<const float*>(stored + int4_offsets_offset(rows, cols, group));
  v.rows = rows, v.cols = cols, v.group = group;
  return v;
}

void dequantize_int4_rows(const Int4View& v, int64_t r0, int64_t r1, float* w) {
  const int64_t groups = v.cols / v.group;
  uint8_t q[kInt4Block];
  for (int64_t r = r0; r < r1; ++r) {
    float* out = w + (r - r0) * v.cols;
    for (int64_t b = 0; b < v.cols; b += kInt4Block) {
      const int64_t g = r * groups + b / v.group;
      const float s = v.scales[g], m = v.offsets ? v.offsets[g] : -8.0f * s;
      int4_unpack_block(v.codes + (r * v.cols + b) / 2, q);
      for (int i = 0; i < kInt4Block; ++i) out[b + i] = float(q[i]) * s + m;
    }
  }
}

}  // namespace tir
