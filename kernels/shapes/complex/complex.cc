#include "kernels/shapes/complex/complex.h"

#include <vector>

namespace tir::kernels {
namespace {

Result<const Tensor*> contiguous_tensor(const KernelCall& call, size_t idx, std::string_view name) {
  TIR_ASSIGN_OR_RETURN(const Tensor* t, tensor_arg(call, idx, name));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *t, name));
  return t;
}

Status require_complex(const KernelCall& call, const Tensor& t, std::string_view name) {
  if (dtype_is_complex(t.dtype)) return ok_status();
  return op_error(call, StatusCode::kUnsupported, "argument '", name, "' has dtype ",
                  dtype_name(t.dtype), " (expected complex64 or complex128)");
}

Status require_part(const KernelCall& call, const Tensor& t, std::string_view name) {
  if (t.dtype == DType::kFloat32 || t.dtype == DType::kFloat64) return ok_status();
  return op_error(call, StatusCode::kUnsupported, "argument '", name, "' has dtype ",
                  dtype_name(t.dtype), " (expected float32 or float64)");
}

}  // namespace

Result<ComplexParams> complex_prepare_view_as_real(const KernelCall& call, PrepareInfo*) {
  TIR_RETURN_IF_ERROR(check_arity(call, 1, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, contiguous_tensor(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_complex(call, *x, "self"));
  if (x->rank + 1 > kMaxRank)
    return op_error(call, StatusCode::kUnsupported, "rank ", x->rank + 1, " exceeds ", kMaxRank);
  ComplexParams p;
  p.op = ComplexOp::kViewAsReal;
  p.part = complex_part_dtype(x->dtype);
  p.numel = x->numel();
  p.a_input = static_cast<int>(tensor_input_index(call, 0));
  std::vector<int64_t> shape(x->shape().begin(), x->shape().end());
  shape.push_back(2);
  call.outputs[0].dtype = p.part;
  call.outputs[0].set_shape(shape);
  return p;
}

Result<ComplexParams> complex_prepare_view_as_complex(const KernelCall& call, PrepareInfo*) {
  TIR_RETURN_IF_ERROR(check_arity(call, 1, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, contiguous_tensor(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_part(call, *x, "self"));
  if (x->rank < 1 || x->sizes[x->rank - 1] != 2)
    return op_error(call, StatusCode::kInvalidArgument,
                    "view_as_complex needs a last dim of 2, got ", shape_str(x->shape()));
  ComplexParams p;
  p.op = ComplexOp::kViewAsComplex;
  p.part = x->dtype;
  p.numel = x->numel() / 2;
  p.a_input = static_cast<int>(tensor_input_index(call, 0));
  call.outputs[0].dtype = complex_dtype_of(x->dtype);
  call.outputs[0].set_shape(x->shape().first(size_t(x->rank - 1)));
  return p;
}

template <ComplexOp Op>
Result<ComplexParams> complex_prepare_unary(const KernelCall& call, PrepareInfo*) {
  if (call.args.empty() || call.outputs.size() != 1)
    return op_error(call, StatusCode::kInvalidArgument, "expected (self) and one output");
  TIR_ASSIGN_OR_RETURN(const Tensor* x, contiguous_tensor(call, 0, "self"));
  ComplexParams p;
  p.op = Op;
  p.a_complex = dtype_is_complex(x->dtype);
  if (!p.a_complex) TIR_RETURN_IF_ERROR(require_part(call, *x, "self"));
  // A real tensor: conj is itself, angle is 0 or pi; the other ops are listed for complex only.
  if (!p.a_complex && Op != ComplexOp::kConj && Op != ComplexOp::kAngle)
    TIR_RETURN_IF_ERROR(require_complex(call, *x, "self"));
  p.part = complex_part_dtype(x->dtype);
  p.numel = x->numel();
  p.a_input = static_cast<int>(tensor_input_index(call, 0));
  const bool complex_out = p.a_complex && (Op == ComplexOp::kConj || Op == ComplexOp::kNeg);
  call.outputs[0].dtype = complex_out ? x->dtype : p.part;
  call.outputs[0].set_shape(x->shape());
  return p;
}

template <ComplexOp Op>
Result<ComplexParams> complex_prepare_make(const KernelCall& call, PrepareInfo*) {
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  const char* n0 = Op == ComplexOp::kPolar ? "abs" : "real";
  const char* n1 = Op == ComplexOp::kPolar ? "angle" : "imag";
  TIR_ASSIGN_OR_RETURN(const Tensor* a, contiguous_tensor(call, 0, n0));
  TIR_ASSIGN_OR_RETURN(const Tensor* b, contiguous_tensor(call, 1, n1));
  TIR_RETURN_IF_ERROR(require_part(call, *a, n0));
  if (b->dtype != a->dtype)
    return op_error(call, StatusCode::kInvalidArgument, "'", n0, "' is ", dtype_name(a->dtype),
                    " but '", n1, "' is ", dtype_name(b->dtype), " (torch wants one dtype)");
  TIR_ASSIGN_OR_RETURN(std::vector<int64_t> shape, broadcast_shapes(call, a->shape(), b->shape()));
  ComplexParams p;
  p.op = Op;
  p.part = a->dtype;
  p.a_complex = p.b_complex = false;
  p.a_input = static_cast<int>(tensor_input_index(call, 0));
  p.b_input = static_cast<int>(tensor_input_index(call, 1));
  p.plan = make_broadcast_plan(shape, a->shape(), b->shape());
  p.numel = p.plan.numel();
  call.outputs[0].dtype = complex_dtype_of(a->dtype);
  call.outputs[0].set_shape(shape);
  return p;
}

template <ComplexOp Op>
Result<ComplexParams> complex_prepare_binary(const KernelCall& call, PrepareInfo*) {
  const bool has_alpha = Op == ComplexOp::kAdd || Op == ComplexOp::kSub;
  TIR_RETURN_IF_ERROR(check_arity(call, has_alpha ? 3 : 2, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* a, contiguous_tensor(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_complex(call, *a, "self"));
  ComplexParams p;
  p.op = Op;
  p.part = complex_part_dtype(a->dtype);
  p.a_input = static_cast<int>(tensor_input_index(call, 0));
  if (has_alpha) {
    TIR_ASSIGN_OR_RETURN(p.alpha, scalar_arg(call, 2, "alpha"));
  }
  std::vector<int64_t> shape(a->shape().begin(), a->shape().end());
  std::span<const int64_t> b_shape;
  const Arg& other = call.args[1];
  if (other.kind == ArgKind::kTensor) {
    TIR_ASSIGN_OR_RETURN(const Tensor* b, contiguous_tensor(call, 1, "other"));
    if (b->dtype != a->dtype && b->dtype != p.part)
      return op_error(call, StatusCode::kUnsupported, "argument 'other' has dtype ",
                      dtype_name(b->dtype), ", not ", dtype_name(a->dtype), " or ",
                      dtype_name(p.part), " (the promotion pass casts it)");
    p.b_complex = dtype_is_complex(b->dtype);
    p.b_input = static_cast<int>(tensor_input_index(call, 1));
    b_shape = b->shape();
    TIR_ASSIGN_OR_RETURN(shape, broadcast_shapes(call, a->shape(), b_shape));
  } else {
    TIR_ASSIGN_OR_RETURN(p.b_value, scalar_arg(call, 1, "other"));
    p.b_complex = false;
  }
  p.plan = make_broadcast_plan(shape, a->shape(), b_shape);
  p.numel = p.plan.numel();
  call.outputs[0].dtype = a->dtype;
  call.outputs[0].set_shape(shape);
  return p;
}

template Result<ComplexParams> complex_prepare_unary<ComplexOp::kReal>(const KernelCall&,
                                                                       PrepareInfo*);
template Result<ComplexParams> complex_prepare_unary<ComplexOp::kImag>(const KernelCall&,
                                                                       PrepareInfo*);
template Result<ComplexParams> complex_prepare_unary<ComplexOp::kConj>(const KernelCall&,
                                                                       PrepareInfo*);
template Result<ComplexParams> complex_prepare_unary<ComplexOp::kAbs>(const KernelCall&,
                                                                      PrepareInfo*);
template Result<ComplexParams> complex_prepare_unary<ComplexOp::kAngle>(const KernelCall&,
                                                                        PrepareInfo*);
template Result<ComplexParams> complex_prepare_unary<ComplexOp::kNeg>(const KernelCall&,
                                                                      PrepareInfo*);
template Result<ComplexParams> complex_prepare_make<ComplexOp::kPolar>(const KernelCall&,
                                                                       PrepareInfo*);
template Result<ComplexParams> complex_prepare_make<ComplexOp::kComplex>(const KernelCall&,
                                                                         PrepareInfo*);
template Result<ComplexParams> complex_prepare_binary<ComplexOp::kAdd>(const KernelCall&,
                                                                       PrepareInfo*);
template Result<ComplexParams> complex_prepare_binary<ComplexOp::kSub>(const KernelCall&,
                                                                       PrepareInfo*);
template Result<ComplexParams> complex_prepare_binary<ComplexOp::kMul>(const KernelCall&,
                                                                       PrepareInfo*);
template Result<ComplexParams> complex_prepare_binary<ComplexOp::kDiv>(const KernelCall&,
                                                                       PrepareInfo*);

}  // namespace tir::kernels
