#include "kernels/shapes/normalization/layer_norm.h"

#include <algorithm>
#include <limits>
#include <span>
#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

/// The input and normalized_shape of layer_norm and rms_norm (arguments 0 and 1).
Result<LayerNormParams> norm_shape(const KernelCall& call, const Tensor** out_x,
                                   std::span<const int64_t>* out_norm) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
  if (x->dtype != DType::kFloat64)  // float64 as torch's double kernels; else float32
    TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "input"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
  TIR_ASSIGN_OR_RETURN(auto norm, ints_arg(call, 1, "normalized_shape"));
  const int k = static_cast<int>(norm.size());
  bool match = k >= 1 && k <= x->rank;
  for (int i = 0; match && i < k; ++i) match = x->sizes[x->rank - k + i] == norm[i];
  if (!match) {
    return op_error(call, StatusCode::kInvalidArgument, "argument 'normalized_shape' ",
                    shape_str(norm), " must be non-empty and match the trailing dims of input ",
                    shape_str(x->shape()));
  }
  LayerNormParams p;
  p.dtype = x->dtype;
  p.cols = prod(norm, 0, norm.size());
  p.rows = prod(x->shape(), 0, x->rank - k);
  p.input = static_cast<int>(tensor_input_index(call, 0));
  *out_x = x;
  *out_norm = norm;
  return p;
}

/// Optional weight (and bias) at arguments 2 (and 3), each of shape normalized_shape.
Status norm_affine(const KernelCall& call, std::span<const int64_t> norm, size_t n,
                   LayerNormParams* p) {
  const char* names[2] = {"weight", "bias"};
  int* slots[2] = {&p->weight, &p->bias};
  for (size_t i = 0; i < n; ++i) {
    TIR_ASSIGN_OR_RETURN(const Tensor* t, optional_tensor_arg(call, i + 2, names[i]));
    if (t == nullptr) continue;
    TIR_RETURN_IF_ERROR(require_dtype(call, *t, p->dtype, names[i]));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *t, names[i]));
    const auto s = t->shape();
    if (!std::equal(s.begin(), s.end(), norm.begin(), norm.end())) {
      return op_error(call, StatusCode::kInvalidArgument, "argument '", names[i], "' ",
                      shape_str(s), " must have shape normalized_shape ", shape_str(norm));
    }
    *slots[i] = static_cast<int>(tensor_input_index(call, i + 2));
  }
  return ok_status();
}

Result<LayerNormParams> layer_norm_common(const KernelCall& call) {
  const Tensor* x = nullptr;
  std::span<const int64_t> norm;
  TIR_ASSIGN_OR_RETURN(LayerNormParams p, norm_shape(call, &x, &norm));
  const int k = static_cast<int>(norm.size());
  TIR_RETURN_IF_ERROR(norm_affine(call, norm, 2, &p));
  TIR_ASSIGN_OR_RETURN(p.eps, scalar_arg(call, 4, "eps"));
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(x->shape());
  if (call.outputs.size() == 3) {
    std::vector<int64_t> stat(x->shape().begin(), x->shape().end());
    for (int i = x->rank - k; i < x->rank; ++i) stat[i] = 1;
    for (int o = 1; o < 3; ++o) {
      call.outputs[o].dtype = p.dtype;
      call.outputs[o].set_shape(stat);
    }
    p.stats = true;
  }
  return p;
}

}  // namespace

Result<LayerNormParams> layer_norm_prepare(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 6, 1));
  (void)out_info;
  return layer_norm_common(call);
}

Result<LayerNormParams> rms_norm_prepare(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  const Tensor* x = nullptr;
  std::span<const int64_t> norm;
  TIR_ASSIGN_OR_RETURN(LayerNormParams p, norm_shape(call, &x, &norm));
  TIR_RETURN_IF_ERROR(norm_affine(call, norm, 1, &p));
  p.rms = true;
  p.eps = p.dtype == DType::kFloat64 ? std::numeric_limits<double>::epsilon()
                                     : std::numeric_limits<float>::epsilon();
  if (!call.args[3].is_none()) {
    TIR_ASSIGN_OR_RETURN(p.eps, scalar_arg(call, 3, "eps"));
  }
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(x->shape());
  return p;
}

Result<LayerNormParams> layer_norm_prepare_native(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 5, 3));
  (void)out_info;
  return layer_norm_common(call);
}

}  // namespace tir::kernels
