// KernelCall::epilogue as oneDNN post-ops, for the GEMM and convolution primitives.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "kernels/cpu/parallel.h"
#include "kernels/kernel.h"

namespace tir::kernels {

/// Appends the post-ops computing `act` (nothing for kNone). oneDNN 2.6 has no
/// hardsigmoid: it is linear(x/6 + 1/2) then clip to [0, 1].
inline void onednn_append_activation(dnnl::post_ops& ops, Activation act) {
  using alg = dnnl::algorithm;
  switch (act) {
    case Activation::kNone:
      return;
    case Activation::kRelu:
      // No post-op: oneDNN's relu (and clip) turn NaN into 0 where torch keeps NaN
      // (issue 17); onednn_finish_activation applies it after the primitive.
      return;
    case Activation::kGeluErf:
      return ops.append_eltwise(1.f, alg::eltwise_gelu_erf, 0.f, 0.f);
    case Activation::kGeluTanh:
      return ops.append_eltwise(1.f, alg::eltwise_gelu_tanh, 0.f, 0.f);
    case Activation::kHardswish:
      return ops.append_eltwise(1.f, alg::eltwise_hardswish, 0.f, 0.f);
    case Activation::kHardsigmoid:
      ops.append_eltwise(1.f, alg::eltwise_linear, 1.f / 6.f, 0.5f);
      return ops.append_eltwise(1.f, alg::eltwise_clip, 0.f, 1.f);
    case Activation::kSilu:
      return ops.append_eltwise(1.f, alg::eltwise_swish, 1.f, 0.f);
    case Activation::kSigmoid:
      return ops.append_eltwise(1.f, alg::eltwise_logistic, 0.f, 0.f);
    case Activation::kTanh:
      return ops.append_eltwise(1.f, alg::eltwise_tanh, 0.f, 0.f);
  }
}

/// Applies what onednn_append_activation left out (relu) to the finished dense float32
/// output `t`: x < 0 becomes 0, NaN stays NaN.
inline void onednn_finish_activation(Activation act, const Tensor& t) {
  if (act != Activation::kRelu) return;
  float* d = t.data_as<float>();
  // On the kernel's threads (a large output is memory-bound: one thread would double it).
  parallel_chunks(t.numel(), int64_t{1} << 16, [d](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) d[i] = d[i] < 0.f ? 0.f : d[i];
  });
}

}  // namespace tir::kernels
