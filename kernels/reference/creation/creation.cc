// Reference tensor creation: constant fills (full, zeros, ones, empty and their _like/new_
// forms, fill, empty_strided) and arange.
#include "kernels/shapes/creation/creation.h"

#include <cstdint>
#include <cstring>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

// Integers count in int64 from the truncated bounds, floating point in double, then each
// value is rounded to the output's type (float16 and bfloat16 through float).
template <typename T>
void fill_arange(const ArangeParams& p, T* out) {
  for (int64_t i = 0; i < p.n; ++i) {
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      out[i] = T::from_float(static_cast<float>(p.start + static_cast<double>(i) * p.step));
    } else if constexpr (std::is_integral_v<T>) {
      out[i] = static_cast<T>(p.istart + i * p.istep);
    } else {
      out[i] = static_cast<T>(p.start + static_cast<double>(i) * p.step);
    }
  }
}

Status run_arange(const ArangeParams& p, const KernelCall& call) {
  visit_any_dtype(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) fill_arange(p, call.outputs[0].data_as<T>());
  });
  return ok_status();
}

void ref_fill_like(const FillLikeParams& p, const KernelCall& call, void*) {
  const ScalarValue v =
      p.value_input >= 0 ? read_scalar_value(call.inputs[p.value_input]) : p.value;
  visit_dtype(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* y = call.outputs[0].data_as<T>();
    const T x = v.as<T>();
    for (int64_t i = 0; i < p.numel; ++i) y[i] = x;
  });
}
}  // namespace

void ref_fill(const FillParams& p, const KernelCall& call, void*) {
  const size_t size = dtype_size(p.dtype);
  uint8_t element[16] = {};
  scalar_to_element(p.value, p.dtype, element);
  auto* y = static_cast<uint8_t*>(call.outputs[0].data);
  for (int64_t i = 0; i < p.numel; ++i) std::memcpy(y + size_t(i) * size, element, size);
}

namespace {

template <FillKind K>
using FillRef = FnKernel<FillParams, creation_prepare_fill<K>, ref_fill>;
using FillSelfRef = FnKernel<FillLikeParams, creation_prepare_fill_self, ref_fill_like>;
using EmptyStridedRef = FnKernel<FillLikeParams, creation_prepare_empty_strided, ref_fill_like>;
template <Result<ArangeParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
using ArangeRef = CheckedKernel<ArangeParams, Prepare, run_arange>;

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
      {"aten::fill.Scalar", kCpu, kAny, kRef, &make_kernel<FillSelfRef>},
      {"aten::fill.Tensor", kCpu, kAny, kRef, &make_kernel<FillSelfRef>},
      {"aten::empty_strided", kCpu, kAny, kRef, &make_kernel<EmptyStridedRef>},
      // (size, physical_layout, dtype?, ...): tir tensors are dense in logical order
      {"aten::empty_permuted", kCpu, kAny, kRef, &make_kernel<EmptyStridedRef>},
      {"aten::arange", kCpu, kAny, kRef, &make_kernel<ArangeRef<creation_prepare_arange>>},
      {"aten::arange.start", kCpu, kAny, kRef,
       &make_kernel<ArangeRef<creation_prepare_arange_start>>},
      {"aten::arange.start_step", kCpu, kAny, kRef,
       &make_kernel<ArangeRef<creation_prepare_arange_start_step>>},
  });
}
}  // namespace tir::kernels
