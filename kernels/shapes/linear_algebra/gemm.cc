#include "kernels/shapes/linear_algebra/gemm.h"

#include <algorithm>
#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

Status check_float_contiguous(const KernelCall& call, const Tensor& t, std::string_view name,
                              DType want = DType::kFloat32) {
  TIR_RETURN_IF_ERROR(require_dtype(call, t, want, name));
  return require_contiguous(call, t, name);
}

// The dtype a product of A computes in: int64 and float64 throughout (torch's integer and
// double matrix products; only the reference kernels take them), else float32.
DType product_dtype(const Tensor& a) {
  return a.dtype == DType::kInt64 || a.dtype == DType::kFloat64 ? a.dtype : DType::kFloat32;
}

// mm/addmm operands: all of the product's dtype.
Status check_mm_operand(const KernelCall& call, const Tensor& t, DType want,
                        std::string_view name) {
  return check_float_contiguous(call, t, name, want);
}

// The B operand of a product in `want`: that dtype, or for float32 a float16/bfloat16 weight
// read as stored.
Status check_b_operand(const KernelCall& call, const Tensor& t, std::string_view name,
                       DType want = DType::kFloat32) {
  if (want != DType::kFloat32 || (t.dtype != DType::kFloat16 && t.dtype != DType::kBFloat16))
    return check_float_contiguous(call, t, name, want);
  return require_contiguous(call, t, name);
}

}  // namespace

GemmCMode gemm_c_mode(const GemmParams& p) {
  if (p.c_input < 0 || p.beta == 0.0) return GemmCMode::kNone;
  const bool bias = p.alpha == 1.0 && p.beta == 1.0 && p.c_row_stride == 0;
  return bias ? GemmCMode::kBias : GemmCMode::kSum;
}

void gemm_copy_c(const GemmParams& p, const float* c, float* out) {
  for (int64_t i = 0; i < p.m; ++i) {
    const float* row = c + i * p.c_row_stride;
    float* orow = out + i * p.n;
    if (p.c_col_stride == 1) {
      std::copy(row, row + p.n, orow);
    } else {
      std::fill(orow, orow + p.n, row[0]);
    }
  }
}

Result<GemmParams> gemm_prepare_linear(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
  TIR_ASSIGN_OR_RETURN(const Tensor* w, tensor_arg(call, 1, "weight"));
  TIR_ASSIGN_OR_RETURN(const Tensor* b, optional_tensor_arg(call, 2, "bias"));
  const DType dtype = x->dtype == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  TIR_RETURN_IF_ERROR(check_float_contiguous(call, *x, "input", dtype));
  TIR_RETURN_IF_ERROR(check_b_operand(call, *w, "weight", dtype));
  if (x->rank < 1) {
    return op_error(call, StatusCode::kInvalidArgument, "input must have rank >= 1, got ",
                    shape_str(x->shape()));
  }
  if (w->rank != 2) {
    return op_error(call, StatusCode::kUnsupported, "weight must be 2-D [out, in], got ",
                    shape_str(w->shape()));
  }
  GemmParams p;
  p.k = x->size(-1);
  p.n = w->sizes[0];
  p.m = prod(x->shape(), 0, x->rank - 1);
  if (w->sizes[1] != p.k) {
    return op_error(call, StatusCode::kInvalidArgument, "input ", shape_str(x->shape()),
                    " and weight ", shape_str(w->shape()),
                    " disagree on in_features (last dim of input must equal weight.size(1))");
  }
  p.b_transposed = true;
  p.b_dtype = w->dtype;
  p.a_input = static_cast<int>(tensor_input_index(call, 0));
  p.b_input = static_cast<int>(tensor_input_index(call, 1));
  if (b != nullptr) {
    TIR_RETURN_IF_ERROR(check_float_contiguous(call, *b, "bias", dtype));
    if (b->rank > 1 || (b->numel() != p.n && b->numel() != 1)) {
      return op_error(call, StatusCode::kInvalidArgument, "bias ", shape_str(b->shape()),
                      " must be [", p.n, "] (out_features)");
    }
    p.c_input = static_cast<int>(tensor_input_index(call, 2));
    p.beta = 1.0;
    p.c_col_stride = b->numel() == 1 ? 0 : 1;
  }
  std::vector<int64_t> out(x->shape().begin(), x->shape().end());
  out.back() = p.n;
  call.outputs[0].dtype = dtype;
  call.outputs[0].set_shape(out);
  (void)out_info;
  return p;
}

namespace {

Result<GemmParams> prepare_mm_common(const KernelCall& call, size_t a_pos, size_t b_pos) {
  TIR_ASSIGN_OR_RETURN(const Tensor* a, tensor_arg(call, a_pos, "mat1"));
  TIR_ASSIGN_OR_RETURN(const Tensor* b, tensor_arg(call, b_pos, "mat2"));
  const DType dtype = product_dtype(*a);
  TIR_RETURN_IF_ERROR(check_mm_operand(call, *a, dtype, "mat1"));
  TIR_RETURN_IF_ERROR(check_b_operand(call, *b, "mat2", dtype));
  if (a->rank != 2 || b->rank != 2) {
    return op_error(call, StatusCode::kInvalidArgument, "mat1 ", shape_str(a->shape()),
                    " and mat2 ", shape_str(b->shape()), " must both be 2-D");
  }
  if (a->sizes[1] != b->sizes[0]) {
    return op_error(call, StatusCode::kInvalidArgument, "mat1 ", shape_str(a->shape()),
                    " and mat2 ", shape_str(b->shape()), " cannot be multiplied");
  }
  GemmParams p;
  p.m = a->sizes[0];
  p.k = a->sizes[1];
  p.n = b->sizes[1];
  p.b_dtype = b->dtype;
  p.a_input = static_cast<int>(tensor_input_index(call, a_pos));
  p.b_input = static_cast<int>(tensor_input_index(call, b_pos));
  call.outputs[0].dtype = dtype;
  call.outputs[0].set_shape({p.m, p.n});
  return p;
}

}  // namespace

Result<GemmParams> gemm_prepare_mm(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  (void)out_info;
  return prepare_mm_common(call, 0, 1);
}

Result<GemmParams> gemm_prepare_addmm(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 5, 1));
  TIR_ASSIGN_OR_RETURN(GemmParams p, prepare_mm_common(call, 1, 2));
  TIR_ASSIGN_OR_RETURN(const Tensor* c, tensor_arg(call, 0, "self"));
  TIR_ASSIGN_OR_RETURN(p.beta, scalar_arg(call, 3, "beta"));
  TIR_ASSIGN_OR_RETURN(p.alpha, scalar_arg(call, 4, "alpha"));
  TIR_RETURN_IF_ERROR(check_mm_operand(call, *c, call.outputs[0].dtype, "self"));
  const int64_t mn[2] = {p.m, p.n};
  auto bshape = broadcast_shapes(call, c->shape(), mn);
  if (!bshape.ok() || bshape->size() != 2 || (*bshape)[0] != p.m || (*bshape)[1] != p.n) {
    return op_error(call, StatusCode::kInvalidArgument, "self ", shape_str(c->shape()),
                    " does not broadcast to the product shape ", shape_str(mn));
  }
  const BroadcastPlan plan = make_broadcast_plan(mn, c->shape(), mn);
  p.c_input = static_cast<int>(tensor_input_index(call, 0));
  p.c_row_stride = plan.a_strides[0];
  p.c_col_stride = plan.a_strides[1];
  (void)out_info;
  return p;
}

}  // namespace tir::kernels
