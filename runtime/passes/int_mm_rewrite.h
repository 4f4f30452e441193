// The load-time pass that lets the int8 product of a torchao dynamically quantized linear
// (Int8DynamicActivationInt8WeightConfig; tests/data/gen_torchao.py) pack its weight once:
//   training IR  _int_mm(q_x, t(w))           core IR  _int_mm(q_x, permute(w, [1, 0]))
// where w is an int8 [N, K] weight of the program (torchao's qdata, a parameter after
// unwrap_tensor_subclass), becomes tir::int_mm_weight(q_x, w) (kernels/shapes/linear_algebra/
// int_mm.h): the kernel then sees w's bytes at prepare (a view of a weight is an activation,
// known only at run) and packs them once (kernels/cpu/int8/int_mm.cc). The transposes left
// without readers are marked dead. The integers are the same either way.
//
// Runs before placement, with the other graph optimisations (SessionOptions::fuse).
#pragma once

#include <cstddef>

#include "runtime/passes/exec_graph.h"

namespace tir {

/// Rewrites every _int_mm of the pattern above; returns how many. `def_use` (of `g`) is kept
/// up to date.
size_t rewrite_int_mm_weights(ExecGraph& g, DefUse& def_use);

}  // namespace tir
