// Run function of the reference comparison/bitwise/select kernel (logic.cc) and the kernel type
// binary/arithmetic.cc registers the bitwise tensor ops with.
#pragma once

#include "kernels/kernel.h"
#include "kernels/kernel_util.h"
#include "kernels/shapes/binary/logic.h"

namespace tir::kernels {

void ref_logic(const LogicParams& p, const KernelCall& call, void* scratch);

template <LogicOp Op>
using BitwiseRef = FnKernel<LogicParams, logic_prepare_bitwise<Op>, ref_logic>;

}  // namespace tir::kernels
