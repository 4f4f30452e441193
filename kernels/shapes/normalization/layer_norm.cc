#include "kernels/shapes/normalization/layer_norm.h"

#include <algorithm>
#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

Result<LayerNormParams> layer_norm_common(const KernelCall& call) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
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
  p.cols = prod(norm, 0, norm.size());
  p.rows = prod(x->shape(), 0, x->rank - k);
  p.input = static_cast<int>(tensor_input_index(call, 0));
  const char* names[2] = {"weight", "bias"};
  int* slots[2] = {&p.weight, &p.bias};
  for (size_t i = 0; i < 2; ++i) {
    TIR_ASSIGN_OR_RETURN(const Tensor* t, optional_tensor_arg(call, i + 2, names[i]));
    if (t == nullptr) continue;
    TIR_RETURN_IF_ERROR(require_dtype(call, *t, DType::kFloat32, names[i]));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *t, names[i]));
    const auto s = t->shape();
    if (!std::equal(s.begin(), s.end(), norm.begin(), norm.end())) {
      return op_error(call, StatusCode::kInvalidArgument, "argument '", names[i], "' ",
                      shape_str(s), " must have shape normalized_shape ", shape_str(norm));
    }
    *slots[i] = static_cast<int>(tensor_input_index(call, i + 2));
  }
  TIR_ASSIGN_OR_RETURN(p.eps, scalar_arg(call, 4, "eps"));
  call.outputs[0].dtype = DType::kFloat32;
  call.outputs[0].set_shape(x->shape());
  if (call.outputs.size() == 3) {
    std::vector<int64_t> stat(x->shape().begin(), x->shape().end());
    for (int i = x->rank - k; i < x->rank; ++i) stat[i] = 1;
    for (int o = 1; o < 3; ++o) {
      call.outputs[o].dtype = DType::kFloat32;
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

Result<LayerNormParams> layer_norm_prepare_native(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 5, 3));
  (void)out_info;
  return layer_norm_common(call);
}

}  // namespace tir::kernels
