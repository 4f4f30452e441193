// Shape and dtype rules of the special functions (kernels/ops/special.h): erfinv, lgamma,
// digamma, i0 of (self), polygamma of (n, self). Integer and bool inputs give float32 (torch's
// int-to-float promotion); float inputs keep their dtype.
#pragma once

#include "kernels/kernel.h"
#include "kernels/ops/special.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

struct SpecialParams {
  ops::SpecialKind kind = ops::SpecialKind::kErfinv;
  Operand x;
  NaryPlan plan;
  DType out = DType::kUndefined;
  int64_t n = 0;  // polygamma's order
};

template <ops::SpecialKind Kind>
Result<SpecialParams> special_prepare(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
