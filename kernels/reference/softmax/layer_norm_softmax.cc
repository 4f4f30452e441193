// Reference layer norm (with native_layer_norm's mean/rstd) and (log-)softmax, in double.
#include "kernels/reference/softmax/layer_norm_softmax.h"

#include <cmath>
#include <limits>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {

void ref_layer_norm(const LayerNormParams& p, const KernelCall& call, void*) {
  auto vec = [&](int idx) { return idx >= 0 ? call.inputs[idx].data_as<const float>() : nullptr; };
  const float *x = vec(p.input), *w = vec(p.weight), *b = vec(p.bias);
  float* y = call.outputs[0].data_as<float>();
  for (int64_t r = 0; r < p.rows; ++r) {
    const float* xr = x + r * p.cols;
    double mean = 0.0, var = 0.0;
    for (int64_t c = 0; c < p.cols; ++c) mean += xr[c];
    mean /= static_cast<double>(p.cols);
    for (int64_t c = 0; c < p.cols; ++c) var += (xr[c] - mean) * (xr[c] - mean);
    var /= static_cast<double>(p.cols);
    const double rstd = 1.0 / std::sqrt(var + p.eps);
    for (int64_t c = 0; c < p.cols; ++c) {
      const double v = (xr[c] - mean) * rstd * (w ? w[c] : 1.0) + (b ? b[c] : 0.0);
      y[r * p.cols + c] = static_cast<float>(v);
    }
    if (p.stats) {
      call.outputs[1].data_as<float>()[r] = static_cast<float>(mean);
      call.outputs[2].data_as<float>()[r] = static_cast<float>(rstd);
    }
  }
}

namespace {

template <typename T>
void softmax_typed(const SoftmaxParams& p, const KernelCall& call) {
  const T* x = call.inputs[p.input].data_as<const T>();
  T* y = call.outputs[0].data_as<T>();
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      const int64_t base = o * p.n * p.inner + i;
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < p.n; ++k) mx = std::max<double>(mx, x[base + k * p.inner]);
      double sum = 0.0;
      for (int64_t k = 0; k < p.n; ++k) sum += std::exp(x[base + k * p.inner] - mx);
      for (int64_t k = 0; k < p.n; ++k) {
        const double d = x[base + k * p.inner] - mx;
        y[base + k * p.inner] = static_cast<T>(p.log ? d - std::log(sum) : std::exp(d) / sum);
      }
    }
  }
}

}  // namespace

void ref_softmax(const SoftmaxParams& p, const KernelCall& call, void*) {
  if (call.inputs[p.input].dtype == DType::kFloat64) {
    softmax_typed<double>(p, call);
  } else {
    softmax_typed<float>(p, call);
  }
}

namespace {

using LayerNormRef = FnKernel<LayerNormParams, layer_norm_prepare, ref_layer_norm>;
using NativeLayerNormRef = FnKernel<LayerNormParams, layer_norm_prepare_native, ref_layer_norm>;
using SoftmaxRef = FnKernel<SoftmaxParams, softmax_prepare<false>, ref_softmax>;
using LogSoftmaxRef = FnKernel<SoftmaxParams, softmax_prepare<true>, ref_softmax>;

constexpr auto kRef = KernelImpl::kReference;
constexpr auto kCpu = DeviceType::kCpu;
constexpr auto kF32 = DType::kFloat32;

}  // namespace

void register_layer_norm_softmax_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::layer_norm", kCpu, kF32, kRef, &make_kernel<LayerNormRef>},
      {"aten::native_layer_norm", kCpu, kF32, kRef, &make_kernel<NativeLayerNormRef>},
      {"aten::softmax.int", kCpu, kF32, kRef, &make_kernel<SoftmaxRef>},
      {"aten::_softmax", kCpu, kF32, kRef, &make_kernel<SoftmaxRef>},
      {"aten::log_softmax.int", kCpu, kF32, kRef, &make_kernel<LogSoftmaxRef>},
      {"aten::_log_softmax", kCpu, kF32, kRef, &make_kernel<LogSoftmaxRef>},
      {"aten::softmax.int", kCpu, DType::kFloat64, kRef, &make_kernel<SoftmaxRef>},
      {"aten::_softmax", kCpu, DType::kFloat64, kRef, &make_kernel<SoftmaxRef>},
      {"aten::log_softmax.int", kCpu, DType::kFloat64, kRef, &make_kernel<LogSoftmaxRef>},
      {"aten::_log_softmax", kCpu, DType::kFloat64, kRef, &make_kernel<LogSoftmaxRef>},
  });
}
}  // namespace tir::kernels
