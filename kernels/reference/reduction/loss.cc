// Reference element-wise losses (kernels/ops/loss.h): each element's loss in double, then
// written out (reduction none) or summed in double (mean divides by the element count; torch
// gives NaN for the mean of nothing).
#include "kernels/shapes/reduction/loss.h"

#include <limits>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry.h"

namespace tir::kernels {
namespace {

using ops::LossKind;

void ref_loss(const LossParams& p, const KernelCall& call, void*) {
  double sum = 0;
  visit_dtype(p.out, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      T* out = call.outputs[0].data_as<T>();
      nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
        double v = ops::loss(p.kind, operand_load<double>(p.x, call, in[0]),
                             operand_load<double>(p.y, call, in[1]), p.p);
        if (p.w.input >= 0) v *= operand_load<double>(p.w, call, in[2]);
        if (p.reduction == ops::LossReduction::kNone)
          out[i] = static_cast<T>(v);
        else
          sum += v;
      });
      const int64_t n = p.plan.numel();
      if (p.reduction == ops::LossReduction::kSum) out[0] = static_cast<T>(sum);
      if (p.reduction == ops::LossReduction::kMean)
        out[0] = static_cast<T>(n == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / n);
    }
  });
}

template <LossKind Kind>
using LossRef = FnKernel<LossParams, loss_prepare<Kind>, ref_loss>;

template <LossKind Kind>
KernelEntry loss(const char* op) {
  return {op, DeviceType::kCpu, DType::kUndefined, KernelImpl::kReference,
          &make_kernel<LossRef<Kind>>};
}

}  // namespace

void register_loss_ref(KernelRegistry& registry) {
  registry.add({
      loss<LossKind::kMse>("aten::mse_loss"),
      loss<LossKind::kL1>("aten::l1_loss"),
      loss<LossKind::kSmoothL1>("aten::smooth_l1_loss"),
      loss<LossKind::kHuber>("aten::huber_loss"),
      loss<LossKind::kBce>("aten::binary_cross_entropy"),
      loss<LossKind::kBceLogits>("aten::binary_cross_entropy_with_logits"),
      loss<LossKind::kKlDiv>("aten::kl_div"),
  });
}

}  // namespace tir::kernels
