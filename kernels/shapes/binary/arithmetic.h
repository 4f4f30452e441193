// Shared shape inference and validation for the broadcasting binary ops add/sub with alpha,
// mul and div (Tensor and Scalar overloads share one layout: (self, other[, alpha])).
#pragma once

#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/kernel_util.h"
#include "kernels/ops/binary.h"

namespace tir::kernels {

using ops::BinaryKind;

/// out = self (op) alpha*other, where `other` is a tensor broadcast with `plan`, or a
/// scalar: an int/float argument or a 0-d tensor of another dtype read at run time. `other`
/// may also be a bool tensor (a mask, promoted to self's dtype), and `self` a number when
/// `other` is a tensor (torch <= 2.8 decomposes rsub(t, s) to sub.Tensor(s, t)).
struct BinaryParams {
  BinaryKind op = BinaryKind::kAdd;
  DType dtype = DType::kFloat32;  // dtype of self and the output (float32 or int64)
  double alpha = 1.0;
  BroadcastPlan plan;
  int a_input = -1;
  int b_input = -1;                   // -1 when other is a scalar argument
  bool b_scalar = false;              // other is a scalar (argument or 0-d tensor)
  double b_value = 0.0;               // the scalar argument
  DType b_dtype = DType::kUndefined;  // dtype of a 0-d tensor `other`
  bool same_shape = false;            // fast path: a and b have the output's shape
  bool b_bool = false;                // other is a bool tensor (read as 0/1)
  bool a_scalar = false;              // self is the number a_value; a_input = -1
  double a_value = 0.0;
  /// An operand or the output is channels-last (eltwise_prepare_binary_channels_last only):
  /// `plan` then walks the output in memory order (dense in the plan's dim order) with each
  /// operand's real element strides (0 for a number or a broadcast dim); float32 only.
  bool strided = false;
};

/// Shared by add.Tensor, add_.Tensor, add.Scalar, sub.Tensor (alpha at position 2) and
/// mul.Tensor, mul_.Tensor, mul.Scalar, div.Tensor (no alpha).
template <BinaryKind Op>
Result<BinaryParams> eltwise_prepare_binary(const KernelCall& call, PrepareInfo* out_info);

/// The same for kernels that accept channels-last: a tensor operand may also be a
/// channels-last float32 [N, C, H, W], and the output gets channels-last strides when
/// KernelCall::channels_last (instantiated for kMul).
template <BinaryKind Op>
Result<BinaryParams> eltwise_prepare_binary_channels_last(const KernelCall& call,
                                                          PrepareInfo* out_info);

/// Reads a 0-d tensor's value as double (float32/64, int32/64).
double read_scalar_tensor(const Tensor& t, DType dtype);

}  // namespace tir::kernels
