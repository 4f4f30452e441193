// Functionalisation of the in-place ops of torch.export's training IR (detach_, silu_,
// relu_, fill_, ...). An in-place node `y = op_(x, ...)` becomes `y = op(x, ...)` and every
// later use of x reads y, which is exact when nothing else shares x's memory: x is an
// activation (not a graph input, parameter or buffer, whose mutation the caller sees) that
// is neither a view nor viewed (no view op produced it or took it as input). detach_ changes
// no data, so it always becomes detach. Other in-place nodes stay as they are (the op check
// then lists them if they have no kernel).
#pragma once

#include <string>
#include <string_view>

namespace tir::importer {

/// "aten::silu_" -> "aten::silu", "aten::fill_.Scalar" -> "aten::fill.Scalar",
/// "aten::pow_.Scalar" -> "aten::pow.Tensor_Scalar", "aten::floor_divide_.Tensor" ->
/// "aten::floor_divide" (the overload torch's schemas have); empty when
/// `op` is not an in-place aten op (dunder names such as __and__ are not).
std::string functional_op_name(std::string_view op);

/// True for aten ops whose output may share its input's memory in torch (views).
bool is_view_op(std::string_view op);

}  // namespace tir::importer
