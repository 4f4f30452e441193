// Reference searchsorted, bucketize and isin (kernels/shapes/sort_select/search.h): a binary
// search per value, compared as double.
#include "kernels/shapes/sort_select/search.h"

#include <algorithm>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

void ref_search(const SearchParams& p, const KernelCall& call, void*) {
  const Tensor& seq = call.inputs[p.sorted];
  std::vector<double> row(static_cast<size_t>(p.n));
  int64_t at = 0;
  for (int64_t r = 0; r < p.rows; ++r) {
    visit_dtype(seq.dtype, [&](auto tag) {
      using T = decltype(tag);
      const T* s = seq.data_as<const T>() + r * p.n;
      for (int64_t k = 0; k < p.n; ++k) row[size_t(k)] = double(s[k]);
    });
    for (int64_t i = 0; i < p.per_row; ++i, ++at) {
      const double v = operand_load<double>(p.values, call, at);
      const auto it = p.right ? std::upper_bound(row.begin(), row.end(), v)
                              : std::lower_bound(row.begin(), row.end(), v);
      const int64_t idx = it - row.begin();
      if (p.out == DType::kInt32) {
        call.outputs[0].data_as<int32_t>()[at] = static_cast<int32_t>(idx);
      } else {
        call.outputs[0].data_as<int64_t>()[at] = idx;
      }
    }
  }
}

void ref_isin(const IsinParams& p, const KernelCall& call, void*) {
  std::vector<double> tests;
  for (int64_t k = 0; k < p.tests_count; ++k)
    tests.push_back(operand_load<double>(p.tests, call, k));
  std::sort(tests.begin(), tests.end());  // NaN equals nothing: where it lands does not matter
  bool* out = call.outputs[0].data_as<bool>();
  for (int64_t i = 0; i < p.count; ++i) {
    const double v = operand_load<double>(p.elements, call, i);
    out[i] = std::binary_search(tests.begin(), tests.end(), v) != p.invert;
  }
}

using SearchsortedRef = FnKernel<SearchParams, search_prepare_searchsorted, ref_search>;
using BucketizeRef = FnKernel<SearchParams, search_prepare_bucketize, ref_search>;
using IsinRef = FnKernel<IsinParams, search_prepare_isin, ref_isin>;

}  // namespace

void register_search_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::searchsorted.Tensor", kCpu, kAny, kRef, &make_kernel<SearchsortedRef>},
      {"aten::searchsorted.Scalar", kCpu, kAny, kRef, &make_kernel<SearchsortedRef>},
      {"aten::bucketize.Tensor", kCpu, kAny, kRef, &make_kernel<BucketizeRef>},
      {"aten::bucketize.Scalar", kCpu, kAny, kRef, &make_kernel<BucketizeRef>},
      {"aten::isin.Tensor_Tensor", kCpu, kAny, kRef, &make_kernel<IsinRef>},
      {"aten::isin.Tensor_Scalar", kCpu, kAny, kRef, &make_kernel<IsinRef>},
      {"aten::isin.Scalar_Tensor", kCpu, kAny, kRef, &make_kernel<IsinRef>},
  });
}

}  // namespace tir::kernels
