// Only the last position of an output: a generate loop reads the logits of the last prompt
// token, but the program computes them for every position ([1, seq, vocab]), and the lm_head
// GEMM over all of them is a fifth of a Llama 3.2 1B prefill and a third of GPT-2's.
//
// The pass puts a slice of the last position in front of the output and moves it up the
// graph for as long as each position of the sliced dim is computed from the same position of
// the inputs alone: element-wise ops (broadcast inputs stay whole), reductions, softmax and
// norms over other dims, linear / mm / addmm / matmul rows, views, permutes and casts. Where
// that stops (attention, which mixes positions; a value something else also reads; a weight
// or an input), the slice is a node of its own. For an LLM the final norm, lm_head and the
// last layer's MLP then run on one row.
//
//   logits = linear(rms_norm(h), W)          [1, s, V]
//   ->  logits = linear(rms_norm(slice(h, 1, -1)), W)   [1, 1, V]
//
// A value the pass narrowed keeps its FlatBuffer declaration; ExecValue::last_position_dim
// says which of its declared dims is 1 now. Views' size arguments are rewritten to match.
#pragma once

#include <cstddef>
#include <span>

#include "runtime/passes/exec_graph.h"

namespace tir {

/// An output of which only the last position along `dim` is wanted.
struct LastPosition {
  int32_t output = 0;  // index into the method's outputs
  int dim = -2;        // negative: from the end ([1, seq, vocab] logits: -2)
};

/// Narrows each listed output to its last position along its dim; returns the number of
/// nodes that now compute one position instead of all (the slices added not counted). Fails
/// for an output index or dim the method does not have. Run it first: the other passes see
/// the narrowed graph.
Result<size_t> keep_last_position(ExecGraph& g, std::span<const LastPosition> outputs);

}  // namespace tir
