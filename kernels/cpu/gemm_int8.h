// The int8 path of the oneDNN GEMM kernels (aten::linear, addmm, mm; core/precision.h kInt8):
//   out = (q_A - zp) @ q_B * (s_A * s_B[n] * alpha)  [+ bias]  [-> epilogue]
// B is a weight: its int8 bytes come from an int8 weight file (KernelCall::input_quantized)
// or are quantized when the node is prepared (core/quantize.h, the same bytes either way),
// symmetric per output channel, then packed once into the layout the primitive prefers (in
// the weight set's packed cache). A is quantized on every run: one scale and zero point for
// the whole tensor (asymmetric uint8, min and max of A; VNNI/AMX multiply uint8 by int8).
// The accumulator is int32. B's per-channel scales are oneDNN output scales fixed in the
// primitive (runtime output scales would send oneDNN 2.6 from its AMX/VNNI brgemm kernel to
// a generic one, measured ~100x slower here), A's per-run scale times alpha a binary multiply
// post-op by a runtime scalar, then the bias (a binary add, unscaled) and the fused
// activation, into a float32 output. A weight swap repacks B and rebuilds the primitive.
//
// A that holds NaN or infinity has no int8 scale: the whole output is then NaN (never a
// silently finite answer).
#pragma once

#include <memory>
#include <vector>

#include "kernels/cpu/onednn_context.h"
#include "kernels/shapes/gemm_shapes.h"

namespace tir::kernels {

class Int8Gemm {
 public:
  /// True when `call` should run in int8: B is a weight or constant (its bytes known at
  /// prepare) and either it is stored int8 or the call's precision is kInt8, and C is at most
  /// a row-broadcast bias (beta == 1).
  static bool wanted(const KernelCall& call, const GemmParams& p);
  /// Builds the primitive and packs B; `*scratch` grows by what run needs.
  Status build(const KernelCall& call, const GemmParams& p, size_t* scratch);
  Status run(const KernelCall& call, void* scratch);

 private:
  struct PackedB;  // int8 B in the primitive's layout + per-channel scales
  /// B quantized and packed into `layout` (from the weight set's cache when it has one).
  Result<std::shared_ptr<PackedB>> pack_b(const KernelCall& call, const void* data,
                                          const dnnl::memory::desc& layout);
  /// The primitive for B's scales `scales` (oneDNN output scales).
  dnnl::matmul::primitive_desc make_pd(const KernelCall& call, const std::vector<float>& scales);
  /// Packs B from `data` and makes the primitive for its scales.
  Status use_b(const KernelCall& call, const void* data);

  GemmParams p_;
  bool bias_ = false;
  dnnl::matmul::primitive_desc pd_;
  dnnl::matmul prim_;
  dnnl::memory src_, wei_, dst_, bias_mem_, a_scale_, zero_point_, scratchpad_;
  std::vector<dnnl_exec_arg_t> args_;
  std::shared_ptr<PackedB> packed_;
  const void* packed_from_ = nullptr;        // B's data pointer when packed (a swap repacks)
  size_t a_offset_ = 0, params_offset_ = 0;  // in the run scratch: A quantized, scale + zp
};

}  // namespace tir::kernels
