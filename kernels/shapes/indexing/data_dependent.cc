#include "kernels/shapes/indexing/data_dependent.h"

#include "kernels/kernel_util.h"

namespace tir::kernels {

Result<DataDependentParams> nonzero_prepare(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  DataDependentParams p;
  TIR_ASSIGN_OR_RETURN(p.operands[0], tensor_operand_arg(call, 0, "self"));
  if (call.args[1].kind != ArgKind::kInt)
    return op_error(call, StatusCode::kInvalidArgument, "its output size was not bound");
  p.count = call.args[1].i;
  p.dtype = p.operands[0].dtype;
  const int64_t sizes[2] = {p.count, int64_t(p.operands[0].shape.size())};
  call.outputs[0].dtype = DType::kInt64;
  call.outputs[0].set_shape(sizes);
  return p;
}

Result<DataDependentParams> masked_select_prepare(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  DataDependentParams p;
  TIR_ASSIGN_OR_RETURN(p.operands[0], tensor_operand_arg(call, 0, "self"));
  TIR_ASSIGN_OR_RETURN(p.operands[1], tensor_operand_arg(call, 1, "mask"));
  if (p.operands[1].dtype != DType::kBool)
    return op_error(call, StatusCode::kInvalidArgument, "argument 'mask' must be a bool tensor");
  if (call.args[2].kind != ArgKind::kInt)
    return op_error(call, StatusCode::kInvalidArgument, "its output size was not bound");
  p.count = call.args[2].i;
  p.dtype = p.operands[0].dtype;
  const std::span<const int64_t> shapes[2] = {p.operands[0].shape, p.operands[1].shape};
  TIR_ASSIGN_OR_RETURN(p.plan, make_nary_plan(call, shapes));
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(std::span<const int64_t>(&p.count, 1));
  return p;
}

int64_t count_nonzero(const Tensor& t) {
  int64_t n = 0;
  visit_dtype(t.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = t.data_as<const T>();
    for (int64_t i = 0; i < t.numel(); ++i) n += x[i] != T{};
  });
  return n;
}

int64_t count_masked(const Tensor& mask, std::span<const int64_t> self_shape) {
  // Broadcasting repeats each mask element over the dims it lacks or has as 1.
  const int rank = std::max<int>(mask.rank, int(self_shape.size()));
  int64_t repeat = 1;
  for (int d = 0; d < rank; ++d) {
    const int ms = d - (rank - mask.rank), ss = d - (rank - int(self_shape.size()));
    const int64_t m = ms >= 0 ? mask.sizes[ms] : 1, s = ss >= 0 ? self_shape[ss] : 1;
    if (m == 1) repeat *= s;
  }
  return count_nonzero(mask) * repeat;
}

}  // namespace tir::kernels
