// Reference reductions: aten::mean.dim of float32 and float64.
#include <limits>

#include "kernels/kernel_util.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/reference/register.h"

namespace tir::kernels {

namespace {

template <typename T>
void mean_of(const ReduceParams& p, const KernelCall& call) {
  const T* x = call.inputs[p.input].data_as<const T>();
  T* y = call.outputs[0].data_as<T>();
  double sum = 0.0;
  for_each_reduced(
      p, [&](int64_t off) { sum += x[off]; },
      [&](int64_t o) {
        y[o] = p.reduce_numel == 0 ? std::numeric_limits<T>::quiet_NaN()
                                   : static_cast<T>(sum / static_cast<double>(p.reduce_numel));
        sum = 0.0;
      });
}

}  // namespace

void ref_mean(const ReduceParams& p, const KernelCall& call, void*) {
  if (call.outputs[0].dtype == DType::kFloat64) {
    mean_of<double>(p, call);
  } else {
    mean_of<float>(p, call);
  }
}

namespace {

using MeanRef = FnKernel<ReduceParams, reduce_prepare_mean_dim, ref_mean>;

}  // namespace

void register_mean_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::mean.dim", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<MeanRef>},
      {"aten::mean.dim", DeviceType::kCpu, DType::kFloat64, KernelImpl::kReference,
       &make_kernel<MeanRef>},
  });
}
}  // namespace tir::kernels
