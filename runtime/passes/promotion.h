// Type promotion by torch's rules (torch.result_type), decided once when a method is lowered:
// an element-wise op whose tensor operands are not all of the dtype torch computes it in
// (float32 x int64 in BLOOM's ALiBi, int64 / int64 true division, int32 + int64) gets a cast
// (aten::_to_copy) of each such operand in front of it, so its kernel sees one dtype and has
// no per-element conversion. Arithmetic computes in its output's dtype (the one torch
// recorded); comparisons in the promoted dtype of their operands (0-d tensors and Python
// numbers count only where they raise the category: bool < integer < float). Which ops and
// arguments take part is a capability of their catalogue row (kernels/ops/catalogue.h
// OpCaps::promoted, compare, bool_other); a Tensor[] argument (cat, stack) has each entry
// cast.
#pragma once

#include <cstddef>

#include "runtime/passes/exec_graph.h"

namespace tir {

/// Inserts the casts; returns how many. Run before placement (kernels are picked by dtype).
size_t promote_operands(ExecGraph& g);

}  // namespace tir
