// Reference order statistics (kernels/shapes/sort_select/select.h). kthvalue selects as
// ATen's CPU kernel does, with its quickselect (Sedgewick's: median of three, then Hoare
// partitions), so that a k-th value met several times gives torch's index; median, nanmedian
// and mode take a stable sort of each slice's indices (the position in that order; mode scans
// its runs), which gives torch's indices on the op suite's samples.
#include "kernels/shapes/sort_select/select.h"

#include <algorithm>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/reference/nan.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

using Kind = SelectParams::Kind;

/// The last position of the longest run of equal values in the sorted `order` (the first
/// such run: the smallest value).
template <typename Eq>
int64_t mode_position(int64_t n, const int64_t* order, Eq equal) {
  int64_t best = 0, best_len = 0;
  for (int64_t start = 0; start < n;) {
    int64_t end = start + 1;
    while (end < n && equal(order[start], order[end])) ++end;
    if (end - start > best_len) {
      best_len = end - start;
      best = end - 1;
    }
    start = end;
  }
  return best;
}

/// Moves the k-th smallest of (v, ix) (NaN above every number) to position k, the rest
/// partitioned around it, step for step as ATen's quick_select_template.
template <typename T>
void quick_select(std::vector<T>& v, std::vector<int64_t>& ix, int64_t k) {
  const auto gt = [](T a, T b) { return (is_nan(a) && !is_nan(b)) || a > b; };
  const auto swap = [&](int64_t a, int64_t b) {
    std::swap(v[size_t(a)], v[size_t(b)]);
    std::swap(ix[size_t(a)], ix[size_t(b)]);
  };
  int64_t lo = 0, hi = static_cast<int64_t>(v.size()) - 1;
  while (hi > lo) {
    if (hi == lo + 1) {
      if (gt(v[size_t(lo)], v[size_t(hi)])) swap(lo, hi);
      return;
    }
    swap((lo + hi) >> 1, lo + 1);  // median of three
    if (gt(v[size_t(lo + 1)], v[size_t(hi)])) swap(lo + 1, hi);
    if (gt(v[size_t(lo)], v[size_t(hi)])) swap(lo, hi);
    if (gt(v[size_t(lo + 1)], v[size_t(lo)])) swap(lo + 1, lo);
    int64_t i = lo + 1, j = hi;
    const T pivot = v[size_t(lo)];
    while (true) {
      do ++i;
      while (gt(pivot, v[size_t(i)]));
      do --j;
      while (gt(v[size_t(j)], pivot));
      if (j < i) break;
      swap(i, j);
    }
    swap(lo, j);
    if (j <= k) lo = i;
    if (j >= k) hi = j - 1;
  }
}

template <typename T>
void run_typed(const SelectParams& p, const KernelCall& call, void* scratch) {
  const T* x = call.inputs[p.input].data_as<const T>();
  T* values = call.outputs[0].data_as<T>();
  int64_t* indices = p.indices ? call.outputs[1].data_as<int64_t>() : nullptr;
  int64_t* order = static_cast<int64_t*>(scratch);
  using Stored = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;  // no vector<bool>
  std::vector<Stored> vals(size_t(p.n));
  std::vector<int64_t> ix(size_t(p.n));
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
      bool select = false;  // by quickselect (else: the stable order's position)
      if (p.kind == Kind::kMode) {
        pos = mode_position(p.n, order, [&](int64_t a, int64_t b) {
          return at(a) == at(b) || (is_nan(at(a)) && is_nan(at(b)));
        });
      } else if (p.kind == Kind::kKth) {
        pos = p.k - 1;
        select = true;
      } else if (p.kind == Kind::kNanMedian) {
        const int64_t numbers = p.n - nans;
        pos = numbers == 0 ? 0 : (numbers - 1) / 2;
      } else {
        pos = nans > 0 ? p.n - nans : (p.n - 1) / 2;  // a NaN slice: its first NaN
      }
      int64_t index = order[pos];
      if (select) {
        for (int64_t j = 0; j < p.n; ++j) {
          vals[size_t(j)] = at(j);
          ix[size_t(j)] = j;
        }
        quick_select(vals, ix, pos);
        index = ix[size_t(pos)];
      }
      values[o * p.inner + i] = at(index);
      if (indices) indices[o * p.inner + i] = index;
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
      {"aten::mode", kCpu, kAny, kRef, &make_kernel<SelectRef<select_prepare_dim<Kind::kMode>>>},
  });
}

}  // namespace tir::kernels
