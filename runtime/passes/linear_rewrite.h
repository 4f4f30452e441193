// The load-time pass that gives the core IR's GEMMs on a weight their training-IR form: in
// the core IR (run_decompositions) a `linear` becomes
//   mm(x, permute(W, [1, 0]))                       no bias
//   addmm(b, x, permute(W, [1, 0]))                 beta = alpha = 1
// with W a float32 (or float16/bfloat16) [N, K] weight (and b an [N] weight of its dtype). Each
// such node becomes linear(x, W[, b]), which is what the precision paths key on: int8 weights
// (SessionOptions::precision kInt8) and bf16 packing apply to a GEMM whose weight operand is a
// weight, and a permute of one is not. Permutes left without readers are dropped, so the
// transposed view is never computed. Anything else (a weight used [K, N] as stored, as
// GPT-2's Conv1D does; other permutations; scaled addmm) is left as it is.
//
// Runs before placement, with the other graph optimisations (SessionOptions::fuse).
#pragma once

#include <cstddef>

#include "runtime/passes/exec_graph.h"

namespace tir {

/// Rewrites every GEMM of the patterns above into aten::linear; returns how many. `def_use`
/// (of `g`) is kept up to date.
size_t rewrite_weight_gemms_as_linear(ExecGraph& g, DefUse& def_use);

}  // namespace tir
