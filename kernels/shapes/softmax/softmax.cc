#include "kernels/shapes/softmax/softmax.h"

#include <algorithm>

#include "kernels/kernel_util.h"

namespace tir::kernels {

template <bool Log>
Result<SoftmaxParams> softmax_prepare(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  if (x->dtype != DType::kFloat64)
    TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_ASSIGN_OR_RETURN(int64_t raw, int_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw, x->rank, "dim"));
  const Arg& third = call.args[2];
  if (third.kind == ArgKind::kBool && third.i != 0) {
    return op_error(call, StatusCode::kUnsupported, "half_to_float=True is not supported");
  }
  if (third.kind == ArgKind::kDType && static_cast<DType>(third.i) != x->dtype) {
    return op_error(call, StatusCode::kUnsupported, "argument 'dtype' must be None or ",
                    dtype_name(x->dtype), " (the input's dtype)");
  }
  SoftmaxParams p;
  p.log = Log;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.outer = prod(x->shape(), 0, dim);
  p.n = x->rank == 0 ? 1 : x->sizes[dim];
  p.inner = prod(x->shape(), dim + 1, x->rank);
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(x->shape());
  (void)out_info;
  return p;
}

template Result<SoftmaxParams> softmax_prepare<false>(const KernelCall&, PrepareInfo*);
template Result<SoftmaxParams> softmax_prepare<true>(const KernelCall&, PrepareInfo*);

}  // namespace tir::kernels
