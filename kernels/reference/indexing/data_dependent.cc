// Reference nonzero, masked_select and repeat_interleave with a repeats tensor
// (kernels/shapes/indexing/data_dependent.h): the output holds as many rows as the runtime counted;
// a different count at run time is an error.
#include "kernels/shapes/indexing/data_dependent.h"

#include <algorithm>
#include <cstring>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

Status count_error(const KernelCall& call, int64_t found, int64_t bound) {
  return op_error(call, StatusCode::kInternal, "found ", found, " elements, the plan holds ",
                  bound);
}

Status run_nonzero(const DataDependentParams& p, const KernelCall& call) {
  const Tensor& x = call.inputs[0];
  int64_t* out = call.outputs[0].data_as<int64_t>();
  int64_t n = 0;
  std::array<int64_t, kMaxRank> idx{};
  const int rank = x.rank;
  bool overflow = false;
  visit_dtype(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* v = x.data_as<const T>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      if (v[i] != T{}) {
        if (n >= p.count) {
          overflow = true;
          return;
        }
        for (int d = 0; d < rank; ++d) out[n * rank + d] = idx[d];
        ++n;
      }
      for (int d = rank - 1; d >= 0 && ++idx[d] == x.sizes[d]; --d) idx[d] = 0;
    }
  });
  if (overflow || n != p.count) return count_error(call, overflow ? n + 1 : n, p.count);
  return ok_status();
}

Status run_masked_select(const DataDependentParams& p, const KernelCall& call) {
  int64_t n = 0;
  bool overflow = false;
  visit_dtype(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* out = call.outputs[0].data_as<T>();
    nary_for_each(p.plan, [&](int64_t, const std::array<int64_t, 3>& in) {
      if (overflow || !operand_load<bool>(p.operands[1], call, in[1])) return;
      if (n >= p.count) {
        overflow = true;
        return;
      }
      out[n++] = operand_load<T>(p.operands[0], call, in[0]);
    });
  });
  if (overflow || n != p.count) return count_error(call, overflow ? n + 1 : n, p.count);
  return ok_status();
}

/// Reads repeats[i] (one value broadcasts to every i), checked against the bound count.
Status run_repeat(const RepeatParams& p, const KernelCall& call) {
  const Tensor& r = call.inputs[p.repeats_input];
  auto rep = [&](int64_t i) {
    const int64_t k = r.numel() == 1 ? 0 : i;
    return r.dtype == DType::kInt32 ? int64_t(r.data_as<const int32_t>()[k])
                                    : r.data_as<const int64_t>()[k];
  };
  int64_t total = 0;
  for (int64_t i = 0; i < p.size; ++i) {
    if (rep(i) < 0) return op_error(call, StatusCode::kInvalidArgument, "repeats[", i, "] < 0");
    total += rep(i);
  }
  if (total != p.count) return count_error(call, total, p.count);
  if (p.self_input < 0) {  // .Tensor: the indices themselves
    int64_t* out = call.outputs[0].data_as<int64_t>();
    for (int64_t i = 0, n = 0; i < p.size; ++i)
      for (int64_t k = rep(i); k > 0; --k) out[n++] = i;
    return ok_status();
  }
  const auto* in = call.inputs[p.self_input].data_as<const uint8_t>();
  auto* out = call.outputs[0].data_as<uint8_t>();
  const size_t row = size_t(p.inner) * p.elem_size;
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t i = 0; i < p.size; ++i)
      for (int64_t k = rep(i); k > 0; --k, out += row)
        std::memcpy(out, in + (o * p.size + i) * row, row);
  return ok_status();
}

/// Sorts a copy of self in scratch, then writes the distinct values, each element's index
/// among them (binary search) and the counts.
void run_unique(const UniqueParams& p, const KernelCall& call, void* scratch) {
  visit_dtype(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = call.inputs[0].data_as<const T>();
    T* sorted = static_cast<T*>(scratch);
    std::copy(x, x + p.numel, sorted);
    std::sort(sorted, sorted + p.numel);
    T* end = std::unique(sorted, sorted + p.numel);
    T* values = call.outputs[0].data_as<T>();
    std::copy(sorted, std::min(end, sorted + p.count), values);
    T* vend = values + std::min<int64_t>(end - sorted, p.count);
    int64_t* counts = call.outputs[2].data_as<int64_t>();
    if (p.counts) std::fill(counts, counts + p.count, 0);
    for (int64_t i = 0; i < p.numel; ++i) {
      const int64_t k = std::lower_bound(values, vend, x[i]) - values;
      if (p.inverse) call.outputs[1].data_as<int64_t>()[i] = k;
      if (p.counts && k < p.count) ++counts[k];
    }
  });
}

/// _unique2: the count found must be the one bound.
Status run_unique_checked(const UniqueParams& p, const KernelCall& call, void* scratch) {
  const int64_t found = count_unique(call.inputs[0]);
  if (found != p.count) return count_error(call, found, p.count);
  run_unique(p, call, scratch);
  return ok_status();
}
using UniqueRef = CheckedScratchKernel<UniqueParams, unique_prepare, run_unique_checked>;

using NonzeroRef = CheckedKernel<DataDependentParams, nonzero_prepare, run_nonzero>;
using MaskedSelectRef =
    CheckedKernel<DataDependentParams, masked_select_prepare, run_masked_select>;
using RepeatSelfRef = CheckedKernel<RepeatParams, repeat_prepare_self_tensor, run_repeat>;
using RepeatIndicesRef = CheckedKernel<RepeatParams, repeat_prepare_tensor, run_repeat>;

}  // namespace

void register_data_dependent_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::nonzero", kCpu, kAny, kRef, &make_kernel<NonzeroRef>},
      {"aten::_unique2", kCpu, kAny, kRef, &make_kernel<UniqueRef>},
      {"aten::masked_select", kCpu, kAny, kRef, &make_kernel<MaskedSelectRef>},
      {"aten::repeat_interleave.self_Tensor", kCpu, kAny, kRef, &make_kernel<RepeatSelfRef>},
      {"aten::repeat_interleave.Tensor", kCpu, DType::kInt64, kRef, &make_kernel<RepeatIndicesRef>},
  });
}

}  // namespace tir::kernels
