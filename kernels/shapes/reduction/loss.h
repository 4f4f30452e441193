// Shape and dtype rules of the element-wise losses (kernels/ops/loss.h): mse_loss, l1_loss,
// smooth_l1_loss, huber_loss, binary_cross_entropy (an optional weight),
// binary_cross_entropy_with_logits (an optional weight; pos_weight refused) and kl_div.
// self and target broadcast (the weight too); reduction none gives that shape, mean and sum a
// 0-dim tensor. Floating-point self; the output has self's dtype.
#pragma once

#include "kernels/kernel.h"
#include "kernels/ops/loss.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

struct LossParams {
  ops::LossKind kind = ops::LossKind::kMse;
  ops::LossReduction reduction = ops::LossReduction::kMean;
  Operand x, y, w;  // w: the weight, or input -1 (none)
  NaryPlan plan;
  double p = 0;  // beta, delta or log_target
  DType out = DType::kUndefined;
};

template <ops::LossKind Kind>
Result<LossParams> loss_prepare(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
