// Reference inference batch norm of float32 and float64: aten::batch_norm,
// aten::_native_batch_norm_legit_no_training.
#include <cmath>

#include "kernels/kernel_util.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/reference/register.h"

namespace tir::kernels {

namespace {

template <typename T>
void batch_norm_channels(const BatchNormParams& p, const KernelCall& call) {
  auto vec = [&](int idx) { return idx >= 0 ? call.inputs[idx].data_as<const T>() : nullptr; };
  const T* x = vec(p.input);
  const T *w = vec(p.weight), *b = vec(p.bias), *mean = vec(p.mean), *var = vec(p.var);
  T* y = call.outputs[0].data_as<T>();
  for (int64_t n = 0; n < p.n; ++n) {
    for (int64_t c = 0; c < p.c; ++c) {
      const double inv = 1.0 / std::sqrt(static_cast<double>(var[c]) + p.eps);
      const double scale = (w ? double(w[c]) : 1.0) * inv;
      const double shift = (b ? double(b[c]) : 0.0) - mean[c] * scale;
      const int64_t base = (n * p.c + c) * p.inner;
      for (int64_t i = 0; i < p.inner; ++i) {
        y[base + i] = static_cast<T>(x[base + i] * scale + shift);
      }
    }
  }
}

}  // namespace

void ref_batch_norm(const BatchNormParams& p, const KernelCall& call, void*) {
  if (p.dtype == DType::kFloat64) {
    batch_norm_channels<double>(p, call);
  } else {
    batch_norm_channels<float>(p, call);
  }
}

namespace {

using BatchNormRef =
    BatchNormEitherMode<FnKernel<BatchNormParams, norm_prepare_batch_norm, ref_batch_norm>>;
using NativeBnRef = FnKernel<BatchNormParams, norm_prepare_native_no_training, ref_batch_norm>;

}  // namespace

void register_batch_norm_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::batch_norm", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<BatchNormRef>},
      {"aten::_native_batch_norm_legit_no_training", DeviceType::kCpu, DType::kFloat32,
       KernelImpl::kReference, &make_kernel<NativeBnRef>},
      {"aten::batch_norm", DeviceType::kCpu, DType::kFloat64, KernelImpl::kReference,
       &make_kernel<BatchNormRef>},
      {"aten::_native_batch_norm_legit_no_training", DeviceType::kCpu, DType::kFloat64,
       KernelImpl::kReference, &make_kernel<NativeBnRef>},
  });
}
}  // namespace tir::kernels
