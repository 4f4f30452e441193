// The GEMM family (aten::linear, addmm, mm) with a float16/bfloat16 weight B and float32
// activations: a half-precision program's GEMMs, whose weight runtime/passes/narrow_dtypes.h
// leaves as stored while the activations around it compute in float32 (as torch's CPU kernels
// do: load half, accumulate in float32, round the result). B is read in its own bytes on every
// run and never widened whole, so a bf16 model holds one 2-byte copy of its GEMM weights:
// - Fewer than kTiledRows rows of A (an LLM's decode step): each output element is a dot
//   product of A's row with B's column, widened 8 lanes at a time in registers (AVX2 + F16C).
//   B is read once per run at 2 bytes an element, half of float32's traffic.
// - More rows (a prefill, a batch), B bfloat16, on a CPU that computes bf16 natively
//   (AVX512-BF16, AMX: onednn_native_bf16): one oneDNN bf16 matmul, A converted to bfloat16 per
//   run (exact for a bf16 program, whose activations are bf16 values), B packed once from its
//   stored bf16 bytes into the primitive's layout (the packed cache shares it), float32
//   accumulation and output: what torch's CPU bf16 linear computes, on the AMX tiles.
// - Otherwise: B is widened tile by tile, a few hundred columns of float32 at a time, into the
//   run's scratch, and a oneDNN float32 matmul primitive multiplies each tile into its columns
//   of the output (alpha as output scale, bias, sum and activation post-ops as the float32
//   kernel applies them).
// Accumulation is float32; the casts after the node round its result to the program's dtype.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

#include "kernels/cpu/onednn/onednn_context.h"
#include "kernels/cpu/onednn/onednn_operand.h"
#include "kernels/shapes/linear_algebra/gemm.h"

namespace tir::kernels {

class HalfWeightGemm {
 public:
  /// Rows of A from which B is widened tile by tile for oneDNN instead of read by dot products.
  static constexpr int64_t kTiledRows = 16;

  /// True when B is float16 or bfloat16 (A, C and the output are float32).
  static bool wanted(const GemmParams& p) {
    return p.b_dtype == DType::kFloat16 || p.b_dtype == DType::kBFloat16;
  }
  /// Makes the tile primitives (when tiled); `*scratch` becomes what run needs.
  Status build(const KernelCall& call, const GemmParams& p, size_t* scratch);
  Status run(const KernelCall& call, void* scratch);

 private:
  using Mode = GemmCMode;
  /// One oneDNN product of A with `cols` widened columns of B into the output's columns.
  struct Tile {
    int64_t cols = 0;
    dnnl::matmul prim;
    dnnl::memory src, wei, dst, bias, scratchpad;
    std::vector<dnnl_exec_arg_t> args;
  };
  Status make_tile(const KernelCall& call, int64_t cols, Tile* tile, size_t* scratch);
  /// The bias operand of a product over `cols` of the output's columns (none without bias).
  dnnl::memory::desc bias_desc(int64_t cols) const;
  /// Scratchpad, alpha as output scale, beta * C as a sum post-op, the fused activation.
  dnnl::primitive_attr make_attr(const KernelCall& call) const;
  /// The primitive of `pd` over `cols` columns and its memories (no data yet) into `tile`.
  void init_tile(const KernelCall& call, const dnnl::matmul::primitive_desc& pd, int64_t cols,
                 Tile* tile) const;
  /// Columns [j0, j0 + cols) of B as float32 in the layout the tile's weights desc says.
  void widen_tile(const uint16_t* b, int64_t j0, int64_t cols, float* dst) const;
  Status run_tiled(const KernelCall& call, float* out, void* scratch);
  /// The native bf16 matmul (native_); false when oneDNN has none for it (then tiles).
  Result<bool> make_native(const KernelCall& call, size_t* scratch);
  Status run_native(const KernelCall& call, float* out, void* scratch);
  /// out = alpha * A @ B (+ beta * C) by dot products over B's columns.
  void run_rows(const KernelCall& call, float* out) const;

  GemmParams p_;
  Mode mode_ = Mode::kNone;
  bool tiled_ = false;
  Tile full_, tail_;        // tiles of tile_cols_ columns, and the last narrower one (cols 0: none)
  size_t tile_offset_ = 0;  // the widened tile's place in the run scratch
  bool native_ = false;     // one bf16 x bf16 matmul (onednn_native_bf16)
  Tile whole_;              // native_: the matmul over all of B's columns
  OnednnOperand a_bf16_, b_packed_;
};

}  // namespace tir::kernels
