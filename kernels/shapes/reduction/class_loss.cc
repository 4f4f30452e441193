#include "kernels/shapes/reduction/class_loss.h"

#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

using ClassKind = ClassLossParams::Kind;

// (self, target, weight?, reduction, ignore_index[, label_smoothing]).
template <ClassKind K>
Result<ClassLossParams> class_loss_prepare(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  constexpr size_t kArgs = K == ClassKind::kCrossEntropy ? 6 : 5;
  TIR_RETURN_IF_ERROR(check_arity(call, kArgs, K == ClassKind::kNllForward ? 2 : 1));
  ClassLossParams p;
  p.kind = K;
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_ASSIGN_OR_RETURN(const Tensor* t, tensor_arg(call, 1, "target"));
  TIR_ASSIGN_OR_RETURN(const Tensor* w, optional_tensor_arg(call, 2, "weight"));
  for (const auto& [tensor, name] : {std::pair(x, "self"), std::pair(t, "target")})
    TIR_RETURN_IF_ERROR(require_contiguous(call, *tensor, name));
  if (x->dtype != DType::kFloat32 && x->dtype != DType::kFloat64)
    return op_error(call, StatusCode::kInvalidArgument, "needs a float32 or float64 self, got ",
                    dtype_name(x->dtype));
  if (x->rank < 1)
    return op_error(call, StatusCode::kInvalidArgument, "self must have a class dim, got rank 0");
  p.self = static_cast<int>(tensor_input_index(call, 0));
  p.target = static_cast<int>(tensor_input_index(call, 1));
  p.dtype = x->dtype;
  const bool batched = x->rank >= 2;
  p.classes = x->sizes[batched ? 1 : 0];
  p.batch = batched ? x->sizes[0] : 1;
  p.inner = batched ? prod(x->shape(), 2, x->rank) : 1;
  std::vector<int64_t> positions;  // the shape of a per-position loss
  for (int d = 0; d < x->rank; ++d)
    if (d != (batched ? 1 : 0)) positions.push_back(x->sizes[d]);
  p.probabilities = K == ClassKind::kCrossEntropy && dtype_is_float(t->dtype);
  if (p.probabilities) {
    if (t->dtype != x->dtype ||
        !std::equal(t->shape().begin(), t->shape().end(), x->shape().begin(), x->shape().end()))
      return op_error(call, StatusCode::kInvalidArgument,
                      "a probability target must have self's dtype and shape ",
                      shape_str(x->shape()), ", got ", dtype_name(t->dtype), " ",
                      shape_str(t->shape()));
  } else {
    if (t->dtype != DType::kInt64)
      return op_error(call, StatusCode::kInvalidArgument, "target must be int64 class indices",
                      K == ClassKind::kCrossEntropy ? " or probabilities of self's dtype" : "",
                      ", got ", dtype_name(t->dtype));
    if (!std::equal(t->shape().begin(), t->shape().end(), positions.begin(), positions.end()))
      return op_error(call, StatusCode::kInvalidArgument, "target ", shape_str(t->shape()),
                      " does not match self ", shape_str(x->shape()), " (expected ",
                      shape_str(positions), ")");
  }
  if (w != nullptr) {
    TIR_RETURN_IF_ERROR(require_contiguous(call, *w, "weight"));
    if (w->dtype != x->dtype || w->rank != 1 || w->sizes[0] != p.classes)
      return op_error(call, StatusCode::kInvalidArgument, "weight must be a ", dtype_name(x->dtype),
                      " tensor of ", p.classes, " class weights, got ", dtype_name(w->dtype), " ",
                      shape_str(w->shape()));
    p.weight = static_cast<int>(tensor_input_index(call, 2));
  }
  TIR_ASSIGN_OR_RETURN(const int64_t r, int_arg(call, 3, "reduction"));
  if (r < 0 || r > 2)
    return op_error(call, StatusCode::kInvalidArgument, "reduction ", r,
                    " is not 0 (none), 1 (mean) or 2 (sum)");
  p.reduction = static_cast<ops::LossReduction>(r);
  TIR_ASSIGN_OR_RETURN(p.ignore_index, int_arg(call, 4, "ignore_index"));
  if constexpr (K == ClassKind::kCrossEntropy) {
    TIR_ASSIGN_OR_RETURN(p.smoothing, scalar_arg(call, 5, "label_smoothing"));
    if (p.smoothing < 0 || p.smoothing > 1)
      return op_error(call, StatusCode::kInvalidArgument, "label_smoothing ", p.smoothing,
                      " is not in [0, 1]");
  }
  call.outputs[0].dtype = x->dtype;
  if (p.reduction == ops::LossReduction::kNone)
    call.outputs[0].set_shape(positions);
  else
    call.outputs[0].set_shape(std::span<const int64_t>());
  if constexpr (K == ClassKind::kNllForward) {  // total_weight
    call.outputs[1].dtype = x->dtype;
    call.outputs[1].set_shape(std::span<const int64_t>());
  }
  return p;
}

template Result<ClassLossParams> class_loss_prepare<ClassKind::kNll>(const KernelCall&,
                                                                     PrepareInfo*);
template Result<ClassLossParams> class_loss_prepare<ClassKind::kNllForward>(const KernelCall&,
                                                                            PrepareInfo*);
template Result<ClassLossParams> class_loss_prepare<ClassKind::kCrossEntropy>(const KernelCall&,
                                                                              PrepareInfo*);

}  // namespace tir::kernels
