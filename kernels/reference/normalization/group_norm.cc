// Reference group norm (float32, float64) and weight norm (float32)
// (kernels/shapes/normalization/group_norm.h); sums run in double.
#include "kernels/shapes/normalization/group_norm.h"

#include <cmath>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

template <typename T>
void group_norm_groups(const GroupNormParams& p, const KernelCall& call) {
  const T* x = call.inputs[p.input].data_as<const T>();
  const T* w = p.weight >= 0 ? call.inputs[p.weight].data_as<const T>() : nullptr;
  const T* b = p.bias >= 0 ? call.inputs[p.bias].data_as<const T>() : nullptr;
  T* y = call.outputs[0].data_as<T>();
  const int64_t cg = p.c / p.groups, span = cg * p.hw;
  for (int64_t n = 0; n < p.n; ++n) {
    for (int64_t g = 0; g < p.groups; ++g) {
      const int64_t base = (n * p.c + g * cg) * p.hw;
      double sum = 0;
      for (int64_t i = 0; i < span; ++i) sum += x[base + i];
      const double mean = span ? sum / double(span) : 0.0;
      double m2 = 0;
      for (int64_t i = 0; i < span; ++i) m2 += (x[base + i] - mean) * (x[base + i] - mean);
      const double rstd = 1.0 / std::sqrt((span ? m2 / double(span) : 0.0) + p.eps);
      for (int64_t c = 0; c < cg; ++c) {
        const int64_t ch = g * cg + c;
        const double scale = rstd * (w ? double(w[ch]) : 1.0), shift = b ? double(b[ch]) : 0.0;
        for (int64_t i = 0; i < p.hw; ++i) {
          const int64_t at = base + c * p.hw + i;
          y[at] = static_cast<T>((x[at] - mean) * scale + shift);
        }
      }
      if (p.stats) {
        call.outputs[1].data_as<T>()[n * p.groups + g] = static_cast<T>(mean);
        call.outputs[2].data_as<T>()[n * p.groups + g] = static_cast<T>(rstd);
      }
    }
  }
}

void ref_group_norm(const GroupNormParams& p, const KernelCall& call, void*) {
  if (p.dtype == DType::kFloat64) {
    group_norm_groups<double>(p, call);
  } else {
    group_norm_groups<float>(p, call);
  }
}

void ref_weight_norm(const WeightNormParams& p, const KernelCall& call, void* scratch) {
  const float* v = call.inputs[p.v].data_as<const float>();
  const float* g = call.inputs[p.g].data_as<const float>();
  float* y = call.outputs[0].data_as<float>();
  double* sq = static_cast<double*>(scratch);
  for (int64_t k = 0; k < p.n; ++k) sq[k] = 0;
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t k = 0; k < p.n; ++k)
      for (int64_t i = 0; i < p.inner; ++i) {
        const double x = v[(o * p.n + k) * p.inner + i];
        sq[k] += x * x;
      }
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t k = 0; k < p.n; ++k) {
      const double scale = g[k] / std::sqrt(sq[k]);
      for (int64_t i = 0; i < p.inner; ++i) {
        const int64_t at = (o * p.n + k) * p.inner + i;
        y[at] = static_cast<float>(v[at] * scale);
      }
    }
}

using NativeGroupNormRef = FnKernel<GroupNormParams, group_norm_prepare_native, ref_group_norm>;
using GroupNormRef = FnKernel<GroupNormParams, group_norm_prepare, ref_group_norm>;
using WeightNormRef = FnKernel<WeightNormParams, weight_norm_prepare, ref_weight_norm>;

}  // namespace

void register_group_norm_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::native_group_norm", kCpu, kF32, kRef, &make_kernel<NativeGroupNormRef>},
      {"aten::group_norm", kCpu, kF32, kRef, &make_kernel<GroupNormRef>},
      {"aten::native_group_norm", kCpu, kF64, kRef, &make_kernel<NativeGroupNormRef>},
      {"aten::group_norm", kCpu, kF64, kRef, &make_kernel<GroupNormRef>},
      {"aten::_weight_norm", kCpu, kF32, kRef, &make_kernel<WeightNormRef>},
  });
}
}  // namespace tir::kernels
