// Optimized float32 aten::sum.dim_IntList when the reduced dims form one block
// ([outer, reduce, inner]); other dtypes and layouts run the reference loops.
#include <Eigen/Core>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/register.h"
#include "kernels/kernel_util.h"
#include "kernels/reference/reduction/sum_amax_cumsum.h"

namespace tir::kernels {
namespace {

using CArr = Eigen::Map<const Eigen::ArrayXf>;
using Arr = Eigen::Map<Eigen::ArrayXf>;

void sum_opt(const ReduceCastParams& p, const KernelCall& call, void* scratch) {
  const ReduceParams& r = p.r;
  if (p.in != DType::kFloat32 || p.out != DType::kFloat32 || !r.blocked || r.reduce_numel == 0) {
    ref_sum(p, call, scratch);
    return;
  }
  const float* x = call.inputs[r.input].data_as<const float>();
  float* y = call.outputs[0].data_as<float>();
  const int64_t n = r.reduce_numel, inner = r.inner;
  if (inner == 1) {
    parallel_chunks(r.outer, std::max<int64_t>(1, (1 << 15) / n), [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) y[o] = CArr(x + o * n, n).sum();
    });
    return;
  }
  parallel_chunks(r.outer, 1, [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) {
      Arr acc(y + o * inner, inner);
      acc = CArr(x + o * n * inner, inner);
      for (int64_t k = 1; k < n; ++k) acc += CArr(x + (o * n + k) * inner, inner);
    }
  });
}

using SumOpt = FnKernel<ReduceCastParams, sum_prepare, sum_opt>;

}  // namespace

void register_sum_amax_cumsum_eigen(KernelRegistry& registry) {
  registry.add({
      {"aten::sum.dim_IntList", DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized,
       &make_kernel<SumOpt>},
  });
}
}  // namespace tir::kernels
