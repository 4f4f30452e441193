// Scattering ops (any dtype): index_copy(_), index_add(_) and index_put(_) (int64 indices),
// slice_scatter, select_scatter and masked_scatter. Every index value is range-checked before the
// first write, so an out-of-range index is an error (naming op and node) that leaves the output,
// and an aliased self, as it was.
#include "kernels/shapes/indexing/scatter.h"

#include <algorithm>
#include <cstring>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {
namespace {

Status check_indices(const KernelCall& call, const Tensor& index, int64_t dim, int64_t size) {
  const auto* v = index.data_as<const int64_t>();
  for (int64_t i = 0; i < index.numel(); ++i) {
    if (v[i] < 0 || v[i] >= size) {  // torch's index_copy takes no negative indices
      return op_error(call, StatusCode::kInvalidArgument, "index ", v[i],
                      " is out of bounds for dim ", dim, " with size ", size);
    }
  }
  return ok_status();
}

/// The functional forms start from a copy of self.
void copy_self(const KernelCall& call, int self_input, bool in_place) {
  const Tensor& self = call.inputs[self_input];
  if (!in_place) std::memcpy(call.outputs[0].data, self.data, self.nbytes());
}

// index_fill: each indexed row (negative indices count from the end) set to the value.
Status run_index_fill(const IndexCopyParams& p, const KernelCall& call) {
  const Tensor& index = call.inputs[p.index_input];
  const auto* idx = index.data_as<const int64_t>();
  for (int64_t j = 0; j < p.n_index; ++j)
    if (idx[j] < -p.dim_size || idx[j] >= p.dim_size)
      return op_error(call, StatusCode::kInvalidArgument, "index ", idx[j],
                      " is out of bounds for dim ", p.dim, " with size ", p.dim_size);
  copy_self(call, p.self_input, p.in_place);
  const ScalarValue value =
      p.value_input >= 0 ? read_scalar_value(call.inputs[p.value_input]) : p.value;
  visit_dtype(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* y = call.outputs[0].data_as<T>();
    const T v = value.as<T>();
    for (int64_t o = 0; o < p.outer; ++o)
      for (int64_t j = 0; j < p.n_index; ++j) {
        const int64_t row = idx[j] < 0 ? idx[j] + p.dim_size : idx[j];
        std::fill_n(y + (o * p.dim_size + row) * p.inner, p.inner, v);
      }
  });
  return ok_status();
}

Status run_index_copy(const IndexCopyParams& p, const KernelCall& call) {
  if (p.fill) return run_index_fill(p, call);
  const Tensor& index = call.inputs[p.index_input];
  TIR_RETURN_IF_ERROR(check_indices(call, index, p.dim, p.dim_size));
  copy_self(call, p.self_input, p.in_place);
  const auto* idx = index.data_as<const int64_t>();
  const auto* src = call.inputs[p.source_input].data_as<const uint8_t>();
  auto* out = call.outputs[0].data_as<uint8_t>();
  if (p.add) {
    visit_dtype(p.dtype, [&](auto tag) {
      using T = decltype(tag);
      const T* s = reinterpret_cast<const T*>(src);
      T* y = reinterpret_cast<T*>(out);
      const T alpha = p.alpha.as<T>();
      for (int64_t o = 0; o < p.outer; ++o)
        for (int64_t j = 0; j < p.n_index; ++j)
          for (int64_t i = 0; i < p.inner; ++i) {
            T& to = y[(o * p.dim_size + idx[j]) * p.inner + i];
            const T v = s[(o * p.n_index + j) * p.inner + i];
            if constexpr (std::is_same_v<T, bool>) {
              to = to || (alpha && v);
            } else {
              to = static_cast<T>(to + alpha * v);
            }
          }
    });
    return ok_status();
  }
  const size_t row = static_cast<size_t>(p.inner) * p.elem_size;
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t j = 0; j < p.n_index; ++j) {
      std::memcpy(out + (o * p.dim_size + idx[j]) * row, src + (o * p.n_index + j) * row, row);
    }
  }
  return ok_status();
}

/// Calls put(out_element, values_element) for every indexed position, in order.
template <typename Put>
void for_each_put(const IndexPutParams& p, const KernelCall& call, const void* scratch, Put&& put) {
  const IndexParams& ip = p.index;
  int64_t total = 1;
  for (int d = 0; d < ip.rank; ++d) total *= ip.sizes[d];
  const size_t ns = ip.sources.size();
  std::array<const void*, kMaxRank> base{};
  for (size_t i = 0; i < ns; ++i) {
    const IndexSource& s = ip.sources[i];
    base[i] = s.input >= 0 ? call.inputs[s.input].data
              : s.mask_input >= 0
                  ? static_cast<const int64_t*>(scratch) + s.mask_dim * ip.mask_capacity
                  : static_cast<const void*>(s.owned.data());
  }
  const auto* values = call.inputs[p.values_input].data_as<const uint8_t>();
  auto* out = call.outputs[0].data_as<uint8_t>();
  std::array<int64_t, kMaxRank> idx{}, src_off{};
  int64_t self_off = 0, val_off = 0;
  for (int64_t o = 0; o < total; ++o) {
    int64_t off = self_off;
    for (size_t i = 0; i < ns; ++i) {
      const IndexSource& s = ip.sources[i];
      const int64_t n = ip.self_sizes[s.self_dim];
      const int64_t v = index_load(base[i], s.input >= 0 ? s.elem_size : 8, src_off[i]);
      off += (v < 0 ? v + n : v) * ip.self_dim_stride[s.self_dim];
    }
    put(out + off * ip.elem_size, values + val_off * ip.elem_size);
    for (int d = ip.rank - 1; d >= 0; --d) {
      self_off += ip.self_strides[d];
      val_off += p.values_strides[d];
      for (size_t i = 0; i < ns; ++i) src_off[i] += ip.sources[i].out_strides[d];
      if (++idx[d] < ip.sizes[d]) break;
      self_off -= ip.self_strides[d] * ip.sizes[d];
      val_off -= p.values_strides[d] * ip.sizes[d];
      for (size_t i = 0; i < ns; ++i) src_off[i] -= ip.sources[i].out_strides[d] * ip.sizes[d];
      idx[d] = 0;
    }
  }
}

/// A run-time mask: its coordinates into scratch and, when nothing bound its count, `p` with
/// the count found in the walk (checked against values' rows there).
Result<IndexPutParams> with_mask_count(const IndexPutParams& p, const KernelCall& call,
                                       void* scratch) {
  TIR_ASSIGN_OR_RETURN(const int64_t found, index_mask_coordinates(p.index, call, scratch));
  if (!p.index.mask_dynamic) return p;
  IndexPutParams q = p;
  const int w = q.index.mask_walk_dim;
  q.index.sizes[w] = found;
  const Tensor& values = call.inputs[p.values_input];
  const int k = w - (q.index.rank - values.rank);
  if (k >= 0 && values.sizes[k] != 1 && values.sizes[k] != found)
    return op_error(call, StatusCode::kInvalidArgument, "values ", shape_str(values.shape()),
                    " has ", values.sizes[k], " rows at dim ", k, ", the mask ", found,
                    " true elements");
  return q;
}

Status run_index_put_walk(const IndexPutParams& p, const KernelCall& call, void* scratch);

Status run_index_put(const IndexPutParams& p, const KernelCall& call, void* scratch) {
  if (p.index.mask_count < 0) return run_index_put_walk(p, call, scratch);
  TIR_ASSIGN_OR_RETURN(const IndexPutParams q, with_mask_count(p, call, scratch));
  return run_index_put_walk(q, call, scratch);
}

Status run_index_put_walk(const IndexPutParams& p, const KernelCall& call, void* scratch) {
  const IndexParams& ip = p.index;
  for (const IndexSource& s : ip.sources) {  // bool-mask sources are in range by construction
    if (s.input < 0) continue;
    const Tensor& t = call.inputs[s.input];
    const int64_t n = ip.self_sizes[s.self_dim];
    for (int64_t e = 0; e < t.numel(); ++e) {
      const int64_t v = index_load(t.data, s.elem_size, e);
      if (v < -n || v >= n) {
        return op_error(call, StatusCode::kInvalidArgument, "index ", v,
                        " is out of bounds for dim ", s.self_dim, " with size ", n);
      }
    }
  }
  copy_self(call, ip.self_input, p.in_place);
  for (int d = 0; d < ip.rank; ++d) {
    if (ip.sizes[d] == 0) return ok_status();  // nothing indexed
  }
  if (!p.accumulate) {
    const size_t es = ip.elem_size;
    for_each_put(p, call, scratch, [es](uint8_t* o, const uint8_t* v) { std::memcpy(o, v, es); });
    return ok_status();
  }
  visit_dtype(p.dtype, [&](auto zero) {
    using T = decltype(zero);
    for_each_put(p, call, scratch, [](uint8_t* o, const uint8_t* v) {
      T a, b;
      std::memcpy(&a, o, sizeof(T));
      std::memcpy(&b, v, sizeof(T));
      a = static_cast<T>(a + b);
      std::memcpy(o, &a, sizeof(T));
    });
  });
  return ok_status();
}

template <typename U>
void scatter_region(const ScatterRegionParams& p, const KernelCall& call) {
  const Tensor& self = call.inputs[p.self];
  U* y = call.outputs[0].data_as<U>();
  std::memcpy(y, self.data, self.nbytes());
  const U* src = call.inputs[p.src].data_as<const U>();
  const int64_t total = prod(std::span<const int64_t>(p.src_sizes.data(), p.rank), 0, p.rank);
  std::array<int64_t, kMaxRank> idx{};
  int64_t off = p.dst_offset;
  for (int64_t i = 0; i < total; ++i) {
    y[off] = src[i];
    for (int d = p.rank - 1; d >= 0; --d) {
      off += p.dst_strides[d];
      if (++idx[d] < p.src_sizes[d]) break;
      off -= p.dst_strides[d] * p.src_sizes[d];
      idx[d] = 0;
    }
  }
}

void ref_scatter_region(const ScatterRegionParams& p, const KernelCall& call, void*) {
  switch (p.elem_size) {
    case 1:
      return scatter_region<uint8_t>(p, call);
    case 2:
      return scatter_region<uint16_t>(p, call);
    case 4:
      return scatter_region<uint32_t>(p, call);
    case 8:
      return scatter_region<uint64_t>(p, call);
    case 16:
      return scatter_region<Bits128>(p, call);
    default:
      return;
  }
}

template <typename U>
Status masked_scatter(const MaskedScatterParams& p, const KernelCall& call) {
  const U* self = call.inputs[p.self].data_as<const U>();
  const bool* mask = call.inputs[p.mask].data_as<const bool>();
  const U* src = call.inputs[p.source].data_as<const U>();
  const int64_t available = call.inputs[p.source].numel();
  int64_t needed = 0;
  nary_for_each(p.plan, [&](int64_t, const std::array<int64_t, 3>& in) { needed += mask[in[1]]; });
  if (needed > available)
    return op_error(call, StatusCode::kInvalidArgument, "mask selects ", needed,
                    " elements, source has ", available);
  U* y = call.outputs[0].data_as<U>();
  int64_t k = 0;
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    y[i] = mask[in[1]] ? src[k++] : self[in[0]];
  });
  return ok_status();
}

Status ref_masked_scatter(const MaskedScatterParams& p, const KernelCall& call) {
  switch (p.elem_size) {
    case 1:
      return masked_scatter<uint8_t>(p, call);
    case 2:
      return masked_scatter<uint16_t>(p, call);
    case 4:
      return masked_scatter<uint32_t>(p, call);
    case 8:
      return masked_scatter<uint64_t>(p, call);
    case 16:
      return masked_scatter<Bits128>(p, call);
    default:
      return op_error(call, StatusCode::kUnsupported, "element size ", p.elem_size);
  }
}

using IndexCopyRef = CheckedKernel<IndexCopyParams, scatter_prepare_index_copy, run_index_copy>;
using IndexCopyInPlaceRef =
    CheckedKernel<IndexCopyParams, scatter_prepare_index_copy_, run_index_copy>;
using IndexAddRef = CheckedKernel<IndexCopyParams, scatter_prepare_index_add, run_index_copy>;
using IndexFillRef = CheckedKernel<IndexCopyParams, scatter_prepare_index_fill, run_index_copy>;
using IndexFillInPlaceRef =
    CheckedKernel<IndexCopyParams, scatter_prepare_index_fill_, run_index_copy>;
using IndexAddInPlaceRef =
    CheckedKernel<IndexCopyParams, scatter_prepare_index_add_, run_index_copy>;
/// index_put(_): a run-time mask's coordinates go to the scratch prepare asked for.
using IndexPutRef = CheckedScratchKernel<IndexPutParams, scatter_prepare_index_put, run_index_put>;
using IndexPutInPlaceRef =
    CheckedScratchKernel<IndexPutParams, scatter_prepare_index_put_, run_index_put>;
using SliceScatterRef =
    FnKernel<ScatterRegionParams, scatter_prepare_slice_scatter, ref_scatter_region>;
using SelectScatterRef =
    FnKernel<ScatterRegionParams, scatter_prepare_select_scatter, ref_scatter_region>;
using MaskedScatterRef =
    CheckedKernel<MaskedScatterParams, scatter_prepare_masked_scatter, ref_masked_scatter>;

}  // namespace

void register_scatter_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::index_copy", kCpu, kAny, kRef, &make_kernel<IndexCopyRef>},
      {"aten::index_copy_", kCpu, kAny, kRef, &make_kernel<IndexCopyInPlaceRef>},
      {"aten::index_add", kCpu, kAny, kRef, &make_kernel<IndexAddRef>},
      {"aten::index_add_", kCpu, kAny, kRef, &make_kernel<IndexAddInPlaceRef>},
      {"aten::index_fill.int_Scalar", kCpu, kAny, kRef, &make_kernel<IndexFillRef>},
      {"aten::index_fill.int_Tensor", kCpu, kAny, kRef, &make_kernel<IndexFillRef>},
      {"aten::index_fill_.int_Scalar", kCpu, kAny, kRef, &make_kernel<IndexFillInPlaceRef>},
      {"aten::index_fill_.int_Tensor", kCpu, kAny, kRef, &make_kernel<IndexFillInPlaceRef>},
      {"aten::index_put", kCpu, kAny, kRef, &make_kernel<IndexPutRef>},
      {"aten::index_put_", kCpu, kAny, kRef, &make_kernel<IndexPutInPlaceRef>},
      {"aten::slice_scatter", kCpu, kAny, kRef, &make_kernel<SliceScatterRef>},
      {"aten::select_scatter", kCpu, kAny, kRef, &make_kernel<SelectScatterRef>},
      {"aten::masked_scatter", kCpu, kAny, kRef, &make_kernel<MaskedScatterRef>},
  });
}
}  // namespace tir::kernels
