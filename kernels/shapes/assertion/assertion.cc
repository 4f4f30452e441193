#include "kernels/shapes/assertion/assertion.h"

#include <string_view>

#include "kernels/kernel_util.h"

namespace tir::kernels {

Result<AssertParams> assertion_prepare_scalar(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 0));
  TIR_ASSIGN_OR_RETURN(double cond, scalar_arg(call, 0, "self"));
  if (cond == 0.0) {
    const std::string_view msg =
        call.args[1].kind == ArgKind::kString ? call.args[1].s : std::string_view("(no message)");
    return op_error(call, StatusCode::kInvalidArgument, "assertion failed: ", msg);
  }
  (void)out_info;
  return AssertParams{};
}

Result<AssertParams> assertion_prepare_noop(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 0, 0));
  (void)out_info;
  return AssertParams{};
}

}  // namespace tir::kernels
