// Reference masked_fill (kernels/shapes/indexing/masked_fill.h): self where the mask is false,
// the value converted to self's dtype where it is true.
#include "kernels/shapes/indexing/masked_fill.h"

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

template <typename T>
void run_masked_fill(const MaskedFillParams& p, const KernelCall& call) {
  const Operand* o = p.operands.data();
  T* y = call.outputs[0].data_as<T>();
  const T value =
      o[2].input >= 0 ? read_scalar_value(call.inputs[o[2].input]).as<T>() : o[2].value.as<T>();
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    y[i] = operand_load<bool>(o[1], call, in[1]) ? value : operand_load<T>(o[0], call, in[0]);
  });
}

void ref_masked_fill(const MaskedFillParams& p, const KernelCall& call, void*) {
  visit_dtype(p.dtype, [&](auto tag) { run_masked_fill<decltype(tag)>(p, call); });
}

using MaskedFillRef = FnKernel<MaskedFillParams, masked_fill_prepare, ref_masked_fill>;

}  // namespace

void register_masked_fill_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::masked_fill.Scalar", kCpu, DType::kFloat32, kRef, &make_kernel<MaskedFillRef>},
      {"aten::masked_fill.Scalar", kCpu, DType::kInt64, kRef, &make_kernel<MaskedFillRef>},
      {"aten::masked_fill.Scalar", kCpu, DType::kBool, kRef, &make_kernel<MaskedFillRef>},
      {"aten::masked_fill.Tensor", kCpu, DType::kFloat32, kRef, &make_kernel<MaskedFillRef>},
      {"aten::masked_fill.Tensor", kCpu, DType::kInt64, kRef, &make_kernel<MaskedFillRef>},
      {"aten::masked_fill.Tensor", kCpu, DType::kBool, kRef, &make_kernel<MaskedFillRef>},
      {"aten::masked_fill.Scalar", kCpu, DType::kInt32, kRef, &make_kernel<MaskedFillRef>},
      {"aten::masked_fill.Scalar", kCpu, DType::kFloat64, kRef, &make_kernel<MaskedFillRef>},
      {"aten::masked_fill.Tensor", kCpu, DType::kInt32, kRef, &make_kernel<MaskedFillRef>},
      {"aten::masked_fill.Tensor", kCpu, DType::kFloat64, kRef, &make_kernel<MaskedFillRef>},
  });
}

}  // namespace tir::kernels
