// Reference pooling: aten::max_pool2d, aten::max_pool2d_with_indices,
// aten::adaptive_avg_pool2d, aten::adaptive_max_pool1d/2d, aten::max_unpool2d.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/kernel_util.h"
#include "kernels/reference/nan.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {

namespace {

// Same window walk as ATen: start at the first in-bounds tap, NaN wins, ties keep the first.
template <typename T>
void max_pool2d_typed(const MaxPoolParams& p, const KernelCall& call) {
  const T* x = call.inputs[p.input].data_as<const T>();
  T* y = call.outputs[0].data_as<T>();
  int64_t* idx = call.outputs.size() > 1 ? call.outputs[1].data_as<int64_t>() : nullptr;
  for (int64_t plane = 0; plane < p.planes(); ++plane) {
    const T* xp = x + plane * p.h * p.w;
    for (int64_t oh = 0; oh < p.oh; ++oh) {
      int64_t h0 = oh * p.stride[0] - p.pad[0];
      const int64_t h1 = std::min(h0 + (p.kernel[0] - 1) * p.dil[0] + 1, p.h);
      while (h0 < 0) h0 += p.dil[0];
      for (int64_t ow = 0; ow < p.ow; ++ow) {
        int64_t w0 = ow * p.stride[1] - p.pad[1];
        const int64_t w1 = std::min(w0 + (p.kernel[1] - 1) * p.dil[1] + 1, p.w);
        while (w0 < 0) w0 += p.dil[1];
        int64_t best_i = h0 * p.w + w0;
        T best = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                      : std::numeric_limits<T>::lowest();
        for (int64_t ih = h0; ih < h1; ih += p.dil[0]) {
          for (int64_t iw = w0; iw < w1; iw += p.dil[1]) {
            const T v = xp[ih * p.w + iw];
            if (v > best || is_nan(v)) {
              best = v;
              best_i = ih * p.w + iw;
            }
          }
        }
        const int64_t o = (plane * p.oh + oh) * p.ow + ow;
        y[o] = best;
        if (idx) idx[o] = best_i;
      }
    }
  }
}

}  // namespace

void ref_max_pool2d(const MaxPoolParams& p, const KernelCall& call, void*) {
  if (call.inputs[p.input].dtype == DType::kInt64) {
    max_pool2d_typed<int64_t>(p, call);
  } else if (call.inputs[p.input].dtype == DType::kFloat64) {
    max_pool2d_typed<double>(p, call);
  } else {
    max_pool2d_typed<float>(p, call);
  }
}

/// Calls f(plane, output index, h0, h1, w0, w1) for each adaptive window [h0, h1) x [w0, w1).
template <typename F>
void for_each_adaptive_window(const AdaptivePoolParams& p, F&& f) {
  for (int64_t plane = 0; plane < p.planes; ++plane)
    for (int64_t oh = 0; oh < p.oh; ++oh) {
      const int64_t h0 = adaptive_start(oh, p.h, p.oh), h1 = adaptive_end(oh, p.h, p.oh);
      for (int64_t ow = 0; ow < p.ow; ++ow)
        f(plane, (plane * p.oh + oh) * p.ow + ow, h0, h1, adaptive_start(ow, p.w, p.ow),
          adaptive_end(ow, p.w, p.ow));
    }
}

template <typename T>
void adaptive_avg_typed(const AdaptivePoolParams& p, const KernelCall& call) {
  const T* x = call.inputs[p.input].data_as<const T>();
  T* y = call.outputs[0].data_as<T>();
  for_each_adaptive_window(
      p, [&](int64_t plane, int64_t at, int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
        const T* xp = x + plane * p.h * p.w;
        double sum = 0.0;
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw) sum += xp[ih * p.w + iw];
        y[at] = static_cast<T>(sum / static_cast<double>((h1 - h0) * (w1 - w0)));
      });
}

void ref_adaptive_avg_pool2d(const AdaptivePoolParams& p, const KernelCall& call, void*) {
  if (call.inputs[p.input].dtype == DType::kFloat64) {
    adaptive_avg_typed<double>(p, call);
  } else {
    adaptive_avg_typed<float>(p, call);
  }
}

// The first largest element of each window (NaN wins, as in ATen), and its index in the plane.
template <typename T>
void adaptive_max_typed(const AdaptivePoolParams& p, const KernelCall& call) {
  const T* x = call.inputs[p.input].data_as<const T>();
  T* y = call.outputs[0].data_as<T>();
  int64_t* idx = call.outputs[1].data_as<int64_t>();
  for_each_adaptive_window(
      p, [&](int64_t plane, int64_t at, int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
        const T* xp = x + plane * p.h * p.w;
        int64_t best = h0 * p.w + w0;
        for (int64_t ih = h0; ih < h1 && !std::isnan(xp[best]); ++ih)
          for (int64_t iw = w0; iw < w1 && !std::isnan(xp[best]); ++iw) {
            const T v = xp[ih * p.w + iw];
            if (v > xp[best] || std::isnan(v)) best = ih * p.w + iw;
          }
        y[at] = xp[best];
        idx[at] = best;
      });
}

void ref_adaptive_max(const AdaptivePoolParams& p, const KernelCall& call, void*) {
  if (call.inputs[p.input].dtype == DType::kFloat64) {
    adaptive_max_typed<double>(p, call);
  } else {
    adaptive_max_typed<float>(p, call);
  }
}

// Every index is checked before anything is written.
Status run_max_unpool2d(const UnpoolParams& p, const KernelCall& call) {
  const int64_t* idx = call.inputs[p.indices].data_as<const int64_t>();
  for (int64_t i = 0; i < p.planes * p.in_plane; ++i)
    if (idx[i] < 0 || idx[i] >= p.out_plane)
      return op_error(call, StatusCode::kInvalidArgument, "index ", idx[i],
                      " is outside the output plane of ", p.out_plane, " elements");
  const auto* x = call.inputs[p.input].data_as<const uint8_t>();
  auto* y = call.outputs[0].data_as<uint8_t>();
  std::memset(y, 0, call.outputs[0].nbytes());
  const int64_t e = static_cast<int64_t>(p.elem_size);
  for (int64_t plane = 0; plane < p.planes; ++plane)
    for (int64_t i = 0; i < p.in_plane; ++i) {
      const int64_t at = plane * p.in_plane + i;
      std::memcpy(y + (plane * p.out_plane + idx[at]) * e, x + at * e, p.elem_size);
    }
  return ok_status();
}

namespace {

using MaxUnpoolRef = CheckedKernel<UnpoolParams, pool_prepare_max_unpool2d, run_max_unpool2d>;
using AdaptiveMax1dRef =
    FnKernel<AdaptivePoolParams, pool_prepare_adaptive_max<1>, ref_adaptive_max>;
using AdaptiveMax2dRef =
    FnKernel<AdaptivePoolParams, pool_prepare_adaptive_max<2>, ref_adaptive_max>;
using MaxPoolRef = FnKernel<MaxPoolParams, pool_prepare_max_pool2d, ref_max_pool2d>;
using MaxPoolIdxRef = FnKernel<MaxPoolParams, pool_prepare_max_pool2d_with_indices, ref_max_pool2d>;
using AdaptiveAvgRef =
    FnKernel<AdaptivePoolParams, pool_prepare_adaptive_avg_pool2d, ref_adaptive_avg_pool2d>;

}  // namespace

void register_pool_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::max_pool2d", kCpu, kF32, kRef, &make_kernel<MaxPoolRef>},
      {"aten::max_pool2d_with_indices", kCpu, kF32, kRef, &make_kernel<MaxPoolIdxRef>},
      {"aten::max_pool2d", kCpu, DType::kInt64, kRef, &make_kernel<MaxPoolRef>},
      {"aten::max_pool2d_with_indices", kCpu, DType::kInt64, kRef, &make_kernel<MaxPoolIdxRef>},
      {"aten::max_pool2d", kCpu, DType::kFloat64, kRef, &make_kernel<MaxPoolRef>},
      {"aten::max_pool2d_with_indices", kCpu, DType::kFloat64, kRef, &make_kernel<MaxPoolIdxRef>},
      {"aten::adaptive_avg_pool2d", kCpu, kF32, kRef, &make_kernel<AdaptiveAvgRef>},
      {"aten::_adaptive_avg_pool2d", kCpu, kF32, kRef, &make_kernel<AdaptiveAvgRef>},
      {"aten::adaptive_max_pool1d", kCpu, kF32, kRef, &make_kernel<AdaptiveMax1dRef>},
      {"aten::max_unpool2d", kCpu, DType::kUndefined, kRef, &make_kernel<MaxUnpoolRef>},
      {"aten::adaptive_max_pool2d", kCpu, kF32, kRef, &make_kernel<AdaptiveMax2dRef>},
      {"aten::adaptive_avg_pool2d", kCpu, DType::kFloat64, kRef, &make_kernel<AdaptiveAvgRef>},
      {"aten::_adaptive_avg_pool2d", kCpu, DType::kFloat64, kRef, &make_kernel<AdaptiveAvgRef>},
      {"aten::adaptive_max_pool1d", kCpu, DType::kFloat64, kRef, &make_kernel<AdaptiveMax1dRef>},
      {"aten::adaptive_max_pool2d", kCpu, DType::kFloat64, kRef, &make_kernel<AdaptiveMax2dRef>},
  });
}
}  // namespace tir::kernels
