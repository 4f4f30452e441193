// Reference any.dim and diff (plain loops; no optimized versions yet).
#include "kernels/shapes/reduction/any_diff.h"

#include <algorithm>
#include <cstring>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {
namespace {

bool nonzero(DType t, const void* base, int64_t i) {
  bool out = false;
  visit_dtype(
      t, [&](auto tag) { out = static_cast<const decltype(tag)*>(base)[i] != decltype(tag)(0); });
  return out;
}

void ref_any_dim(const AnyParams& p, const KernelCall& call, void*) {
  const void* x = call.inputs[p.input].data;
  uint8_t* y = call.outputs[0].data_as<uint8_t>();
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t i = 0; i < p.inner; ++i) {
      bool any = false;
      for (int64_t k = 0; k < p.n && !any; ++k) any = nonzero(p.in, x, (o * p.n + k) * p.inner + i);
      y[o * p.inner + i] = any;
    }
}

template <typename T>
void diff_loop(const DiffParams& p, const KernelCall& call) {
  const int64_t total = p.pre_n + p.self_n + p.post_n;
  T* y = call.outputs[0].data_as<T>();
  // Element k along dim of cat([prepend, self, append]).
  auto at = [&](int64_t o, int64_t k, int64_t i) {
    if (k < p.pre_n) return call.inputs[p.pre].data_as<const T>()[(o * p.pre_n + k) * p.inner + i];
    k -= p.pre_n;
    if (k < p.self_n)
      return call.inputs[p.self].data_as<const T>()[(o * p.self_n + k) * p.inner + i];
    k -= p.self_n;
    return call.inputs[p.post].data_as<const T>()[(o * p.post_n + k) * p.inner + i];
  };
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t k = 0; k + 1 < total; ++k)
      for (int64_t i = 0; i < p.inner; ++i)
        y[(o * (total - 1) + k) * p.inner + i] = at(o, k + 1, i) - at(o, k, i);
}

void ref_diff(const DiffParams& p, const KernelCall& call, void*) {
  if (p.dtype == DType::kFloat32)
    diff_loop<float>(p, call);
  else if (p.dtype == DType::kFloat64)
    diff_loop<double>(p, call);
  else
    diff_loop<int64_t>(p, call);
}

using AnyDimRef = FnKernel<AnyParams, misc_prepare_any_dim, ref_any_dim>;
using DiffRef = FnKernel<DiffParams, misc_prepare_diff, ref_diff>;

}  // namespace

void register_any_diff_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::any.dim", kCpu, DType::kBool, kRef, &make_kernel<AnyDimRef>},
      {"aten::any.dim", kCpu, DType::kInt64, kRef, &make_kernel<AnyDimRef>},
      {"aten::any.dim", kCpu, DType::kFloat32, kRef, &make_kernel<AnyDimRef>},
      {"aten::diff", kCpu, DType::kFloat32, kRef, &make_kernel<DiffRef>},
      {"aten::diff", kCpu, DType::kInt64, kRef, &make_kernel<DiffRef>},
      {"aten::diff", kCpu, DType::kFloat64, kRef, &make_kernel<DiffRef>},
      {"aten::any.dim", kCpu, DType::kInt32, kRef, &make_kernel<AnyDimRef>},
      {"aten::any.dim", kCpu, DType::kFloat64, kRef, &make_kernel<AnyDimRef>},
  });
}
}  // namespace tir::kernels
