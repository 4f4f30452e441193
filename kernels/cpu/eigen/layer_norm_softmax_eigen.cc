// Optimized layer norm and (log-)softmax on Eigen, rows split across OpenMP threads.
// Layer norm uses two passes per row (mean, then centred variance) in float32; softmax
// over the last dim works on rows, over an inner dim on [inner, n] column blocks.
#include <Eigen/Core>
#include <cmath>
#include <limits>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/register.h"
#include "kernels/kernel_util.h"
#include "kernels/registry_shorthands.h"
#include "kernels/shapes/normalization/layer_norm.h"
#include "kernels/shapes/softmax/softmax.h"

namespace tir::kernels {
namespace {

using Arr = Eigen::Map<Eigen::ArrayXf>;
using CArr = Eigen::Map<const Eigen::ArrayXf>;

void layer_norm_opt(const LayerNormParams& p, const KernelCall& call, void*) {
  auto vec = [&](int idx) { return idx >= 0 ? call.inputs[idx].data_as<const float>() : nullptr; };
  const float *x = vec(p.input), *w = vec(p.weight), *b = vec(p.bias);
  float* y = call.outputs[0].data_as<float>();
  float* mean_out = p.stats ? call.outputs[1].data_as<float>() : nullptr;
  float* rstd_out = p.stats ? call.outputs[2].data_as<float>() : nullptr;
  const int64_t cols = p.cols;
  const float inv_n = 1.0f / static_cast<float>(cols);
  parallel_chunks(p.rows, std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(cols, 1)),
                  [&](int64_t r0, int64_t r1) {
                    for (int64_t r = r0; r < r1; ++r) {
                      const CArr xr(x + r * cols, cols);
                      Arr yr(y + r * cols, cols);
                      const float mean = xr.sum() * inv_n;
                      yr = xr - mean;
                      const float var = yr.square().sum() * inv_n;
                      const float rstd = 1.0f / std::sqrt(var + static_cast<float>(p.eps));
                      if (w && b) {
                        yr = yr * rstd * CArr(w, cols) + CArr(b, cols);
                      } else if (w) {
                        yr = yr * rstd * CArr(w, cols);
                      } else if (b) {
                        yr = yr * rstd + CArr(b, cols);
                      } else {
                        yr *= rstd;
                      }
                      if (mean_out) {
                        mean_out[r] = mean;
                        rstd_out[r] = rstd;
                      }
                    }
                  });
}

// exp(x - max) for softmax: arguments below kExpArgMin (where exp leaves float32's normal
// range) give exactly 0, as exp(-inf) does in ATen. Eigen's exp would return ~3e-39 for
// -inf (masked scores), and those subnormals run on the FPU's slow microcode path.
constexpr float kExpArgMin = -87.3f;
const float kExpMin = std::exp(kExpArgMin) * 1.0001f;

void softmax_opt(const SoftmaxParams& p, const KernelCall& call, void*) {
  const float* x = call.inputs[p.input].data_as<const float>();
  float* y = call.outputs[0].data_as<float>();
  if (p.n == 0) return;
  if (p.inner == 1) {
    parallel_chunks(p.outer, std::max<int64_t>(1, (1 << 13) / p.n), [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) {
        const CArr xr(x + o * p.n, p.n);
        Arr yr(y + o * p.n, p.n);
        const float mx = xr.maxCoeff<Eigen::PropagateNaN>();  // a NaN makes the row NaN
        if (p.log) {
          yr = xr - mx;
          yr -= std::log(yr.exp().sum());
        } else {
          yr = (xr - mx).max(kExpArgMin).exp();
          yr = (yr > kExpMin).select(yr, 0.f);  // after the exp: Eigen keeps it vectorized
          yr *= 1.0f / yr.sum();
        }
      }
    });
    return;
  }
  // Block o is column-major [inner, n]: element (i, k) at k * inner + i.
  using CMat = Eigen::Map<const Eigen::ArrayXXf>;
  using Mat = Eigen::Map<Eigen::ArrayXXf>;
  parallel_chunks(p.outer, 1, [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) {
      const CMat xb(x + o * p.n * p.inner, p.inner, p.n);
      Mat yb(y + o * p.n * p.inner, p.inner, p.n);
      Eigen::ArrayXf mx = xb.rowwise().maxCoeff();
      const auto has_nan = xb.isNaN().rowwise().any();  // such a row is NaN, as in ATen
      mx = has_nan.select(std::numeric_limits<float>::quiet_NaN(), mx);
      yb = xb.colwise() - mx;
      if (p.log) {
        const Eigen::ArrayXf lse = yb.exp().rowwise().sum().log();
        yb.colwise() -= lse;
      } else {
        yb = yb.max(kExpArgMin).exp();
        yb = (yb > kExpMin).select(yb, 0.f);
        const Eigen::ArrayXf inv = yb.rowwise().sum().inverse();
        yb.colwise() *= inv;
      }
    }
  });
}

using LayerNormOpt = FnKernel<LayerNormParams, layer_norm_prepare, layer_norm_opt>;
using NativeLayerNormOpt = FnKernel<LayerNormParams, layer_norm_prepare_native, layer_norm_opt>;
using SoftmaxOpt = FnKernel<SoftmaxParams, softmax_prepare<false>, softmax_opt>;
using LogSoftmaxOpt = FnKernel<SoftmaxParams, softmax_prepare<true>, softmax_opt>;

}  // namespace

void register_layer_norm_softmax_eigen(KernelRegistry& registry) {
  registry.add({
      {"aten::layer_norm", kCpu, kF32, kOpt, &make_kernel<LayerNormOpt>},
      {"aten::native_layer_norm", kCpu, kF32, kOpt, &make_kernel<NativeLayerNormOpt>},
      {"aten::softmax.int", kCpu, kF32, kOpt, &make_kernel<SoftmaxOpt>},
      {"aten::_softmax", kCpu, kF32, kOpt, &make_kernel<SoftmaxOpt>},
      {"aten::log_softmax.int", kCpu, kF32, kOpt, &make_kernel<LogSoftmaxOpt>},
      {"aten::_log_softmax", kCpu, kF32, kOpt, &make_kernel<LogSoftmaxOpt>},
  });
}
}  // namespace tir::kernels
