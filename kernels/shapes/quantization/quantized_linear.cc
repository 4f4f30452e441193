#include "kernels/shapes/quantization/quantized_linear.h"

#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {

namespace {
enum Slot : size_t { kInput, kScale, kZeroPoint, kWeight, kScales, kZeroPoints, kBias, kFlatten };
}  // namespace

Result<QuantizedLinearParams> quantized_linear_prepare(const KernelCall& call) {
  TIR_RETURN_IF_ERROR(check_arity(call, 8, 1));
  QuantizedLinearParams p;
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, kInput, "input"));
  TIR_ASSIGN_OR_RETURN(const Tensor* w, tensor_arg(call, kWeight, "weight"));
  TIR_ASSIGN_OR_RETURN(const Tensor* s, tensor_arg(call, kScales, "scales"));
  TIR_ASSIGN_OR_RETURN(const Tensor* z, optional_tensor_arg(call, kZeroPoints, "zero_points"));
  TIR_ASSIGN_OR_RETURN(const Tensor* b, optional_tensor_arg(call, kBias, "bias"));
  TIR_ASSIGN_OR_RETURN(p.x_scale, scalar_arg(call, kScale, "scale"));
  TIR_ASSIGN_OR_RETURN(p.x_zero_point, int_arg(call, kZeroPoint, "zero_point"));
  TIR_ASSIGN_OR_RETURN(const int64_t flatten, int_arg(call, kFlatten, "flatten"));
  if (x->dtype != DType::kUInt8 && x->dtype != DType::kInt8)
    return op_error(call, StatusCode::kUnsupported, "input must be uint8 or int8");
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *w, "weight"));
  TIR_RETURN_IF_ERROR(require_dtype(call, *w, DType::kInt8, "weight"));
  if (x->rank < 1 || w->rank != 2 || x->sizes[x->rank - 1] != w->sizes[1])
    return op_error(call, StatusCode::kInvalidArgument,
                    "input [..., K] and weight [N, K] disagree");
  p.k = w->sizes[1];
  p.n = w->sizes[0];
  p.m = p.k == 0 ? 0 : x->numel() / p.k;
  if (s->rank != 1 || s->sizes[0] != p.n ||
      (s->dtype != DType::kFloat64 && s->dtype != DType::kFloat32))
    return op_error(call, StatusCode::kInvalidArgument, "scales must be float32/64 [", p.n, "]");
  if (z && (z->rank != 1 || z->sizes[0] != p.n || z->dtype != DType::kInt64))
    return op_error(call, StatusCode::kInvalidArgument, "zero_points must be int64 [", p.n, "]");
  if (b && (b->rank != 1 || b->sizes[0] != p.n || b->dtype != DType::kFloat32))
    return op_error(call, StatusCode::kInvalidArgument, "bias must be float32 [", p.n, "]");
  p.input = int(tensor_input_index(call, kInput));
  p.weight = int(tensor_input_index(call, kWeight));
  p.scales = int(tensor_input_index(call, kScales));
  p.zero_points = z ? int(tensor_input_index(call, kZeroPoints)) : -1;
  p.bias = b ? int(tensor_input_index(call, kBias)) : -1;
  p.signed_input = x->dtype == DType::kInt8;
  Tensor& out = call.outputs[0];
  out.dtype = DType::kFloat32;
  if (flatten) {
    out.set_shape({p.m, p.n});
  } else {
    std::vector<int64_t> shape(x->shape().begin(), x->shape().end());
    shape.back() = p.n;
    out.set_shape(shape);
  }
  return p;
}

}  // namespace tir::kernels
