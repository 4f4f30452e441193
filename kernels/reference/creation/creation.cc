// Reference tensor creation.
#include "kernels/shapes/creation/creation.h"

#include <cstdint>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {

void ref_fill(const FillParams& p, const KernelCall& call, void*) {
  visit_dtype(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T v = p.value.as<T>();
    T* y = call.outputs[0].data_as<T>();
    for (int64_t i = 0; i < p.numel; ++i) y[i] = v;
  });
}

namespace {

template <FillKind K>
using FillRef = FnKernel<FillParams, creation_prepare_fill<K>, ref_fill>;

constexpr auto kRef = KernelImpl::kReference;
constexpr auto kCpu = DeviceType::kCpu;
constexpr auto kAny = DType::kUndefined;

}  // namespace

void register_creation_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::scalar_tensor", kCpu, kAny, kRef, &make_kernel<FillRef<FillKind::kScalarTensor>>},
      {"aten::full", kCpu, kAny, kRef, &make_kernel<FillRef<FillKind::kFull>>},
      {"aten::zeros", kCpu, kAny, kRef, &make_kernel<FillRef<FillKind::kZeros>>},
      {"aten::ones", kCpu, kAny, kRef, &make_kernel<FillRef<FillKind::kOnes>>},
      {"aten::full_like", kCpu, kAny, kRef, &make_kernel<FillRef<FillKind::kFullLike>>},
      {"aten::zeros_like", kCpu, kAny, kRef, &make_kernel<FillRef<FillKind::kZerosLike>>},
      // empty tensors are zero-filled: their contents are unspecified, zeros are one choice
      {"aten::empty.memory_format", kCpu, kAny, kRef, &make_kernel<FillRef<FillKind::kZeros>>},
      {"aten::empty_like", kCpu, kAny, kRef, &make_kernel<FillRef<FillKind::kZerosLike>>},
      {"aten::ones_like", kCpu, kAny, kRef, &make_kernel<FillRef<FillKind::kOnesLike>>},
      {"aten::new_zeros", kCpu, kAny, kRef, &make_kernel<FillRef<FillKind::kNewZeros>>},
      {"aten::new_ones", kCpu, kAny, kRef, &make_kernel<FillRef<FillKind::kNewOnes>>},
  });
}
}  // namespace tir::kernels
