// Reference order statistics (kernels/shapes/sort_select/select.h): a stable sort of each
// slice's indices, then the selected position.
#include "kernels/shapes/sort_select/select.h"

#include <algorithm>

#include "kernels/kernel_util.h"
#include "kernels/reference/nan.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

using Kind = SelectParams::Kind;

template <typename T>
void run_typed(const SelectParams& p, const KernelCall& call, void* scratch) {
  const T* x = call.inputs[p.input].data_as<const T>();
  T* values = call.outputs[0].data_as<T>();
  int64_t* indices = p.indices ? call.outputs[1].data_as<int64_t>() : nullptr;
  int64_t* order = static_cast<int64_t*>(scratch);
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      const T* slice = x + o * p.n * p.inner + i;
      const auto at = [&](int64_t j) { return slice[j * p.inner]; };
      for (int64_t j = 0; j < p.n; ++j) order[j] = j;
      std::stable_sort(order, order + p.n, [&](int64_t a, int64_t b) {
        if (is_nan(at(b))) return !is_nan(at(a));  // NaN is the largest value
        if (is_nan(at(a))) return false;
        return at(a) < at(b);
      });
      int64_t nans = 0;
      while (nans < p.n && is_nan(at(order[p.n - 1 - nans]))) ++nans;
      int64_t pos = 0;
      if (p.kind == Kind::kKth) {
        pos = p.k - 1;
      } else if (p.kind == Kind::kNanMedian) {
        const int64_t numbers = p.n - nans;
        pos = numbers == 0 ? 0 : (numbers - 1) / 2;
      } else {
        pos = nans > 0 ? p.n - nans : (p.n - 1) / 2;  // a NaN slice: its first NaN
      }
      values[o * p.inner + i] = at(order[pos]);
      if (indices) indices[o * p.inner + i] = order[pos];
    }
  }
}

void ref_select(const SelectParams& p, const KernelCall& call, void* scratch) {
  visit_dtype(p.dtype, [&](auto tag) { run_typed<decltype(tag)>(p, call, scratch); });
}

template <Result<SelectParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
using SelectRef = FnKernel<SelectParams, Prepare, ref_select>;

}  // namespace

void register_select_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::median", kCpu, kAny, kRef,
       &make_kernel<SelectRef<select_prepare_all<Kind::kMedian>>>},
      {"aten::median.dim", kCpu, kAny, kRef,
       &make_kernel<SelectRef<select_prepare_dim<Kind::kMedian>>>},
      {"aten::nanmedian", kCpu, kAny, kRef,
       &make_kernel<SelectRef<select_prepare_all<Kind::kNanMedian>>>},
      {"aten::nanmedian.dim", kCpu, kAny, kRef,
       &make_kernel<SelectRef<select_prepare_dim<Kind::kNanMedian>>>},
      {"aten::kthvalue", kCpu, kAny, kRef, &make_kernel<SelectRef<select_prepare_kthvalue>>},
  });
}

}  // namespace tir::kernels
