#include "kernels/shapes/assertion/assertion.h"

#include <string_view>

#include "kernels/kernel_util.h"
#include "kernels/shapes/dtype_util.h"

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

Result<AssertAsyncParams> assertion_prepare_async(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 1, 0));
  TIR_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(call, 0, "self"));
  if (self->numel() != 1)
    return op_error(call, StatusCode::kInvalidArgument, "self has ", self->numel(),
                    " elements, the assertion needs one");
  if (!dtype_supported(self->dtype))
    return op_error(call, StatusCode::kUnsupported, "self of dtype ", dtype_name(self->dtype));
  AssertAsyncParams p;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  const bool has_msg = call.args.size() > 1 && call.args[1].kind == ArgKind::kString;
  p.message = has_msg ? std::string(call.args[1].s) : "(no message)";
  return p;
}

Status assertion_run_async(const AssertAsyncParams& p, const KernelCall& call) {
  const ScalarValue v = read_scalar_value(call.inputs[p.input]);
  if (v.is_float ? v.f == 0.0 : v.i == 0)
    return op_error(call, StatusCode::kInvalidArgument, "assertion failed: ", p.message);
  return ok_status();
}

Result<int64_t> local_scalar_value(const Tensor& t) {
  if (t.numel() != 1)
    return make_error(StatusCode::kInvalidArgument, ".item() of a tensor of ", t.numel(),
                      " elements, expected one");
  switch (t.dtype) {
    case DType::kInt64:
      return *t.data_as<const int64_t>();
    case DType::kInt32:
      return int64_t{*t.data_as<const int32_t>()};
    case DType::kInt16:
      return int64_t{*t.data_as<const int16_t>()};
    case DType::kInt8:
      return int64_t{*t.data_as<const int8_t>()};
    case DType::kUInt8:
    case DType::kBool:
      return int64_t{*t.data_as<const uint8_t>()};
    default:
      return make_error(StatusCode::kUnsupported, ".item() of a ", dtype_name(t.dtype),
                        " tensor as an int, not supported");
  }
}

Result<LocalScalarParams> assertion_prepare_local_scalar(const KernelCall& call,
                                                         PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 0));
  TIR_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(call, 0, "self"));
  if (self->numel() != 1)
    return op_error(call, StatusCode::kInvalidArgument, "self has ", self->numel(),
                    " elements, .item() needs one");
  if (call.args[1].kind != ArgKind::kInt)
    return op_error(call, StatusCode::kInvalidArgument, "argument 'symbol' is not a SymInt");
  (void)out_info;
  return LocalScalarParams{call.args[1].i};
}

Status assertion_run_local_scalar(const LocalScalarParams& p, const KernelCall& call) {
  auto v = local_scalar_value(call.inputs[0]);
  if (!v.ok()) return op_error(call, v.status().code(), v.status().message());
  if (*v != p.bound)
    return op_error(call, StatusCode::kInternal, "the value is ", *v, " but the method was ",
                    "planned for ", p.bound);
  return ok_status();
}

Result<AssertParams> assertion_prepare_noop(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 0, 0));
  (void)out_info;
  return AssertParams{};
}

}  // namespace tir::kernels
