// Reference glu and prelu (kernels/shapes/unary/gated.h), in double.
#include "kernels/shapes/unary/gated.h"

#include <cmath>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

template <typename T>
void run(const GatedParams& p, const KernelCall& call) {
  const T* x = call.inputs[size_t(p.input)].data_as<const T>();
  T* y = call.outputs[0].data_as<T>();
  if (p.glu) {
    const int64_t half = p.n / 2;
    for (int64_t o = 0; o < p.outer; ++o)
      for (int64_t j = 0; j < half; ++j)
        for (int64_t i = 0; i < p.inner; ++i) {
          const double a = double(x[(o * p.n + j) * p.inner + i]);
          const double b = double(x[(o * p.n + half + j) * p.inner + i]);
          y[(o * half + j) * p.inner + i] = static_cast<T>(a / (1.0 + std::exp(-b)));
        }
    return;
  }
  const T* w = call.inputs[size_t(p.weight)].data_as<const T>();
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t c = 0; c < p.n; ++c)
      for (int64_t i = 0; i < p.inner; ++i) {
        const int64_t at = (o * p.n + c) * p.inner + i;
        const double v = double(x[at]);
        y[at] = static_cast<T>(v > 0 ? v : double(w[c]) * v);
      }
}

void ref_gated(const GatedParams& p, const KernelCall& call, void*) {
  if (p.dtype == DType::kFloat64) return run<double>(p, call);
  run<float>(p, call);
}

using GluRef = FnKernel<GatedParams, gated_prepare_glu, ref_gated>;
using PreluRef = FnKernel<GatedParams, gated_prepare_prelu, ref_gated>;

}  // namespace

void register_gated_ref(KernelRegistry& registry) {
  for (DType d : {DType::kFloat32, DType::kFloat64})
    registry.add({
        {"aten::glu", DeviceType::kCpu, d, KernelImpl::kReference, &make_kernel<GluRef>},
        {"aten::prelu", DeviceType::kCpu, d, KernelImpl::kReference, &make_kernel<PreluRef>},
    });
}

}  // namespace tir::kernels
