#include "kernels/shapes/unary/gated.h"

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

Result<const Tensor*> float_self(const KernelCall& call, size_t n_args) {
  TIR_RETURN_IF_ERROR(check_arity(call, n_args, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  if (x->dtype != DType::kFloat32 && x->dtype != DType::kFloat64)
    return op_error(call, StatusCode::kUnsupported, "self has dtype ", dtype_name(x->dtype),
                    "; float32 and float64 are supported");
  return x;
}

/// [outer, n, inner] around `dim`.
void around(const Tensor& x, int dim, GatedParams* p) {
  p->outer = prod(x.shape(), 0, size_t(dim));
  p->n = x.rank > 0 ? x.sizes[dim] : 1;
  p->inner = prod(x.shape(), size_t(dim) + 1, size_t(x.rank));
}

}  // namespace

Result<GatedParams> gated_prepare_glu(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_ASSIGN_OR_RETURN(const Tensor* x, float_self(call, 2));
  TIR_ASSIGN_OR_RETURN(const int64_t raw, int_arg(call, 1, "dim"));
  if (x->rank == 0)
    return op_error(call, StatusCode::kInvalidArgument, "glu does not support scalars");
  TIR_ASSIGN_OR_RETURN(const int dim, normalize_dim(call, raw, x->rank, "dim"));
  if (x->sizes[dim] % 2 != 0)
    return op_error(call, StatusCode::kInvalidArgument, "halving dimension ", dim, " of ",
                    shape_str(x->shape()), " needs an even size");
  GatedParams p;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.dtype = x->dtype;
  around(*x, dim, &p);
  std::vector<int64_t> shape(x->shape().begin(), x->shape().end());
  shape[size_t(dim)] /= 2;
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(shape);
  return p;
}

Result<GatedParams> gated_prepare_prelu(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_ASSIGN_OR_RETURN(const Tensor* x, float_self(call, 2));
  TIR_ASSIGN_OR_RETURN(const Tensor* w, tensor_arg(call, 1, "weight"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *w, "weight"));
  if (w->dtype != x->dtype)
    return op_error(call, StatusCode::kInvalidArgument, "weight has dtype ", dtype_name(w->dtype),
                    ", self ", dtype_name(x->dtype));
  GatedParams p;
  p.glu = false;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.weight = static_cast<int>(tensor_input_index(call, 1));
  p.dtype = x->dtype;
  const int channel = x->rank >= 2 ? 1 : 0;
  around(*x, x->rank == 0 ? 0 : channel, &p);
  if (w->numel() != 1 && (x->rank == 0 || w->numel() != p.n))
    return op_error(call, StatusCode::kInvalidArgument, "weight of ", w->numel(),
                    " elements for input ", shape_str(x->shape()),
                    " (one, or one per channel of dim ", channel, ")");
  if (w->numel() == 1) p.n = 1, p.inner = x->numel(), p.outer = 1;
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(x->shape());
  return p;
}

}  // namespace tir::kernels
