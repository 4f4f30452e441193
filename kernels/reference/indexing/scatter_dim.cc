// Reference dim-wise scatters (kernels/shapes/indexing/scatter_dim.h). Scratch holds one
// int64 per output element: how many values reached it (mean) or whether one has
// (include_self=False starts from the first scattered value).
#include "kernels/shapes/indexing/scatter_dim.h"

#include <cstring>
#include <type_traits>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

// Calls f(index_offset, src_offset, out_offset_without_dim) over index's positions.
template <typename F>
void for_each_index(const ScatterDimParams& p, F&& f) {
  int64_t total = 1;
  for (int d = 0; d < p.rank; ++d) total *= p.index_sizes[d];
  std::array<int64_t, kMaxRank> idx{};
  int64_t src = 0, out = 0;
  for (int64_t i = 0; i < total; ++i) {
    f(i, src, out);
    for (int d = p.rank - 1; d >= 0; --d) {
      src += p.src_strides[d];
      if (d != p.dim) out += p.out_strides[d];
      if (++idx[d] < p.index_sizes[d]) break;
      src -= p.src_strides[d] * p.index_sizes[d];
      if (d != p.dim) out -= p.out_strides[d] * p.index_sizes[d];
      idx[d] = 0;
    }
  }
}

template <typename T>
T combine(ScatterReduce r, T a, T b) {
  switch (r) {
    case ScatterReduce::kSum:
    case ScatterReduce::kMean:
      if constexpr (std::is_same_v<T, bool>) {
        return a || b;
      } else {
        return static_cast<T>(a + b);
      }
    case ScatterReduce::kProd:
      if constexpr (std::is_same_v<T, bool>) {
        return a && b;
      } else {
        return static_cast<T>(a * b);
      }
    case ScatterReduce::kAmax:
      if constexpr (std::is_floating_point_v<T>) {
        if (a != a || b != b) return a != a ? a : b;
      }
      return a > b ? a : b;
    case ScatterReduce::kAmin:
      if constexpr (std::is_floating_point_v<T>) {
        if (a != a || b != b) return a != a ? a : b;
      }
      return a < b ? a : b;
    case ScatterReduce::kNone:
      return b;
  }
  return b;
}

template <typename T>
Status run_typed(const ScatterDimParams& p, const KernelCall& call, int64_t* count) {
  const Tensor& index_t = call.inputs[p.index];
  auto index = [&](int64_t i) -> int64_t {
    return p.index_int32 ? index_t.data_as<const int32_t>()[i]
                         : index_t.data_as<const int64_t>()[i];
  };
  const T* src = p.src >= 0 ? call.inputs[p.src].data_as<const T>() : nullptr;
  const T value = p.value.as<T>();
  T* y = call.outputs[0].data_as<T>();
  const int64_t n =
      p.rank == 1 && call.inputs[p.self].rank == 0 ? 1 : call.inputs[p.self].sizes[p.dim];
  bool ok = true;
  for_each_index(p, [&](int64_t i, int64_t, int64_t) { ok = ok && index(i) >= 0 && index(i) < n; });
  if (!ok)
    return op_error(call, StatusCode::kInvalidArgument, "an index is out of range for size ", n);
  std::memcpy(y, call.inputs[p.self].data, call.inputs[p.self].nbytes());
  for (int64_t o = 0; o < p.out_numel; ++o) count[o] = p.include_self ? 1 : 0;
  const int64_t dim_stride = p.out_strides[p.dim];
  for_each_index(p, [&](int64_t i, int64_t s, int64_t out) {
    const int64_t at = out + index(i) * dim_stride;
    const T v = src ? src[s] : value;
    if (p.reduce == ScatterReduce::kNone) {
      y[at] = v;
      return;
    }
    y[at] = count[at] == 0 ? v : combine(p.reduce, y[at], v);
    ++count[at];
  });
  if (p.reduce == ScatterReduce::kMean) {
    for (int64_t o = 0; o < p.out_numel; ++o) {
      if (count[o] <= 1) continue;
      if constexpr (std::is_floating_point_v<T>) {
        y[o] = static_cast<T>(y[o] / static_cast<T>(count[o]));
      } else if constexpr (!std::is_same_v<T, bool>) {
        const int64_t a = y[o], b = count[o];
        int64_t q = a / b;
        if ((a % b != 0) && ((a < 0) != (b < 0))) --q;  // floor, as ATen's integer mean
        y[o] = static_cast<T>(q);
      }
    }
  }
  return ok_status();
}

Status ref_scatter_dim(const ScatterDimParams& p, const KernelCall& call, void* scratch) {
  Status s = ok_status();
  visit_dtype(p.dtype, [&](auto tag) {
    s = run_typed<decltype(tag)>(p, call, static_cast<int64_t*>(scratch));
  });
  return s;
}

template <Result<ScatterDimParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
using ScatterDimKernel = CheckedScratchKernel<ScatterDimParams, Prepare, ref_scatter_dim>;

}  // namespace

void register_scatter_dim_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::scatter.src", kCpu, kAny, kRef,
       &make_kernel<ScatterDimKernel<scatter_dim_prepare_scatter>>},
      {"aten::scatter.value", kCpu, kAny, kRef,
       &make_kernel<ScatterDimKernel<scatter_dim_prepare_scatter>>},
      {"aten::scatter_add", kCpu, kAny, kRef,
       &make_kernel<ScatterDimKernel<scatter_dim_prepare_add>>},
      {"aten::scatter_reduce.two", kCpu, kAny, kRef,
       &make_kernel<ScatterDimKernel<scatter_dim_prepare_reduce>>},
  });
}
}  // namespace tir::kernels
