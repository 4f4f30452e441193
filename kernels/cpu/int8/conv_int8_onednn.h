// 2-D convolution in int8 on oneDNN, for the optimized conv kernel
// (kernels/cpu/onednn/conv_onednn.cc) when the call's precision is kInt8 or its weight is stored
// int8 (`tirc weights pack --dtype int8`).
//
// Weights: symmetric int8 per output channel (core/quantize.h, the same bytes the packer
// stores: an [OC, C/groups, KH, KW] weight is its [OC, C/groups*KH*KW] matrix, axis 0). A
// folded batch norm is not quantized into the weights: its per-channel scale multiplies the
// weight scales (w * bn = q * (s_w * bn)) and its shift joins the bias, so the int8 values
// are those of the weight alone.
// Activations: quantized per run with one scale for the whole tensor, by a oneDNN reorder that
// also puts them in the primitive's layout: to uint8 (x * 255 / max x) when no value is
// negative (every conv after a relu or a max pool of one), else to int8, symmetric
// (x * 127 / max |x|); each source type has its own primitive, built when first needed. No
// zero point: with one oneDNN 2.6 leaves brgconv for its older jit AMX convolution, 1.3-4.5x
// slower on ResNet-18's shapes (measured; the issue-18 note).
// Except where the CPU's u8 x s8 pairs saturate (no AVX512-VNNI: onednn_context.h
// int8_pairs_saturate): there every input goes to uint8 0..127 with a zero point, scale
// (max - min) / 127 (fbgemm's reduce_range), so no pair of products passes int16; the int8
// source path is not used, as oneDNN would halve the weights for it.
// The primitive: u8/s8 x s8 -> s32, output scales s_w[oc] * bn[oc] fixed in it, then post-ops:
// multiply by the activation scale (a runtime scalar), add the bias per channel, sum (a fused
// residual) and the activation other than relu; relu is applied after (NaN stays NaN). Output
// float32.
// Where int8 would not pay, the node computes in float32 (fast() false): depthwise and grouped
// convolutions and dot products shorter than 64 (C/groups * KH * KW < 64) are memory-bound,
// the two passes quantizing the input cost more than int8 saves (MobileNetV3-large: 1.28x
// float32's time with them in int8, 0.9x without); and shapes for which oneDNN has only its
// reference int8 kernel (1x1 convs of a 1x1 input: squeeze-excite).
// An input holding NaN or infinity has no int8 scale: the whole output is NaN (never a
// silently finite answer).
// A swapped weight (another data pointer, or another batch norm tensor) is quantized and
// packed again and the primitive rebuilt for its scales.
#pragma once

#include <array>
#include <vector>

#include "kernels/cpu/onednn/onednn_context.h"
#include "kernels/shapes/convolution/conv.h"

namespace tir::kernels {

class Int8Conv {
 public:
  /// True when `call` should run in int8: the weight's bytes are known at prepare and either
  /// it is stored int8 or the call's precision is kInt8.
  static bool wanted(const KernelCall& call, const ConvParams& p);
  /// Builds the primitive, quantizes and packs the weights; sets the scratch size and the
  /// inputs it packed.
  Status build(const KernelCall& call, const ConvParams& p, PrepareInfo* out_info);
  /// After build: false when oneDNN has only its reference int8 kernel for this shape (on
  /// this CPU: 1x1 convolutions of a 1x1 input, MobileNetV3's squeeze-excite layers), which
  /// is slower than float32; the caller then computes in float32.
  bool fast() const { return fast_; }
  Status run(const KernelCall& call, void* scratch);

 private:
  using Sources = std::array<const void*, 6>;  // weight, bias, batch norm's four tensors
  /// The primitive for one source data type (s8 or u8) and what it reads and writes; its
  /// memory objects point into the run's scratch.
  struct Path {
    dnnl::convolution_forward::primitive_desc pd;
    dnnl::convolution_forward prim;  // null until first needed
    dnnl::memory packed;             // weights in pd's layout
    Sources packed_from{};
    dnnl::reorder quantize, dst_reorder, res_reorder;
    dnnl::memory user_src, src, dst, user_dst, user_res, scratchpad;
    std::vector<dnnl_exec_arg_t> args, quantize_args, dst_args, res_args;
    size_t src_off = 0, dst_off = 0;
  };
  Sources sources(const KernelCall& call) const;
  /// Quantizes the weight (or takes its stored int8 bytes) and folds the batch norm into the
  /// scales and the bias; true when the scales changed.
  bool quantize_weights(const KernelCall& call);
  dnnl::convolution_forward::primitive_desc make_pd(const KernelCall& call,
                                                    dnnl::memory::data_type src_type) const;
  /// Makes `path`'s primitive description, memory objects and reorders; returns the scratch
  /// bytes it needs.
  size_t describe(const KernelCall& call, Path& path, dnnl::memory::data_type src_type);
  /// Creates the primitive and packs the weights (again after a swap).
  Status ready(const KernelCall& call, Path& path);
  /// Writes NaN over the whole output.
  void fill_nan(const KernelCall& call) const;

  ConvParams p_;
  std::vector<int8_t> q_;  // the weight's int8 values (when not stored int8)
  const int8_t* qdata_ = nullptr;
  std::vector<float> scales_;  // per output channel: weight scale * batch norm scale
  std::vector<float> bias_;    // per output channel: bias * bn scale + bn shift (or zeros)
  Sources quantized_from_{};
  Path paths_[2];  // source int8 (any sign; not described when narrow_), uint8
  bool fast_ = false;
  bool narrow_ = false;  // int8_pairs_saturate(): 7-bit uint8 with a zero point, paths_[1] only
  dnnl::memory src_scale_, src_zp_, act_scale_, bias_mem_;
};

}  // namespace tir::kernels
