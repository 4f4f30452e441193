// Reference sort and topk (kernels/shapes/sort_select/sort.h): a stable sort of indices per
// slice, so equal values keep their input order (ATen's CPU sort is stable too). topk selects
// as ATen's CPU kernel does, so that equal values (a row masked to -inf, ReLU zeros) give
// torch's indices: (value, index) pairs ordered by value alone (NaN above every number),
// std::partial_sort of the first k when k * 64 <= n, else std::nth_element at k - 1 and, when
// `sorted`, std::sort of the k - 1 before it. DeepSeek-V3.2's sparse-attention indexer
// takes the top k of a causally masked row: with a stable order instead its attention read
// other positions and the model's output was 0.4 off.
#include "kernels/shapes/sort_select/sort.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/reference/nan.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

template <typename T>
void run_typed(const SortParams& p, const KernelCall& call, void* scratch) {
  const T* x = call.inputs[p.input].data_as<const T>();
  T* values = p.indices_only ? nullptr : call.outputs[0].data_as<T>();
  int64_t* indices = call.outputs[p.indices_only ? 0 : 1].data_as<int64_t>();
  int64_t* order = static_cast<int64_t*>(scratch);
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      const T* slice = x + o * p.n * p.inner + i;
      for (int64_t j = 0; j < p.n; ++j) order[j] = j;
      // NaN is the largest value.
      const auto less = [&](int64_t a, int64_t b) {
        const T va = slice[a * p.inner], vb = slice[b * p.inner];
        if (is_nan(vb)) return !is_nan(va);
        if (is_nan(va)) return false;
        return va < vb;
      };
      if (p.descending) {
        std::stable_sort(order, order + p.n, [&](int64_t a, int64_t b) { return less(b, a); });
      } else {
        std::stable_sort(order, order + p.n, less);
      }
      const int64_t base = o * p.k * p.inner + i;
      for (int64_t j = 0; j < p.k; ++j) {
        if (values) values[base + j * p.inner] = slice[order[j] * p.inner];
        indices[base + j * p.inner] = order[j];
      }
    }
  }
}

template <typename T>
void run_topk(const SortParams& p, const KernelCall& call) {
  const T* x = call.inputs[p.input].data_as<const T>();
  T* values = call.outputs[0].data_as<T>();
  int64_t* indices = call.outputs[1].data_as<int64_t>();
  using Elem = std::pair<T, int64_t>;
  std::vector<Elem> queue(static_cast<size_t>(p.n));
  const auto first = [&](const Elem& a, const Elem& b) {  // a goes before b
    return p.descending ? (is_nan(a.first) && !is_nan(b.first)) || a.first > b.first
                        : (!is_nan(a.first) && is_nan(b.first)) || a.first < b.first;
  };
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      if (p.k == 0) continue;
      const T* slice = x + o * p.n * p.inner + i;
      for (int64_t j = 0; j < p.n; ++j) queue[j] = {slice[j * p.inner], j};
      if (p.k * 64 <= p.n) {
        std::partial_sort(queue.begin(), queue.begin() + p.k, queue.end(), first);
      } else {
        std::nth_element(queue.begin(), queue.begin() + p.k - 1, queue.end(), first);
        if (p.sorted) std::sort(queue.begin(), queue.begin() + p.k - 1, first);
      }
      const int64_t base = o * p.k * p.inner + i;
      for (int64_t j = 0; j < p.k; ++j) {
        values[base + j * p.inner] = queue[j].first;
        indices[base + j * p.inner] = queue[j].second;
      }
    }
  }
}

void ref_sort(const SortParams& p, const KernelCall& call, void* scratch) {
  visit_dtype(p.dtype, [&](auto tag) {
    if (p.topk)
      run_topk<decltype(tag)>(p, call);
    else
      run_typed<decltype(tag)>(p, call, scratch);
  });
}

using SortRef = FnKernel<SortParams, sort_prepare_sort<false>, ref_sort>;
using SortStableRef = FnKernel<SortParams, sort_prepare_sort<true>, ref_sort>;
using TopkRef = FnKernel<SortParams, sort_prepare_topk, ref_sort>;
using ArgsortRef = FnKernel<SortParams, sort_prepare_argsort<false>, ref_sort>;
using ArgsortStableRef = FnKernel<SortParams, sort_prepare_argsort<true>, ref_sort>;

}  // namespace

void register_sort_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::sort", kCpu, kAny, kRef, &make_kernel<SortRef>},
      {"aten::sort.stable", kCpu, kAny, kRef, &make_kernel<SortStableRef>},
      {"aten::topk", kCpu, kAny, kRef, &make_kernel<TopkRef>},
      {"aten::argsort", kCpu, kAny, kRef, &make_kernel<ArgsortRef>},
      {"aten::argsort.stable", kCpu, kAny, kRef, &make_kernel<ArgsortStableRef>},
  });
}
}  // namespace tir::kernels
