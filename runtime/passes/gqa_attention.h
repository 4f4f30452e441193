// The load-time pass that lets attention read grouped-query keys and values as they are
// stored. Transformers' repeat_kv widens each key/value head to the query heads it serves
// before attention (GQA: Llama, Qwen, Gemma, Mistral):
//   x [B, KV, S, D] -> unsqueeze(2) -> expand [B, KV, R, S, D] -> reshape [B, KV*R, S, D]
// which copies the whole key/value cache R times on every step (Llama 3.2 1B: R = 4, 32
// copies of the cache per token). When both the key and the value of an
// aten::scaled_dot_product_attention are built this way from rank-4 values, the same R, and
// nothing else reads the widened copies, attention reads x directly with enable_gqa set
// (query head h reads kv head h / R, which is what the expand + reshape laid out), and the
// unsqueeze, expand and reshape nodes go. Any other shape of graph is left as it is.
//
// Runs before placement, with the other graph optimisations (SessionOptions::fuse);
// TIR_GQA_IN_PLACE=0 in the environment turns it off alone (for comparing the two).
#pragma once

#include <cstddef>

#include "runtime/passes/exec_graph.h"

namespace tir {

/// Rewrites every attention of the pattern above; returns how many. `def_use` (of `g`) is
/// kept up to date.
size_t read_grouped_kv_in_place(ExecGraph& g, DefUse& def_use);

}  // namespace tir
