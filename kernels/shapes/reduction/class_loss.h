// Shape and dtype rules of the class losses torch's training IR keeps as ops of their own
// (run_decompositions() writes them out as log_softmax, gather and sums): nll_loss,
// nll_loss_nd, nll_loss_forward / nll_loss2d_forward (which also give total_weight) and
// cross_entropy_loss (log_softmax over the class dim first; label smoothing; a target of class
// indices, or of class probabilities with self's shape).
// self is [N, C, d1, ...] or [C]; a class-index target [N, d1, ...] (or []) of int64, each in
// [0, C) or ignore_index (checked at run). reduction none gives the target's shape, mean and
// sum a 0-dim tensor: mean divides by the summed weights of the targets not ignored (NaN when
// that is 0, as torch), or for probability targets by the number of positions.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/ops/loss.h"

namespace tir::kernels {

struct ClassLossParams {
  enum class Kind : uint8_t { kNll, kNllForward, kCrossEntropy };
  Kind kind = Kind::kNll;
  ops::LossReduction reduction = ops::LossReduction::kMean;
  int self = -1, target = -1, weight = -1;  // inputs; weight -1: none
  DType dtype = DType::kUndefined;
  int64_t batch = 1, classes = 0, inner = 1;  // self viewed as [batch, classes, inner]
  int64_t ignore_index = -100;
  double smoothing = 0;        // cross_entropy_loss's label_smoothing
  bool probabilities = false;  // a float target of self's shape
};

template <ClassLossParams::Kind Kind>
Result<ClassLossParams> class_loss_prepare(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
