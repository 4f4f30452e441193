// Reference 3-D pooling: aten::_adaptive_avg_pool3d, aten::max_pool3d(_with_indices) and
// aten::adaptive_avg_pool1d (as 1 x 1 x L volumes)
// (kernels/shapes/pooling/pool3d.h), with ATen's windows, NaN propagation and tie order.
#include "kernels/shapes/pooling/pool3d.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/kernel_util.h"
#include "kernels/reference/nan.h"
#include "kernels/reference/register.h"
#include "kernels/shapes/pooling/pool.h"  // adaptive_start / adaptive_end

namespace tir::kernels {
namespace {

void ref_adaptive_avg_pool3d(const Pool3dParams& p, const KernelCall& call, void*) {
  const float* x = call.inputs[p.input].data_as<const float>();
  float* y = call.outputs[0].data_as<float>();
  const auto& in = p.in;
  const auto& out = p.out;
  for (int64_t pl = 0; pl < p.planes; ++pl) {
    const float* xp = x + pl * in[0] * in[1] * in[2];
    for (int64_t od = 0; od < out[0]; ++od) {
      const int64_t d0 = adaptive_start(od, in[0], out[0]), d1 = adaptive_end(od, in[0], out[0]);
      for (int64_t oh = 0; oh < out[1]; ++oh) {
        const int64_t h0 = adaptive_start(oh, in[1], out[1]);
        const int64_t h1 = adaptive_end(oh, in[1], out[1]);
        for (int64_t ow = 0; ow < out[2]; ++ow) {
          const int64_t w0 = adaptive_start(ow, in[2], out[2]);
          const int64_t w1 = adaptive_end(ow, in[2], out[2]);
          double sum = 0;
          for (int64_t a = d0; a < d1; ++a)
            for (int64_t b = h0; b < h1; ++b)
              for (int64_t c = w0; c < w1; ++c) sum += xp[(a * in[1] + b) * in[2] + c];
          *y++ = static_cast<float>(sum / static_cast<double>((d1 - d0) * (h1 - h0) * (w1 - w0)));
        }
      }
    }
  }
}

// First in-bounds tap of a window starting at `start` (may be negative) with dilation `dil`.
int64_t first_tap(int64_t start, int64_t dil) {
  while (start < 0) start += dil;
  return start;
}

template <typename T>
void max_pool3d_typed(const Pool3dParams& p, const KernelCall& call) {
  const T* x = call.inputs[p.input].data_as<const T>();
  T* y = call.outputs[0].data_as<T>();
  int64_t* idx = call.outputs.size() > 1 ? call.outputs[1].data_as<int64_t>() : nullptr;
  const auto& in = p.in;
  std::array<int64_t, 3> lo{}, hi{};
  for (int64_t pl = 0; pl < p.planes; ++pl) {
    const T* xp = x + pl * in[0] * in[1] * in[2];
    for (int64_t od = 0; od < p.out[0]; ++od)
      for (int64_t oh = 0; oh < p.out[1]; ++oh)
        for (int64_t ow = 0; ow < p.out[2]; ++ow) {
          const std::array<int64_t, 3> o{od, oh, ow};
          for (int d = 0; d < 3; ++d) {
            const int64_t start = o[d] * p.stride[d] - p.pad[d];
            hi[d] = std::min(start + (p.kernel[d] - 1) * p.dil[d] + 1, in[d]);
            lo[d] = first_tap(start, p.dil[d]);
          }
          int64_t best_i = (lo[0] * in[1] + lo[1]) * in[2] + lo[2];
          T best = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                        : std::numeric_limits<T>::lowest();
          for (int64_t a = lo[0]; a < hi[0]; a += p.dil[0])
            for (int64_t b = lo[1]; b < hi[1]; b += p.dil[1])
              for (int64_t c = lo[2]; c < hi[2]; c += p.dil[2]) {
                const int64_t at = (a * in[1] + b) * in[2] + c;
                const T v = xp[at];
                if (v > best || is_nan(v)) {
                  best = v;
                  best_i = at;
                }
              }
          *y++ = best;
          if (idx) *idx++ = best_i;
        }
  }
}

void ref_max_pool3d(const Pool3dParams& p, const KernelCall& call, void*) {
  if (call.inputs[p.input].dtype == DType::kInt64) {
    max_pool3d_typed<int64_t>(p, call);
  } else if (call.inputs[p.input].dtype == DType::kFloat64) {
    max_pool3d_typed<double>(p, call);
  } else {
    max_pool3d_typed<float>(p, call);
  }
}

using AdaptiveAvg3dRef =
    FnKernel<Pool3dParams, pool3d_prepare_adaptive_avg, ref_adaptive_avg_pool3d>;
using AdaptiveAvg1dRef =
    FnKernel<Pool3dParams, pool3d_prepare_adaptive_avg1d, ref_adaptive_avg_pool3d>;
using MaxPool3dRef = FnKernel<Pool3dParams, pool3d_prepare_max, ref_max_pool3d>;
using MaxPool3dIndicesRef = FnKernel<Pool3dParams, pool3d_prepare_max_with_indices, ref_max_pool3d>;

}  // namespace

void register_pool3d_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::_adaptive_avg_pool3d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<AdaptiveAvg3dRef>},
      {"aten::adaptive_avg_pool1d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<AdaptiveAvg1dRef>},
      {"aten::adaptive_avg_pool3d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<AdaptiveAvg3dRef>},
      {"aten::max_pool3d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<MaxPool3dRef>},
      {"aten::max_pool3d", DeviceType::kCpu, DType::kInt64, KernelImpl::kReference,
       &make_kernel<MaxPool3dRef>},
      {"aten::max_pool3d_with_indices", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<MaxPool3dIndicesRef>},
      {"aten::max_pool3d_with_indices", DeviceType::kCpu, DType::kInt64, KernelImpl::kReference,
       &make_kernel<MaxPool3dIndicesRef>},
      {"aten::max_pool3d", DeviceType::kCpu, DType::kFloat64, KernelImpl::kReference,
       &make_kernel<MaxPool3dRef>},
      {"aten::max_pool3d_with_indices", DeviceType::kCpu, DType::kFloat64, KernelImpl::kReference,
       &make_kernel<MaxPool3dIndicesRef>},
  });
}
}  // namespace tir::kernels
