// The int8 path of the oneDNN GEMM kernels (aten::linear, addmm, mm; core/precision.h kInt8):
//   out[i, :] = s_A[i] * alpha * ((q_A[i, :] - zp[i]) @ q_B) * s_B  [+ bias]  [-> activation]
// B is a weight: its int8 bytes come from an int8 weight file (WeightServices::input_quantized)
// or are quantized when the node is prepared (core/quantize.h, the same bytes either way),
// symmetric per output channel, then packed once into the layout the primitive prefers (in
// the weight set's packed cache, with its scales and zero-point sums: a layout cache file
// keeps it for later processes, runtime/weights/layout_cache.h). A is quantized on every run, each
// row (token) with its own scale and zero point (asymmetric uint8 over the row's min and max;
// VNNI/AMX multiply uint8 by int8): trained transformers have rows whose range is far wider than
// the rest, and one scale for the whole tensor cost accuracy there (bench/lowp/accuracy.py,
// all-MiniLM-L6-v2). The accumulator is int32; the primitive applies B's per-channel scales (fixed
// in it: runtime or per-row scales send oneDNN 2.6 from its AMX/VNNI brgemm kernel to a generic
// one, measured ~100x slower), then one pass applies each row's scale and zero-point term (zp[i] *
// s_B[j] * sum_k q_B[k, j], precomputed with B), the bias and relu, and a oneDNN eltwise primitive
// any other activation. A weight swap repacks B and rebuilds the primitive. A smoothed int8 weight
// (`tir-calibrate`, SmoothQuant) holds q of w * s per input channel k: A is multiplied by its 1/s
// inside the two per-row passes (range, quantize). Where the CPU's u8 x s8 pairs saturate (no
// AVX512-VNNI: kernels/cpu/onednn/onednn_context.h int8_pairs_saturate) A's rows are quantized to
// 0..127, scale (max - min) / 127, as fbgemm's reduce_range: a pair of products then stays within
// int16.
//
// One row of A (an LLM's decode step) with linear's [N, K] weight: B stays plain (the int8
// file's bytes in place, or quantized once) and each output is an exact int32 dot product of
// A's row with B's row (kernels/cpu/int8/gemv_int8.h: AVX2, or AVX512-VNNI where the CPU has
// it), instead of a oneDNN int8 primitive, which without VNNI is no faster than float32 there
// (Llama-shaped 1.2 B at 2 threads: 6.2 tokens/s either way).
// The result is the primitive's: the same integers, scaled the same way.
//
// A row of A that holds NaN or infinity has no int8 scale: that row of the output is NaN
// (never a silently finite answer), as torch's float GEMM gives NaN in that row.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu/onednn/onednn_context.h"
#include "kernels/shapes/linear_algebra/gemm.h"

namespace tir::kernels {

class Int8Gemm {
 public:
  /// True when `call` should run in int8: B is a weight or constant (its bytes known at
  /// prepare) and either it is stored int8 or the call's precision is kInt8, and C is at most
  /// a row-broadcast bias (beta == 1).
  static bool wanted(const KernelCall& call, const GemmParams& p);
  /// True when wanted and B's int8 storage is read as stored (per output channel, as the
  /// GEMM reads B), so B's float32 bytes are never needed (OpCaps::int8_weight).
  static bool reads_stored(const KernelCall& call, const GemmParams& p);
  /// Builds the primitive and packs B; `*scratch` grows by what run needs.
  Status build(const KernelCall& call, const GemmParams& p, size_t* scratch);
  Status run(const KernelCall& call, void* scratch);

 private:
  struct PackedB;  // int8 B in the primitive's layout + per-channel scales
  /// B quantized and packed into `layout` (from the weight set's cache when it has one).
  /// With gemv_, B stays plain [N, K] (`layout` unused).
  Result<std::shared_ptr<PackedB>> pack_b(const KernelCall& call, const void* data,
                                          const dnnl::memory::desc& layout);
  /// B's int8 bytes (the storage read as stored, or `data` quantized into packed->own),
  /// with packed's scales, zero-point sums and smoothing factors filled in.
  const int8_t* quantize_b(const KernelCall& call, const void* data, PackedB* packed) const;
  /// The packed cache's key for B in `layout` (`stored`: B's int8 storage, or null).
  std::string pack_key(const QuantizedWeight* stored, const dnnl::memory::desc& layout) const;
  /// The primitive for B's scales `scales` (oneDNN output scales).
  dnnl::matmul::primitive_desc make_pd(const KernelCall& call, const std::vector<float>& scales);
  /// Packs B from `data` and makes the primitive for its scales.
  Status use_b(const KernelCall& call, const void* data);
  /// out[j] = scales[j] * (q_A . q_B[j, :]) for the one row of A (gemv_).
  void gemv(const uint8_t* qa, float* out) const;
  /// The primitive's output (B's scales applied) -> the result: per row i,
  /// row_scale[i] * (out - row_zp[i] * zp_sum) + bias, relu; a NaN scale makes the row NaN.
  void finish_rows(const KernelCall& call, const float* row_scale, const int32_t* row_zp,
                   float* out) const;

  GemmParams p_;
  bool bias_ = false;
  bool gemv_ = false;  // one row of A, B [N, K]: own dot products, no primitive
  dnnl::matmul::primitive_desc pd_;
  dnnl::matmul prim_;
  dnnl::memory src_, wei_, dst_, scratchpad_;
  std::vector<dnnl_exec_arg_t> args_;
  std::vector<dnnl::eltwise_forward> act_;  // an activation other than relu, in place
  std::vector<dnnl_exec_arg_t> act_args_;
  std::shared_ptr<PackedB> packed_;
  const void* packed_from_ = nullptr;        // B's data pointer when packed (a swap repacks)
  size_t a_offset_ = 0, params_offset_ = 0;  // in the run scratch: A quantized, rows' scale + zp
};

}  // namespace tir::kernels
