#include "kernels/shapes/unary/special.h"

#include "kernels/kernel_util.h"

namespace tir::kernels {

template <ops::SpecialKind Kind>
Result<SpecialParams> special_prepare(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  constexpr bool kPolygamma = Kind == ops::SpecialKind::kPolygamma;
  constexpr size_t kSelf = kPolygamma ? 1 : 0;
  if (call.args.size() != kSelf + 1 || call.outputs.size() != 1)
    return op_error(call, StatusCode::kInvalidArgument,
                    kPolygamma ? "expects (n, self)" : "expects (self)", " and one output");
  SpecialParams p;
  p.kind = Kind;
  if constexpr (kPolygamma) {
    TIR_ASSIGN_OR_RETURN(p.n, int_arg(call, 0, "n"));
    if (p.n < 0 || p.n > 170)  // n! overflows double past 170
      return op_error(call, StatusCode::kInvalidArgument, "order n = ", p.n,
                      " is outside [0, 170]");
  }
  TIR_ASSIGN_OR_RETURN(p.x, tensor_operand_arg(call, kSelf, "self"));
  p.out = dtype_is_float(p.x.dtype) ? p.x.dtype : DType::kFloat32;
  const std::array<std::span<const int64_t>, 1> shapes = {p.x.shape};
  TIR_ASSIGN_OR_RETURN(p.plan, make_nary_plan(call, shapes));
  call.outputs[0].dtype = p.out;
  call.outputs[0].set_shape(std::span<const int64_t>(p.plan.sizes.data(), p.plan.rank));
  return p;
}

template Result<SpecialParams> special_prepare<ops::SpecialKind::kErfinv>(const KernelCall&,
                                                                          PrepareInfo*);
template Result<SpecialParams> special_prepare<ops::SpecialKind::kLgamma>(const KernelCall&,
                                                                          PrepareInfo*);
template Result<SpecialParams> special_prepare<ops::SpecialKind::kDigamma>(const KernelCall&,
                                                                           PrepareInfo*);
template Result<SpecialParams> special_prepare<ops::SpecialKind::kPolygamma>(const KernelCall&,
                                                                             PrepareInfo*);
template Result<SpecialParams> special_prepare<ops::SpecialKind::kI0>(const KernelCall&,
                                                                      PrepareInfo*);

}  // namespace tir::kernels
