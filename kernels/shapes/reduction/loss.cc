#include "kernels/shapes/reduction/loss.h"

#include "kernels/kernel_util.h"

namespace tir::kernels {

using ops::LossKind;

template <LossKind Kind>
Result<LossParams> loss_prepare(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  // Argument positions by schema: (self, target, [weight, [pos_weight,]] reduction, [param]).
  constexpr bool kWeighted = Kind == LossKind::kBce || Kind == LossKind::kBceLogits;
  constexpr size_t kReduction = Kind == LossKind::kBce ? 3 : Kind == LossKind::kBceLogits ? 4 : 2;
  constexpr bool kParam =
      Kind == LossKind::kSmoothL1 || Kind == LossKind::kHuber || Kind == LossKind::kKlDiv;
  TIR_RETURN_IF_ERROR(check_arity(call, kReduction + (kParam ? 2 : 1), 1));
  LossParams p;
  p.kind = Kind;
  TIR_ASSIGN_OR_RETURN(p.x, tensor_operand_arg(call, 0, "self"));
  TIR_ASSIGN_OR_RETURN(p.y, tensor_operand_arg(call, 1, "target"));
  if (!dtype_is_float(p.x.dtype))
    return op_error(call, StatusCode::kInvalidArgument, "needs a floating-point self, got ",
                    dtype_name(p.x.dtype));
  std::vector<std::span<const int64_t>> shapes = {p.x.shape, p.y.shape};
  if constexpr (kWeighted) {
    if (!call.args[2].is_none()) {
      TIR_ASSIGN_OR_RETURN(p.w, tensor_operand_arg(call, 2, "weight"));
      shapes.push_back(p.w.shape);
    }
    if (Kind == LossKind::kBceLogits && !call.args[3].is_none())
      return op_error(call, StatusCode::kUnsupported, "pos_weight is not supported yet");
  }
  TIR_ASSIGN_OR_RETURN(const int64_t r, int_arg(call, kReduction, "reduction"));
  if (r < 0 || r > 2)
    return op_error(call, StatusCode::kInvalidArgument, "reduction ", r,
                    " is not 0 (none), 1 (mean) or 2 (sum)");
  p.reduction = static_cast<ops::LossReduction>(r);
  if constexpr (Kind == LossKind::kKlDiv) {
    TIR_ASSIGN_OR_RETURN(const bool log_target, bool_arg(call, kReduction + 1, "log_target"));
    p.p = log_target ? 1 : 0;
  } else if constexpr (kParam) {
    TIR_ASSIGN_OR_RETURN(
        p.p, scalar_arg(call, kReduction + 1, Kind == LossKind::kHuber ? "delta" : "beta"));
    if (p.p < 0) return op_error(call, StatusCode::kInvalidArgument, "a negative beta/delta ", p.p);
  }
  TIR_ASSIGN_OR_RETURN(p.plan, make_nary_plan(call, shapes));
  p.out = p.x.dtype;
  call.outputs[0].dtype = p.out;
  if (p.reduction == ops::LossReduction::kNone)
    call.outputs[0].set_shape(std::span<const int64_t>(p.plan.sizes.data(), p.plan.rank));
  else
    call.outputs[0].set_shape(std::span<const int64_t>());
  return p;
}

template Result<LossParams> loss_prepare<LossKind::kMse>(const KernelCall&, PrepareInfo*);
template Result<LossParams> loss_prepare<LossKind::kL1>(const KernelCall&, PrepareInfo*);
template Result<LossParams> loss_prepare<LossKind::kSmoothL1>(const KernelCall&, PrepareInfo*);
template Result<LossParams> loss_prepare<LossKind::kHuber>(const KernelCall&, PrepareInfo*);
template Result<LossParams> loss_prepare<LossKind::kBce>(const KernelCall&, PrepareInfo*);
template Result<LossParams> loss_prepare<LossKind::kBceLogits>(const KernelCall&, PrepareInfo*);
template Result<LossParams> loss_prepare<LossKind::kKlDiv>(const KernelCall&, PrepareInfo*);

}  // namespace tir::kernels
