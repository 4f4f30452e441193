// Reference reductions: aten::mean.dim.
#include <limits>

#include "kernels/kernel_util.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/reference/register.h"

namespace tir::kernels {

void ref_mean(const ReduceParams& p, const KernelCall& call, void*) {
  const float* x = call.inputs[p.input].data_as<const float>();
  float* y = call.outputs[0].data_as<float>();
  double sum = 0.0;
  for_each_reduced(
      p, [&](int64_t off) { sum += x[off]; },
      [&](int64_t o) {
        y[o] = p.reduce_numel == 0 ? std::numeric_limits<float>::quiet_NaN()
                                   : static_cast<float>(sum / static_cast<double>(p.reduce_numel));
        sum = 0.0;
      });
}

namespace {

using MeanRef = FnKernel<ReduceParams, reduce_prepare_mean_dim, ref_mean>;

}  // namespace

void register_mean_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::mean.dim", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<MeanRef>},
  });
}
}  // namespace tir::kernels
