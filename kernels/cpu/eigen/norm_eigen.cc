// Optimized inference batch norm: per channel y = x*scale + shift with scale and shift
// folded from the statistics at run time (weights may be swapped between runs), on
// vectorised Eigen arrays, planes split across OpenMP threads.
#include <Eigen/Core>
#include <cmath>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/register.h"
#include "kernels/reference/reference_kernels.h"

namespace tir::kernels {
namespace {

void batch_norm_opt(const BatchNormParams& p, const KernelCall& call, void*) {
  auto vec = [&](int idx) { return idx >= 0 ? call.inputs[idx].data_as<const float>() : nullptr; };
  const float* x = vec(p.input);
  const float *w = vec(p.weight), *b = vec(p.bias), *mean = vec(p.mean), *var = vec(p.var);
  float* y = call.outputs[0].data_as<float>();
  const int64_t planes = p.n * p.c;
  parallel_chunks(planes, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(p.inner, 1)),
                  [&](int64_t b0, int64_t b1) {
                    for (int64_t plane = b0; plane < b1; ++plane) {
                      const int64_t c = plane % p.c;
                      const double inv = 1.0 / std::sqrt(static_cast<double>(var[c]) + p.eps);
                      const double scale = (w ? w[c] : 1.0) * inv;
                      const float shift = static_cast<float>((b ? b[c] : 0.0) - mean[c] * scale);
                      Eigen::Map<Eigen::ArrayXf>(y + plane * p.inner, p.inner) =
                          Eigen::Map<const Eigen::ArrayXf>(x + plane * p.inner, p.inner) *
                              static_cast<float>(scale) +
                          shift;
                    }
                  });
}

using BatchNormOpt =
    BatchNormEitherMode<FnKernel<BatchNormParams, norm_prepare_batch_norm, batch_norm_opt>>;
using NativeBnOpt = FnKernel<BatchNormParams, norm_prepare_native_no_training, batch_norm_opt>;

}  // namespace

void register_norm_eigen(KernelRegistry& registry) {
  registry.add({
      {"aten::batch_norm", DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized,
       &make_kernel<BatchNormOpt>},
      {"aten::_native_batch_norm_legit_no_training", DeviceType::kCpu, DType::kFloat32,
       KernelImpl::kOptimized, &make_kernel<NativeBnOpt>},
  });
}
}  // namespace tir::kernels
