#include "kernels/shapes/creation/patterns.h"

#include <cmath>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {
namespace {

// The creation ops' dtype argument: float32 when None, else one tir computes in.
Result<DType> creation_dtype(const KernelCall& call, size_t idx) {
  TIR_ASSIGN_OR_RETURN(DType d, optional_dtype_arg(call, idx, "dtype"));
  return d == DType::kUndefined ? DType::kFloat32 : d;
}

Result<int64_t> size_arg(const KernelCall& call, size_t idx, std::string_view name) {
  TIR_ASSIGN_OR_RETURN(int64_t v, int_arg(call, idx, name));
  if (v < 0)
    return op_error(call, StatusCode::kInvalidArgument, "'", name,
                    "' must be greater or equal to 0, got ", v);
  return v;
}

Result<EyeParams> eye_common(const KernelCall& call, bool has_m) {
  const size_t dtype_at = has_m ? 2 : 1;
  TIR_RETURN_IF_ERROR(check_arity(call, dtype_at + 1, 1));
  EyeParams p;
  TIR_ASSIGN_OR_RETURN(p.n, size_arg(call, 0, "n"));
  p.m = p.n;
  if (has_m) {
    TIR_ASSIGN_OR_RETURN(p.m, size_arg(call, 1, "m"));
  }
  TIR_ASSIGN_OR_RETURN(p.dtype, creation_dtype(call, dtype_at));
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(std::vector<int64_t>{p.n, p.m});
  return p;
}

Result<SpaceParams> space_common(const KernelCall& call, bool log) {
  const size_t dtype_at = log ? 4 : 3;
  TIR_RETURN_IF_ERROR(check_arity(call, dtype_at + 1, 1));
  SpaceParams p;
  TIR_ASSIGN_OR_RETURN(p.start, scalar_arg(call, 0, "start"));
  TIR_ASSIGN_OR_RETURN(p.end, scalar_arg(call, 1, "end"));
  TIR_ASSIGN_OR_RETURN(p.steps, size_arg(call, 2, "steps"));
  if (log) {
    TIR_ASSIGN_OR_RETURN(p.base, scalar_arg(call, 3, "base"));
    if (p.base == 0)  // 0 marks linspace; 0 ** x is 0 (x > 0), 1 (x == 0) or inf
      return op_error(call, StatusCode::kUnsupported, "logspace with base 0");
  }
  TIR_ASSIGN_OR_RETURN(p.dtype, creation_dtype(call, dtype_at));
  if (p.dtype == DType::kBool)
    return op_error(call, StatusCode::kUnsupported, "dtype bool is not supported");
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(std::vector<int64_t>{p.steps});
  return p;
}

}  // namespace

Result<EyeParams> creation_prepare_eye(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  return eye_common(call, false);
}

Result<EyeParams> creation_prepare_eye_m(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  return eye_common(call, true);
}

Result<SpaceParams> creation_prepare_linspace(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  return space_common(call, false);
}

Result<SpaceParams> creation_prepare_logspace(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  return space_common(call, true);
}

Result<OneHotParams> creation_prepare_one_hot(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  if (x->dtype != DType::kInt64 && x->dtype != DType::kInt32)
    return op_error(call, StatusCode::kInvalidArgument,
                    "one_hot is only applicable to index tensors, got ", dtype_name(x->dtype));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  OneHotParams p;
  TIR_ASSIGN_OR_RETURN(p.classes, int_arg(call, 1, "num_classes"));
  if (p.classes < 0)
    return op_error(call, StatusCode::kUnsupported,
                    "num_classes=-1 (counted from the values) is not supported: pass it");
  if (x->rank + 1 > kMaxRank) return op_error(call, StatusCode::kUnsupported, "rank ", x->rank + 1);
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.index_dtype = x->dtype;
  p.numel = x->numel();
  std::vector<int64_t> out(x->shape().begin(), x->shape().end());
  out.push_back(p.classes);
  call.outputs[0].dtype = DType::kInt64;
  call.outputs[0].set_shape(out);
  return p;
}

Result<DiagEmbedParams> creation_prepare_diag_embed(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  if (x->rank < 1 || x->rank + 1 > kMaxRank || dtype_size(x->dtype) == 0)
    return op_error(call, StatusCode::kUnsupported, "self of shape ", shape_str(x->shape()),
                    " and dtype ", dtype_name(x->dtype));
  TIR_ASSIGN_OR_RETURN(int64_t offset, int_arg(call, 1, "offset"));
  TIR_ASSIGN_OR_RETURN(int64_t raw1, int_arg(call, 2, "dim1"));
  TIR_ASSIGN_OR_RETURN(int64_t raw2, int_arg(call, 3, "dim2"));
  DiagEmbedParams p;
  p.rank = x->rank + 1;
  TIR_ASSIGN_OR_RETURN(int d1, normalize_dim(call, raw1, p.rank, "dim1"));
  TIR_ASSIGN_OR_RETURN(int d2, normalize_dim(call, raw2, p.rank, "dim2"));
  if (d1 == d2) return op_error(call, StatusCode::kInvalidArgument, "dim1 and dim2 are the same");
  p.n = x->sizes[x->rank - 1];
  const int64_t side = p.n + (offset < 0 ? -offset : offset);
  std::vector<int64_t> shape;
  for (int d = 0, k = 0; d < p.rank; ++d)
    shape.push_back(d == d1 || d == d2 ? side : x->sizes[k++]);
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(shape);
  const Tensor& o = call.outputs[0];
  for (int d = 0, k = 0; d < p.rank; ++d) {
    if (d == d1 || d == d2) continue;
    p.outer_sizes[k] = o.sizes[d];
    p.strides[k++] = o.strides[d];
  }
  p.step = o.strides[d1] + o.strides[d2];
  p.start = offset >= 0 ? offset * o.strides[d2] : -offset * o.strides[d1];
  p.outer = p.n ? x->numel() / p.n : 0;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.elem_size = dtype_size(x->dtype);
  return p;
}

}  // namespace tir::kernels
