// Reference eye, linspace/logspace, one_hot and diag_embed (kernels/shapes/creation/patterns.h).
// The spaced values follow ATen's CPU kernels: the first half counted up from start, the second
// half down from end, so both ends are exact.
#include "kernels/shapes/creation/patterns.h"

#include <array>
#include <cmath>
#include <cstring>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {
namespace {

void ref_eye(const EyeParams& p, const KernelCall& call, void*) {
  visit_dtype(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* y = call.outputs[0].data_as<T>();
    for (int64_t i = 0; i < p.n * p.m; ++i) y[i] = T{};
    for (int64_t i = 0; i < std::min(p.n, p.m); ++i) y[i * p.m + i] = static_cast<T>(1);
  });
}

// linspace in float types steps in the type itself, in integer types in double (ATen);
// logspace steps in double and raises base to each value.
template <typename T>
void fill_space(const SpaceParams& p, T* y) {
  using Step = std::conditional_t<std::is_integral_v<T>, double, T>;
  const T start = static_cast<T>(p.start), end = static_cast<T>(p.end);
  const int64_t half = p.steps / 2;
  if (p.base == 0) {
    const Step step =
        p.steps > 1
            ? static_cast<Step>(static_cast<Step>(end - start) / static_cast<Step>(p.steps - 1))
            : Step{};
    for (int64_t i = 0; i < p.steps; ++i)
      y[i] = i < half ? static_cast<T>(start + step * static_cast<Step>(i))
                      : static_cast<T>(end - step * static_cast<Step>(p.steps - i - 1));
    return;
  }
  const double step =
      p.steps > 1 ? static_cast<double>(end - start) / static_cast<double>(p.steps - 1) : 0.0;
  for (int64_t i = 0; i < p.steps; ++i) {
    const double e = i < half
                         ? static_cast<double>(start) + step * static_cast<double>(i)
                         : static_cast<double>(end) - step * static_cast<double>(p.steps - i - 1);
    y[i] = static_cast<T>(std::pow(p.base, e));
  }
}

void ref_space(const SpaceParams& p, const KernelCall& call, void*) {
  visit_dtype(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) fill_space(p, call.outputs[0].data_as<T>());
  });
}

template <typename I>
Status fill_one_hot(const OneHotParams& p, const KernelCall& call) {
  const I* x = call.inputs[p.input].data_as<const I>();
  int64_t* y = call.outputs[0].data_as<int64_t>();
  std::memset(y, 0, static_cast<size_t>(p.numel * p.classes) * sizeof(int64_t));
  for (int64_t i = 0; i < p.numel; ++i) {
    const int64_t c = static_cast<int64_t>(x[i]);
    if (c < 0 || c >= p.classes)
      return op_error(call, StatusCode::kInvalidArgument, "class value ", c, " at index ", i,
                      " is outside [0, ", p.classes, ")");
    y[i * p.classes + c] = 1;
  }
  return ok_status();
}

Status run_one_hot(const OneHotParams& p, const KernelCall& call) {
  return p.index_dtype == DType::kInt32 ? fill_one_hot<int32_t>(p, call)
                                        : fill_one_hot<int64_t>(p, call);
}

void ref_diag_embed(const DiagEmbedParams& p, const KernelCall& call, void*) {
  const auto* x = call.inputs[p.input].data_as<const uint8_t>();
  auto* y = call.outputs[0].data_as<uint8_t>();
  std::memset(y, 0, call.outputs[0].nbytes());
  const int outer_rank = p.rank - 2;
  std::array<int64_t, kMaxRank> at{};
  int64_t base = p.start;
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.n; ++i)
      std::memcpy(y + (base + i * p.step) * int64_t(p.elem_size),
                  x + (o * p.n + i) * int64_t(p.elem_size), p.elem_size);
    for (int d = outer_rank - 1; d >= 0; --d) {  // next index of self's leading dims
      base += p.strides[d];
      if (++at[d] < p.outer_sizes[d]) break;
      base -= at[d] * p.strides[d];
      at[d] = 0;
    }
  }
}

template <Result<EyeParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
using EyeRef = FnKernel<EyeParams, Prepare, ref_eye>;
template <Result<SpaceParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
using SpaceRef = FnKernel<SpaceParams, Prepare, ref_space>;
using OneHotRef = CheckedKernel<OneHotParams, creation_prepare_one_hot, run_one_hot>;
using DiagEmbedRef = FnKernel<DiagEmbedParams, creation_prepare_diag_embed, ref_diag_embed>;

}  // namespace

void register_pattern_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::eye", kCpu, kAny, kRef, &make_kernel<EyeRef<creation_prepare_eye>>},
      {"aten::eye.m", kCpu, kAny, kRef, &make_kernel<EyeRef<creation_prepare_eye_m>>},
      {"aten::linspace", kCpu, kAny, kRef, &make_kernel<SpaceRef<creation_prepare_linspace>>},
      {"aten::logspace", kCpu, kAny, kRef, &make_kernel<SpaceRef<creation_prepare_logspace>>},
      {"aten::one_hot", kCpu, kAny, kRef, &make_kernel<OneHotRef>},
      {"aten::diag_embed", kCpu, kAny, kRef, &make_kernel<DiagEmbedRef>},
  });
}

}  // namespace tir::kernels
