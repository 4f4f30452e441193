// KernelCall::epilogue as oneDNN post-ops, for the GEMM and convolution primitives.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>
#include <optional>

#include "kernels/cpu/parallel.h"
#include "kernels/kernel.h"

namespace tir::kernels {

/// Appends the post-ops computing `act` (nothing for std::nullopt). oneDNN 2.6 has no
/// hardsigmoid: it is linear(x/6 + 1/2) then clip to [0, 1].
inline void onednn_append_activation(dnnl::post_ops& post, std::optional<ops::UnaryKind> act) {
  using alg = dnnl::algorithm;
  using ops::UnaryKind;
  if (!act) return;
  switch (*act) {
    case UnaryKind::kRelu:
      // No post-op: oneDNN's relu (and clip) turn NaN into 0 where torch keeps NaN
      // (issue 17); onednn_finish_activation applies it after the primitive.
      return;
    case UnaryKind::kGeluErf:
      return post.append_eltwise(1.f, alg::eltwise_gelu_erf, 0.f, 0.f);
    case UnaryKind::kGeluTanh:
      return post.append_eltwise(1.f, alg::eltwise_gelu_tanh, 0.f, 0.f);
    case UnaryKind::kHardswish:
      return post.append_eltwise(1.f, alg::eltwise_hardswish, 0.f, 0.f);
    case UnaryKind::kHardsigmoid:
      post.append_eltwise(1.f, alg::eltwise_linear, 1.f / 6.f, 0.5f);
      return post.append_eltwise(1.f, alg::eltwise_clip, 0.f, 1.f);
    case UnaryKind::kSilu:
      return post.append_eltwise(1.f, alg::eltwise_swish, 1.f, 0.f);
    case UnaryKind::kSigmoid:
      return post.append_eltwise(1.f, alg::eltwise_logistic, 0.f, 0.f);
    case UnaryKind::kTanh:
      return post.append_eltwise(1.f, alg::eltwise_tanh, 0.f, 0.f);
    default:  // not fusable_as_epilogue: the fusion pass never sets one
      return;
  }
}

/// Applies what onednn_append_activation left out (relu) to the finished dense float32
/// output `t`: x < 0 becomes 0, NaN stays NaN.
inline void onednn_finish_activation(std::optional<ops::UnaryKind> act, const Tensor& t) {
  if (act != ops::UnaryKind::kRelu) return;
  float* d = t.data_as<float>();
  // On the kernel's threads (a large output is memory-bound: one thread would double it).
  parallel_chunks(t.numel(), int64_t{1} << 16, [d](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) d[i] = d[i] < 0.f ? 0.f : d[i];
  });
}

}  // namespace tir::kernels
