// Optimized averaging: aten::mean.dim when the reduced dims form one block ([outer,
// reduce, inner]), and aten::adaptive_avg_pool2d to 1x1 (global average pooling). Other
// cases run the reference loops.
#include <Eigen/Core>

#include "kernels/cpu/parallel.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/registry.h"

namespace tir::kernels {
namespace {

using CArr = Eigen::Map<const Eigen::ArrayXf>;
using Arr = Eigen::Map<Eigen::ArrayXf>;

// out[o, i] = mean over r of x[o, r, i].
void block_mean(const float* x, float* y, int64_t outer, int64_t r, int64_t inner) {
  const float inv = 1.0f / static_cast<float>(r);
  if (inner == 1) {
    parallel_chunks(outer, std::max<int64_t>(1, (1 << 15) / r), [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) y[o] = CArr(x + o * r, r).sum() * inv;
    });
    return;
  }
  parallel_chunks(outer, 1, [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) {
      Arr acc(y + o * inner, inner);
      acc = CArr(x + o * r * inner, inner);
      for (int64_t k = 1; k < r; ++k) acc += CArr(x + (o * r + k) * inner, inner);
      acc *= inv;
    }
  });
}

void mean_opt(const ReduceParams& p, const KernelCall& call, void* scratch) {
  if (!p.blocked || p.reduce_numel == 0) {
    ref_mean(p, call, scratch);
    return;
  }
  block_mean(call.inputs[p.input].data_as<const float>(), call.outputs[0].data_as<float>(), p.outer,
             p.reduce_numel, p.inner);
}

void adaptive_avg_opt(const AdaptivePoolParams& p, const KernelCall& call, void* scratch) {
  if (p.oh != 1 || p.ow != 1) {
    ref_adaptive_avg_pool2d(p, call, scratch);
    return;
  }
  block_mean(call.inputs[p.input].data_as<const float>(), call.outputs[0].data_as<float>(),
             p.planes, p.h * p.w, 1);
}

using MeanOpt = FnKernel<ReduceParams, reduce_prepare_mean_dim, mean_opt>;
using AdaptiveAvgOpt =
    FnKernel<AdaptivePoolParams, pool_prepare_adaptive_avg_pool2d, adaptive_avg_opt>;

const bool kRegistered = KernelRegistry::global().add({
    {"aten::mean.dim", DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized,
     &make_kernel<MeanOpt>},
    {"aten::adaptive_avg_pool2d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized,
     &make_kernel<AdaptiveAvgOpt>},
});

}  // namespace
}  // namespace tir::kernels
