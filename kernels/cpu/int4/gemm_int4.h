// The int4 path of the CPU GEMM kernels (aten::linear; addmm / mm whose B is a transposed
// linear weight run as linear): B is a weight stored int4 (`tirc weights pack --dtype int4`,
// core/quantize_int4.h: 4-bit codes in groups of 32 or 128 along K, a float32 scale and offset
// per group), read as stored, never dequantized: the model's GEMM weights stay ~4.5-5 bits each.
//
// A is quantized on every run as llama.cpp quantizes activations for Q4_0 (Q8_0): each run of
// 32 values of a row gets its own scale d = max|a| / 127 and int8 codes c = round(a / d). Then
//   out[i, j] = alpha * sum over groups g of (s_g * sum over blocks b in g of d_b * (q . c)_b
//                                             + m_g * sum over blocks b in g of d_b * sum(c)_b)
//               [+ bias] [-> activation]
// with w = q * s + m, q in 0..15 (symmetric: m = -8 s). (q . c)_b is an exact int32 dot product
// of 32 unsigned 4-bit codes with 32 int8 codes (AVX2 maddubs: a pair of products is at most
// 2 * 15 * 127, far inside int16, so nothing saturates), scaled by s_g * d_b in float32.
// The AVX2 path runs up to 4 rows of A against each unpacked run of B (a prefill reuses each
// weight byte 4 times from registers); a build without AVX2 runs the same integers in plain
// loops. Parallel over N. A row of A that holds NaN or infinity gives NaN in that row of the
// output, as torch does. Where the CPU has AVX512-VNNI (kernels/cpu/cpu_isa.h) the same integers
// run two blocks per vpdpbusd (64 codes: 512 bits), with float accumulation in another order
// (results equal the AVX2 path's to float rounding). No AMX variant yet.
#pragma once

#include "core/quantize_int4.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/kernel.h"
#include "kernels/shapes/linear_algebra/gemm.h"

namespace tir::kernels {

class Int4Gemm {
 public:
  /// B's int4 storage when it holds B as this GEMM reads it (linear's [N, K], groups along
  /// K), else null.
  static const QuantizedWeight* stored(const KernelCall& call, const GemmParams& p);
  /// True when the node runs here: B stored int4 as read and C at most a row-broadcast bias.
  static bool wanted(const KernelCall& call, const GemmParams& p);
  Status build(const KernelCall& call, const GemmParams& p, size_t* scratch);
  Status run(const KernelCall& call, void* scratch) const;

 private:
  GemmParams p_;
  bool bias_ = false;
  size_t codes_offset_ = 0, scales_offset_ = 0, sums_offset_ = 0;  // in the run scratch
};

/// The product of one int8-quantized A (rows m of k values: codes `qa`, per-32 scales `da`
/// [m, k / 32], per-group terms `ga` [m, k / group] = sum over the group's blocks of d_b *
/// sum(c)_b) with the int4 weight `w` [n, k], into out [m, n] (alpha applied, nothing else).
/// Columns [j0, j1) only, with variant `isa` (at most cpu_isa()). Exposed for the benchmark and
/// the op suite.
void int4_gemm_q8(const Int4View& w, const int8_t* qa, const float* da, const float* ga, int64_t m,
                  int64_t j0, int64_t j1, float alpha, float* out, CpuIsa isa = cpu_isa());

/// The same in plain loops: what a build without AVX2 runs (the op suite holds the AVX2 path
/// to it).
void int4_gemm_q8_plain(const Int4View& w, const int8_t* qa, const float* da, const float* ga,
                        int64_t m, int64_t j0, int64_t j1, float alpha, float* out);

/// Quantizes row `a` (k values, k % 32 == 0) into codes, per-32 scales and per-group terms as
/// int4_gemm_q8 reads them. False when the row holds NaN or infinity (outputs untouched).
bool int4_quantize_row_q8(const float* a, int64_t k, int64_t group, int8_t* qa, float* da,
                          float* ga);

}  // namespace tir::kernels
