// Gathering ops (any dtype; int64/int32 indices): index.Tensor, index_select, gather. Index
// values are only known at run time, so `run` range-checks them and
// returns kInvalidArgument (naming op and node) instead of reading out of bounds.
#include "kernels/shapes/indexing/index.h"

#include <cstring>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

Status bad_index(const KernelCall& call, int64_t v, int64_t dim, int64_t size) {
  return op_error(call, StatusCode::kInvalidArgument, "index ", v, " is out of bounds for dim ",
                  dim, " with size ", size);
}

Status run_index(const IndexParams& p, const KernelCall& call, void* scratch) {
  int64_t total = 1;
  for (int d = 0; d < p.rank; ++d) total *= p.sizes[d];
  TIR_RETURN_IF_ERROR(index_mask_coordinates(p, call, scratch).status());
  if (total == 0 || p.inner == 0) return ok_status();
  const auto* self = call.inputs[p.self_input].data_as<const uint8_t>();
  auto* out = call.outputs[0].data_as<uint8_t>();
  const size_t row = static_cast<size_t>(p.inner) * p.elem_size;
  const size_t ns = p.sources.size();
  std::array<const void*, kMaxRank> base{};
  for (size_t i = 0; i < ns; ++i) {
    const IndexSource& s = p.sources[i];
    base[i] = s.input >= 0 ? call.inputs[s.input].data
              : s.mask_input >= 0
                  ? static_cast<const int64_t*>(scratch) + s.mask_dim * p.mask_capacity
                  : static_cast<const void*>(s.owned.data());
  }
  std::array<int64_t, kMaxRank> idx{}, src_off{};
  int64_t self_off = 0;
  for (int64_t o = 0; o < total; ++o) {
    int64_t off = self_off;
    for (size_t i = 0; i < ns; ++i) {
      const IndexSource& s = p.sources[i];
      int64_t v = index_load(base[i], s.input >= 0 ? s.elem_size : 8, src_off[i]);
      const int64_t n = p.self_sizes[s.self_dim];
      if (v < -n || v >= n) return bad_index(call, v, s.self_dim, n);
      if (v < 0) v += n;
      off += v * p.self_dim_stride[s.self_dim];
    }
    std::memcpy(out + o * row, self + off * p.elem_size, row);
    for (int d = p.rank - 1; d >= 0; --d) {
      self_off += p.self_strides[d];
      for (size_t i = 0; i < ns; ++i) src_off[i] += p.sources[i].out_strides[d];
      if (++idx[d] < p.sizes[d]) break;
      self_off -= p.self_strides[d] * p.sizes[d];
      for (size_t i = 0; i < ns; ++i) src_off[i] -= p.sources[i].out_strides[d] * p.sizes[d];
      idx[d] = 0;
    }
  }
  return ok_status();
}

Status run_index_select(const GatherParams& p, const KernelCall& call) {
  const auto* self = call.inputs[p.self_input].data_as<const uint8_t>();
  const void* index = call.inputs[p.index_input].data;
  auto* out = call.outputs[0].data_as<uint8_t>();
  const size_t row = static_cast<size_t>(p.inner) * p.elem_size;
  for (int64_t j = 0; j < p.n_index; ++j) {  // validate once, then copy
    const int64_t v = index_load(index, p.index_elem_size, j);
    if (v < 0 || v >= p.dim_size) return bad_index(call, v, 0, p.dim_size);
  }
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t j = 0; j < p.n_index; ++j) {
      const int64_t v = index_load(index, p.index_elem_size, j);
      std::memcpy(out + (o * p.n_index + j) * row, self + (o * p.dim_size + v) * row, row);
    }
  }
  return ok_status();
}

Status run_gather(const GatherParams& p, const KernelCall& call) {
  if (p.n_index == 0) return ok_status();
  const auto* self = call.inputs[p.self_input].data_as<const uint8_t>();
  const Tensor& index = call.inputs[p.index_input];
  const bool int32 = p.index_elem_size == 4;
  auto* out = call.outputs[0].data_as<uint8_t>();
  std::array<int64_t, kMaxRank> idx{};
  int64_t self_off = 0;  // offset from every dim but `dim`
  for (int64_t o = 0; o < p.n_index; ++o) {
    const int64_t v = int32 ? index.data_as<const int32_t>()[o] : index.data_as<const int64_t>()[o];
    if (v < -p.dim_size || v >= p.dim_size) return bad_index(call, v, p.dim, p.dim_size);
    const int64_t src = self_off + (v < 0 ? v + p.dim_size : v) * p.self_strides[p.dim];
    std::memcpy(out + o * p.elem_size, self + src * p.elem_size, p.elem_size);
    for (int d = p.rank - 1; d >= 0; --d) {
      const int64_t s = d == p.dim ? 0 : p.self_strides[d];
      self_off += s;
      if (++idx[d] < p.index_sizes[d]) break;
      self_off -= s * p.index_sizes[d];
      idx[d] = 0;
    }
  }
  return ok_status();
}

/// index.Tensor: a run-time mask's coordinates go to the scratch prepare asked for.
using IndexRef = CheckedScratchKernel<IndexParams, index_prepare_index, run_index>;
using IndexSelectRef = CheckedKernel<GatherParams, index_prepare_index_select, run_index_select>;
using GatherRef = CheckedKernel<GatherParams, index_prepare_gather, run_gather>;

}  // namespace

void register_index_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::index.Tensor", kCpu, kAny, kRef, &make_kernel<IndexRef>},
      {"aten::index_select", kCpu, kAny, kRef, &make_kernel<IndexSelectRef>},
      {"aten::gather", kCpu, kAny, kRef, &make_kernel<GatherRef>},
  });
}
}  // namespace tir::kernels
