#include "core/quantize.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tir {
namespace {

int8_t quantize_one(float x, float inv_scale) {
  const float r = std::nearbyint(x * inv_scale);  // the default rounding: half to even
  return static_cast<int8_t>(std::clamp(r, -127.0f, 127.0f));
}

float channel_scale(float max_abs) { return max_abs > 0 ? max_abs / 127.0f : 1.0f; }

}  // namespace

void quantize_int8_per_channel(const float* w, int64_t rows, int64_t cols, int axis, int8_t* q,
                               float* scales) {
  if (axis == 0) {
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = w + r * cols;
      float m = 0;
      for (int64_t c = 0; c < cols; ++c) m = std::max(m, std::fabs(row[c]));
      scales[r] = channel_scale(m);
      const float inv = 1.0f / scales[r];
      for (int64_t c = 0; c < cols; ++c) q[r * cols + c] = quantize_one(row[c], inv);
    }
    return;
  }
  std::vector<float> max_abs(size_t(cols), 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      max_abs[size_t(c)] = std::max(max_abs[size_t(c)], std::fabs(w[r * cols + c]));
  std::vector<float> inv(static_cast<size_t>(cols));
  for (int64_t c = 0; c < cols; ++c) {
    scales[c] = channel_scale(max_abs[size_t(c)]);
    inv[size_t(c)] = 1.0f / scales[c];
  }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      q[r * cols + c] = quantize_one(w[r * cols + c], inv[size_t(c)]);
}

void dequantize_int8_per_channel(const int8_t* q, const float* scales, int64_t rows, int64_t cols,
                                 int axis, float* w, const float* inv_smooth) {
  for (int64_t r = 0; r < rows; ++r) {
    const int8_t* qr = q + r * cols;
    float* wr = w + r * cols;
    if (axis == 0) {
      const float s = scales[r];
      for (int64_t c = 0; c < cols; ++c) wr[c] = float(qr[c]) * s;
      if (inv_smooth)
        for (int64_t c = 0; c < cols; ++c) wr[c] *= inv_smooth[c];
    } else {
      for (int64_t c = 0; c < cols; ++c) wr[c] = float(qr[c]) * scales[c];
      if (inv_smooth)
        for (int64_t c = 0; c < cols; ++c) wr[c] *= inv_smooth[r];
    }
  }
}

float smooth_factor(float max_abs_activation, float max_abs_weight, float alpha) {
  if (!(max_abs_activation > 0) || !(max_abs_weight > 0) || !std::isfinite(max_abs_activation) ||
      !std::isfinite(max_abs_weight))
    return 1.0f;
  const double s = std::pow(double(max_abs_activation), double(alpha)) /
                   std::pow(double(max_abs_weight), 1.0 - double(alpha));
  return float(std::clamp(s, 1e-4, 1e4));
}

}  // namespace tir
