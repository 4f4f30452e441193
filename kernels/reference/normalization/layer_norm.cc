// Reference layer norm (with native_layer_norm's mean/rstd) and RMS norm of float32 and float64,
// in double.
#include "kernels/reference/normalization/layer_norm.h"

#include <cmath>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {

namespace {

template <typename T>
void layer_norm_rows(const LayerNormParams& p, const KernelCall& call) {
  auto vec = [&](int idx) { return idx >= 0 ? call.inputs[idx].data_as<const T>() : nullptr; };
  const T *x = vec(p.input), *w = vec(p.weight), *b = vec(p.bias);
  T* y = call.outputs[0].data_as<T>();
  for (int64_t r = 0; r < p.rows; ++r) {
    const T* xr = x + r * p.cols;
    double mean = 0.0, var = 0.0;
    if (!p.rms) {
      for (int64_t c = 0; c < p.cols; ++c) mean += xr[c];
      mean /= static_cast<double>(p.cols);
    }
    for (int64_t c = 0; c < p.cols; ++c) var += (xr[c] - mean) * (xr[c] - mean);
    var /= static_cast<double>(p.cols);
    const double rstd = 1.0 / std::sqrt(var + p.eps);
    for (int64_t c = 0; c < p.cols; ++c) {
      const double v = (xr[c] - mean) * rstd * (w ? w[c] : 1.0) + (b ? b[c] : 0.0);
      y[r * p.cols + c] = static_cast<T>(v);
    }
    if (p.stats) {
      call.outputs[1].data_as<T>()[r] = static_cast<T>(mean);
      call.outputs[2].data_as<T>()[r] = static_cast<T>(rstd);
    }
  }
}

}  // namespace

void ref_layer_norm(const LayerNormParams& p, const KernelCall& call, void*) {
  if (p.dtype == DType::kFloat64) {
    layer_norm_rows<double>(p, call);
  } else {
    layer_norm_rows<float>(p, call);
  }
}

namespace {

using LayerNormRef = FnKernel<LayerNormParams, layer_norm_prepare, ref_layer_norm>;
using NativeLayerNormRef = FnKernel<LayerNormParams, layer_norm_prepare_native, ref_layer_norm>;
using RmsNormRef = FnKernel<LayerNormParams, rms_norm_prepare, ref_layer_norm>;

}  // namespace

void register_layer_norm_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::layer_norm", kCpu, kF32, kRef, &make_kernel<LayerNormRef>},
      {"aten::native_layer_norm", kCpu, kF32, kRef, &make_kernel<NativeLayerNormRef>},
      {"aten::rms_norm", kCpu, kF32, kRef, &make_kernel<RmsNormRef>},
      {"aten::layer_norm", kCpu, kF64, kRef, &make_kernel<LayerNormRef>},
      {"aten::native_layer_norm", kCpu, kF64, kRef, &make_kernel<NativeLayerNormRef>},
      {"aten::rms_norm", kCpu, kF64, kRef, &make_kernel<RmsNormRef>},
  });
}
}  // namespace tir::kernels
