// 2-D convolution in int8 on oneDNN, for the optimized conv kernel (kernels/cpu/conv_onednn.cc)
// when the call's precision is kInt8 or its weight is stored int8 (`tirc weights pack --dtype
// int8`).
//
// Weights: symmetric int8 per output channel (core/quantize.h, the same bytes the packer
// stores: an [OC, C/groups, KH, KW] weight is its [OC, C/groups*KH*KW] matrix, axis 0). A
// folded batch norm is not quantized into the weights: its per-channel scale multiplies the
// weight scales (w * bn = q * (s_w * bn)) and its shift joins the bias, so the int8 values
// are those of the weight alone.
// Activations: quantized per run to int8, symmetric, one scale for the whole tensor
// (max |x| / 127), by a oneDNN reorder that also puts them in the primitive's layout. Not
// uint8 with a zero point: oneDNN 2.6 then leaves brgconv for its older jit AMX convolution,
// 1.3-4.5x slower on ResNet-18's shapes (measured; the issue-18 note).
// The primitive: s8 x s8 -> s32, output scales s_w[oc] * bn[oc] fixed in it, then post-ops:
// multiply by the activation scale (a runtime scalar),
// add the bias per channel, sum (a fused residual) and the activation other than relu; relu
// is applied after (NaN stays NaN). Output float32.
// An input holding NaN or infinity has no int8 scale: the whole output is NaN (never a
// silently finite answer).
// A swapped weight (another data pointer, or another batch norm tensor) is quantized and
// packed again and the primitive rebuilt for its scales.
#pragma once

#include <array>
#include <vector>

#include "kernels/cpu/onednn_context.h"
#include "kernels/shapes/conv_shapes.h"

namespace tir::kernels {

class Int8Conv {
 public:
  /// True when `call` should run in int8: the weight's bytes are known at prepare and either
  /// it is stored int8 or the call's precision is kInt8.
  static bool wanted(const KernelCall& call, const ConvParams& p);
  /// Builds the primitive, quantizes and packs the weights; sets the scratch size and the
  /// inputs it packed.
  Status build(const KernelCall& call, const ConvParams& p, PrepareInfo* out_info);
  Status run(const KernelCall& call, void* scratch);

 private:
  using Sources = std::array<const void*, 6>;  // weight, bias, batch norm's four tensors
  Sources sources(const KernelCall& call) const;
  /// Quantizes the weight (or takes its stored int8 bytes), folds the batch norm into the
  /// scales and the bias, packs, and (re)builds the primitive when the scales changed.
  Status use_weights(const KernelCall& call);
  dnnl::convolution_forward::primitive_desc make_pd(const KernelCall& call,
                                                    const std::vector<float>& scales) const;
  /// Writes NaN over the whole output.
  void fill_nan(const KernelCall& call) const;

  ConvParams p_;
  std::vector<float> scales_;  // per output channel: weight scale * batch norm scale
  std::vector<float> bias_;    // per output channel: bias * bn scale + bn shift (or zeros)
  Sources packed_from_{};
  dnnl::convolution_forward::primitive_desc pd_;
  dnnl::convolution_forward prim_;
  dnnl::reorder quantize_, dst_reorder_, res_reorder_;
  dnnl::memory user_src_, src_, wei_, packed_, dst_, user_dst_, user_res_, scratchpad_;
  dnnl::memory src_scale_, act_scale_, bias_mem_;
  std::vector<dnnl_exec_arg_t> args_, quantize_args_, dst_args_, res_args_;
  size_t src_off_ = 0, dst_off_ = 0;
};

}  // namespace tir::kernels
