// Programs in dtypes that most kernels do not implement, run as torch's CPU kernels run them:
// float16 and bfloat16 load their elements, compute in float32 and round the result; uint8,
// int8, int16 and int32 compute in int64 and wrap the result (two's complement, as torch's
// narrow integer arithmetic wraps; not in the sort/select family, whose kernels pick their
// int32 outputs themselves, nor in quantization). A node
// that reads or writes such a tensor, whose op's catalogue row neither lists that dtype for a
// CPU backend nor takes every dtype (OpCaps::all_dtypes: views, copies, gathers, casts), gets
// casts around it: each narrow tensor input is widened
// (one cast per value, shared by the nodes that read it), the node computes in the wide dtype,
// and each narrow output is narrowed back by a cast to the dtype torch gave it. A ScalarType
// argument naming a narrow dtype (full(dtype=bf16), sum(dtype=)) is widened the same way.
// Weights and the values between such ops stay in the program's dtype (half the bytes of
// float32 for a bfloat16 model); a GEMM's half-precision weight is not even widened per run:
// after placement, kernels that read it as stored take it in place of its cast
// (read_half_weights_as_stored).
#pragma once

#include <cstddef>

#include "kernels/ops/catalogue.h"
#include "runtime/passes/exec_graph.h"

namespace tir {

/// The dtype a narrow dtype computes in: float32 for float16/bfloat16, int64 for uint8, int8,
/// int16 and int32; kUndefined for the others.
DType wide_compute_dtype(DType d);

/// True when a node of `row`'s op (in `family`) computes a `d` operand in
/// wide_compute_dtype(d): the row's kernels do not take `d` and the pass widens it.
bool narrow_dtype_widened(const kernels::OpRow& row, kernels::Family family, DType d);

/// Inserts the casts; returns how many nodes now compute in a wider dtype. Run after type
/// promotion and before placement (kernels are picked by dtype).
size_t compute_narrow_dtypes_wide(ExecGraph& g);

/// After placement: a node whose kernel reads a float16/bfloat16 weight as stored
/// (OpCaps::half_weight, the GEMM family's B on the CPU) takes the weight itself instead of
/// its float32 cast, and a cast no node reads any more is marked dead. Returns how many
/// operands now read a weight as stored. A bfloat16 model then holds no float32 copy of its
/// GEMM weights, not even one per run in the arena.
size_t read_half_weights_as_stored(ExecGraph& g);

}  // namespace tir
