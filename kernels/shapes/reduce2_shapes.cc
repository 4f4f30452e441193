#include "kernels/shapes/reduce2_shapes.h"

#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {
namespace {

// Fills the dims, the output shape and the blocked layout; as mean.dim does.
Result<ReduceParams> plan_reduce(const KernelCall& call, const Tensor& x,
                                 std::optional<std::span<const int64_t>> dims, bool keepdim,
                                 std::vector<int64_t>* out_shape) {
  ReduceParams p;
  p.rank = x.rank;
  for (int d = 0; d < p.rank; ++d) p.sizes[d] = x.sizes[d];
  if (!dims || dims->empty()) {
    for (int d = 0; d < p.rank; ++d) p.reduced[d] = true;
  } else {
    std::array<bool, kMaxRank + 1> seen{};
    for (int64_t raw : *dims) {
      TIR_ASSIGN_OR_RETURN(int d, normalize_dim(call, raw, p.rank, "dim"));
      if (seen[d]) {
        return op_error(call, StatusCode::kInvalidArgument, "dim ", d,
                        " appears multiple times in the list of dims");
      }
      seen[d] = true;
      if (d < p.rank) p.reduced[d] = true;
    }
  }
  int first = -1, last = -1;
  bool gap = false;
  for (int d = 0; d < p.rank; ++d) {
    if (p.reduced[d]) {
      p.reduce_numel *= p.sizes[d];
      if (first < 0) first = d;
      if (last >= 0 && last != d - 1) gap = true;
      last = d;
      if (keepdim) out_shape->push_back(1);
    } else {
      out_shape->push_back(p.sizes[d]);
    }
  }
  p.out_numel = prod(*out_shape, 0, out_shape->size());
  p.blocked = !gap;
  if (first >= 0) {
    p.outer = prod(x.shape(), 0, first);
    p.inner = prod(x.shape(), last + 1, p.rank);
  } else {
    p.outer = x.numel();
  }
  p.input = static_cast<int>(tensor_input_index(call, 0));
  return p;
}

// torch sums and cumsums integers and bools in int64.
DType accumulate_dtype(DType in, DType requested) {
  if (requested != DType::kUndefined) return requested;
  return dtype_is_float(in) ? in : DType::kInt64;
}

}  // namespace

Result<Reduce2Params> reduce2_prepare_sum(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_RETURN_IF_ERROR(require_supported_dtype(call, *x, "self"));
  TIR_ASSIGN_OR_RETURN(auto dims, optional_ints_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(bool keepdim, bool_arg(call, 2, "keepdim"));
  TIR_ASSIGN_OR_RETURN(DType requested, optional_dtype_arg(call, 3, "dtype"));
  Reduce2Params p;
  p.in = x->dtype;
  p.out = accumulate_dtype(x->dtype, requested);
  if (p.out == DType::kBool || p.out == DType::kInt32) {
    return op_error(call, StatusCode::kUnsupported, "sum into ", dtype_name(p.out));
  }
  std::vector<int64_t> out;
  TIR_ASSIGN_OR_RETURN(p.r, plan_reduce(call, *x, dims, keepdim, &out));
  call.outputs[0].dtype = p.out;
  call.outputs[0].set_shape(out);
  (void)out_info;
  return p;
}

Result<Reduce2Params> reduce2_prepare_amax(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  if (x->dtype != DType::kFloat32 && x->dtype != DType::kInt64) {
    return op_error(call, StatusCode::kUnsupported, "argument 'self' has dtype ",
                    dtype_name(x->dtype), ", only float32 and int64 are supported");
  }
  TIR_ASSIGN_OR_RETURN(auto dims, ints_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(bool keepdim, bool_arg(call, 2, "keepdim"));
  Reduce2Params p;
  p.in = p.out = x->dtype;
  std::vector<int64_t> out;
  TIR_ASSIGN_OR_RETURN(p.r, plan_reduce(call, *x, dims, keepdim, &out));
  for (int d = 0; d < x->rank; ++d) {
    if (p.r.reduced[d] && x->sizes[d] == 0) {
      return op_error(call, StatusCode::kInvalidArgument, "cannot take the maximum over dim ", d,
                      " of size 0");
    }
  }
  call.outputs[0].dtype = p.out;
  call.outputs[0].set_shape(out);
  (void)out_info;
  return p;
}

Result<CumsumParams> reduce2_prepare_cumsum(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_RETURN_IF_ERROR(require_supported_dtype(call, *x, "self"));
  TIR_ASSIGN_OR_RETURN(int64_t raw, int_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw, x->rank, "dim"));
  TIR_ASSIGN_OR_RETURN(DType requested, optional_dtype_arg(call, 2, "dtype"));
  CumsumParams p;
  p.in = x->dtype;
  p.out = accumulate_dtype(x->dtype, requested);
  if (p.out == DType::kBool) {
    return op_error(call, StatusCode::kUnsupported, "cumsum into bool");
  }
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.outer = prod(x->shape(), 0, dim);
  p.n = x->rank == 0 ? 1 : x->sizes[dim];
  p.inner = prod(x->shape(), dim + 1, x->rank);
  call.outputs[0].dtype = p.out;
  call.outputs[0].set_shape(x->shape());
  (void)out_info;
  return p;
}

}  // namespace tir::kernels
