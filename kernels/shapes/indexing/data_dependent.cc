#include "kernels/shapes/indexing/data_dependent.h"

#include <algorithm>
#include <vector>

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

namespace {

/// The bound size (the trailing int argument at `at`), else the output_size argument.
Result<int64_t> bound_count(const KernelCall& call, size_t at, size_t output_size) {
  if (call.args.size() > at && call.args[at].kind == ArgKind::kInt) return call.args[at].i;
  if (call.args.size() > output_size && call.args[output_size].kind == ArgKind::kInt)
    return call.args[output_size].i;
  return op_error(call, StatusCode::kInvalidArgument, "its output size was not bound");
}

Status require_repeats(const KernelCall& call, const Tensor& r) {
  if (r.dtype != DType::kInt64 && r.dtype != DType::kInt32)
    return op_error(call, StatusCode::kInvalidArgument,
                    "argument 'repeats' must be int64 or "
                    "int32, got ",
                    dtype_name(r.dtype));
  if (r.rank > 1)
    return op_error(call, StatusCode::kInvalidArgument, "argument 'repeats' must be 0-D or 1-D");
  return require_contiguous(call, r, "repeats");
}

}  // namespace

Result<RepeatParams> repeat_prepare_self_tensor(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_ASSIGN_OR_RETURN(const Tensor* r, tensor_arg(call, 1, "repeats"));
  TIR_RETURN_IF_ERROR(require_repeats(call, *r));
  RepeatParams p;
  p.self_input = int(tensor_input_index(call, 0));
  p.repeats_input = int(tensor_input_index(call, 1));
  p.elem_size = dtype_size(x->dtype);
  TIR_ASSIGN_OR_RETURN(p.count, bound_count(call, 4, 3));
  std::vector<int64_t> out = {p.count};
  if (call.args[2].is_none()) {
    p.size = x->numel();
  } else {
    TIR_ASSIGN_OR_RETURN(const int64_t raw, int_arg(call, 2, "dim"));
    TIR_ASSIGN_OR_RETURN(const int dim, normalize_dim(call, raw, x->rank, "dim"));
    p.outer = prod(x->shape(), 0, dim);
    p.size = x->sizes[dim];
    p.inner = prod(x->shape(), dim + 1, x->rank);
    out.assign(x->shape().begin(), x->shape().end());
    out[dim] = p.count;
  }
  if (r->numel() != 1 && r->numel() != p.size)
    return op_error(call, StatusCode::kInvalidArgument, "repeats has ", r->numel(),
                    " elements, the repeated dim ", p.size);
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(out);
  return p;
}

Result<RepeatParams> repeat_prepare_tensor(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* r, tensor_arg(call, 0, "repeats"));
  TIR_RETURN_IF_ERROR(require_repeats(call, *r));
  RepeatParams p;
  p.repeats_input = int(tensor_input_index(call, 0));
  p.size = r->numel();
  TIR_ASSIGN_OR_RETURN(p.count, bound_count(call, 2, 1));
  call.outputs[0].dtype = DType::kInt64;
  call.outputs[0].set_shape(std::span<const int64_t>(&p.count, 1));
  return p;
}

Result<int64_t> count_repeats(const Tensor& repeats, int64_t size) {
  int64_t n = 0;
  for (int64_t i = 0; i < repeats.numel(); ++i) {
    const int64_t r = repeats.dtype == DType::kInt32 ? repeats.data_as<const int32_t>()[i]
                                                     : repeats.data_as<const int64_t>()[i];
    if (r < 0) return make_error(StatusCode::kInvalidArgument, "repeats[", i, "] is ", r);
    n += r;
  }
  return repeats.numel() == 1 ? n * size : n;
}

Result<UniqueParams> unique_prepare(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 3));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  if (!dtype_supported(x->dtype) || x->dtype == DType::kBool)
    return op_error(call, StatusCode::kUnsupported, "self has dtype ", dtype_name(x->dtype));
  UniqueParams p;
  p.dtype = x->dtype;
  p.numel = x->numel();
  TIR_ASSIGN_OR_RETURN(p.inverse, bool_arg(call, 2, "return_inverse"));
  TIR_ASSIGN_OR_RETURN(p.counts, bool_arg(call, 3, "return_counts"));
  if (call.args.size() < 5 || call.args[4].kind != ArgKind::kInt)
    return op_error(call, StatusCode::kInvalidArgument, "its output size was not bound");
  p.count = call.args[4].i;
  const int64_t none = 0;
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(std::span<const int64_t>(&p.count, 1));
  call.outputs[1].dtype = DType::kInt64;
  if (p.inverse) {
    call.outputs[1].set_shape(x->shape());
  } else {
    call.outputs[1].set_shape(std::span<const int64_t>(&none, 1));
  }
  call.outputs[2].dtype = DType::kInt64;
  call.outputs[2].set_shape(std::span<const int64_t>(p.counts ? &p.count : &none, 1));
  out_info->scratch_bytes = size_t(p.numel) * dtype_size(x->dtype);
  return p;
}

int64_t count_unique(const Tensor& t) {
  int64_t n = 0;
  visit_dtype(t.dtype, [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> v(t.data_as<const T>(), t.data_as<const T>() + t.numel());
    std::sort(v.begin(), v.end());
    n = std::unique(v.begin(), v.end()) - v.begin();
  });
  return n;
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
