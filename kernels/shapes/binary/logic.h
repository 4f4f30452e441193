// Shared shape inference and validation for comparisons (eq/ne/lt/le/gt/ge), bitwise_not,
// logical_not, where and triu/tril. These ops take bool, int32, int64, float32 and float64
// tensors, and Python scalars where the schema has a Tensor.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

/// The ops of this file. bitwise and/or/xor of two operands are BinaryKinds
/// (kernels/ops/binary.h; kernels/shapes/binary/math.h).
enum class LogicOp : uint8_t {
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kBitNot,
  kLogicalNot,
  kWhere,  // out = operands[0] ? operands[1] : operands[2]
  kTriu,
  kTril,
};

/// Operands in schema order, broadcast by `plan`. `compute` is the dtype comparisons
/// and bitwise_not run in (torch.result_type of the operands); `out` the result dtype.
struct LogicParams {
  LogicOp op = LogicOp::kEq;
  int n = 0;
  std::array<Operand, 3> operands{};
  NaryPlan plan;
  DType compute = DType::kUndefined;
  DType out = DType::kBool;
  int64_t diagonal = 0;  // triu/tril; rows/cols are the last two output dims
};

/// eq/ne/lt/le/gt/ge .Tensor and .Scalar (self, other) -> bool.
template <LogicOp Op>
Result<LogicParams> logic_prepare_compare(const KernelCall& call, PrepareInfo* out_info);
/// bitwise_not(self) (bool or integer) and logical_not(self) -> bool.
template <LogicOp Op>
Result<LogicParams> logic_prepare_not(const KernelCall& call, PrepareInfo* out_info);
/// where.self(condition, self, other): condition bool; self/other promote.
Result<LogicParams> logic_prepare_where(const KernelCall& call, PrepareInfo* out_info);
/// triu/tril(self, diagonal=0) on rank >= 2.
template <LogicOp Op>
Result<LogicParams> logic_prepare_triangle(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
