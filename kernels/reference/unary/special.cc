// Reference kernels of the special functions (kernels/ops/special.h): computed in double and
// rounded once to the output dtype.
#include "kernels/shapes/unary/special.h"

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry.h"

namespace tir::kernels {
namespace {

void ref_special(const SpecialParams& p, const KernelCall& call, void*) {
  visit_dtype(p.out, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      T* out = call.outputs[0].data_as<T>();
      nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
        out[i] = static_cast<T>(ops::special(p.kind, operand_load<double>(p.x, call, in[0]), p.n));
      });
    }
  });
}

template <ops::SpecialKind Kind>
using SpecialRef = FnKernel<SpecialParams, special_prepare<Kind>, ref_special>;

template <ops::SpecialKind Kind>
KernelEntry special(const char* op) {
  return {op, DeviceType::kCpu, DType::kUndefined, KernelImpl::kReference,
          &make_kernel<SpecialRef<Kind>>};
}

}  // namespace

void register_special_ref(KernelRegistry& registry) {
  registry.add({
      special<ops::SpecialKind::kErfinv>("aten::erfinv"),
      special<ops::SpecialKind::kLgamma>("aten::lgamma"),
      special<ops::SpecialKind::kDigamma>("aten::digamma"),
      special<ops::SpecialKind::kPolygamma>("aten::polygamma"),
      special<ops::SpecialKind::kI0>("aten::i0"),
  });
}

}  // namespace tir::kernels
