// Data-movement ops (any dtype): every output is a set of strided regions of the inputs,
// computed by the shared copy_prepare_* functions. The innermost run is a memcpy when it
// is contiguous on both sides. No optimized variant: these are memory-bound.
#include "kernels/shapes/movement/copy.h"

#include <algorithm>
#include <cstring>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"
#include "kernels/shapes/movement/tensor_split.h"

namespace tir::kernels {
namespace {

template <typename T>
void copy_region(const CopyRegion& r, const T* in, T* out) {
  in += r.in_offset;
  out += r.out_offset;
  if (r.rank == 0) {
    *out = *in;
    return;
  }
  const int last = r.rank - 1;
  const int64_t n = r.sizes[last], si = r.in_strides[last], so = r.out_strides[last];
  const bool contiguous = si == 1 && so == 1;
  int64_t outer = 1;
  for (int d = 0; d < last; ++d) outer *= r.sizes[d];
  std::array<int64_t, kMaxCopyRank> idx{};
  int64_t io = 0, oo = 0;
  for (int64_t o = 0; o < outer; ++o) {
    if (contiguous) {
      std::memcpy(out + oo, in + io, static_cast<size_t>(n) * sizeof(T));
    } else {
      for (int64_t j = 0; j < n; ++j) out[oo + j * so] = in[io + j * si];
    }
    for (int d = last - 1; d >= 0; --d) {
      io += r.in_strides[d];
      oo += r.out_strides[d];
      if (++idx[d] < r.sizes[d]) break;
      io -= r.in_strides[d] * r.sizes[d];
      oo -= r.out_strides[d] * r.sizes[d];
      idx[d] = 0;
    }
  }
}

template <typename T>
void copy_all(const CopyParams& p, const KernelCall& call) {
  if (!p.fill.empty()) {
    T v;
    std::memcpy(&v, p.fill.data(), sizeof(T));
    T* out = call.outputs[0].data_as<T>();
    std::fill(out, out + call.outputs[0].numel(), v);
  }
  for (const CopyRegion& r : p.regions) {
    copy_region(r, call.inputs[r.input].data_as<const T>(), call.outputs[r.output].data_as<T>());
  }
}

void ref_copy(const CopyParams& p, const KernelCall& call, void*) {
  switch (p.elem_size) {
    case 1:
      return copy_all<uint8_t>(p, call);
    case 2:
      return copy_all<uint16_t>(p, call);
    case 4:
      return copy_all<uint32_t>(p, call);
    case 8:
      return copy_all<uint64_t>(p, call);
    case 16:
      return copy_all<Bits128>(p, call);
    default:
      return;
  }
}

template <Result<CopyParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
using CopyKernel = FnKernel<CopyParams, Prepare, ref_copy>;

}  // namespace

void register_copy_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::slice.Tensor", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_slice>>},
      {"aten::select.int", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_select>>},
      {"aten::narrow", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_narrow>>},
      {"aten::split.Tensor", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_split>>},
      {"aten::split_with_sizes", kCpu, kAny, kRef,
       &make_kernel<CopyKernel<copy_prepare_split_with_sizes>>},
      {"aten::chunk", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_chunk>>},
      {"aten::unsafe_split.Tensor", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_split>>},
      {"aten::unsafe_split_with_sizes", kCpu, kAny, kRef,
       &make_kernel<CopyKernel<copy_prepare_split_with_sizes>>},
      {"aten::unsafe_chunk", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_chunk>>},
      {"aten::tensor_split.indices", kCpu, kAny, kRef,
       &make_kernel<CopyKernel<copy_prepare_tensor_split_indices>>},
      {"aten::tensor_split.sections", kCpu, kAny, kRef,
       &make_kernel<CopyKernel<copy_prepare_tensor_split_sections>>},
      {"aten::tensor_split.tensor_indices_or_sections", kCpu, kAny, kRef,
       &make_kernel<CopyKernel<copy_prepare_tensor_split_tensor>>},
      {"aten::hsplit.int", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_hsplit>>},
      {"aten::hsplit.array", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_hsplit>>},
      {"aten::vsplit.int", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_vsplit>>},
      {"aten::vsplit.array", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_vsplit>>},
      {"aten::dsplit.int", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_dsplit>>},
      {"aten::dsplit.array", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_dsplit>>},
      {"aten::unbind.int", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_unbind>>},
      {"aten::cat", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_cat>>},
      {"aten::stack", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_stack>>},
      {"aten::pad_sequence", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_pad_sequence>>},
      {"aten::meshgrid", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_meshgrid>>},
      {"aten::rot90", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_rot90>>},
      {"aten::channel_shuffle", kCpu, kAny, kRef,
       &make_kernel<CopyKernel<copy_prepare_channel_shuffle>>},
      {"aten::native_channel_shuffle", kCpu, kAny, kRef,
       &make_kernel<CopyKernel<copy_prepare_channel_shuffle>>},
      {"aten::meshgrid.indexing", kCpu, kAny, kRef,
       &make_kernel<CopyKernel<copy_prepare_meshgrid_indexing>>},
      {"aten::broadcast_tensors", kCpu, kAny, kRef,
       &make_kernel<CopyKernel<copy_prepare_broadcast_tensors>>},
      {"aten::expand", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_expand>>},
      {"aten::expand_as", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_expand_as>>},
      {"aten::repeat", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_repeat>>},
      {"aten::repeat_interleave.self_int", kCpu, kAny, kRef,
       &make_kernel<CopyKernel<copy_prepare_repeat_interleave>>},
      {"aten::transpose.int", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_transpose>>},
      {"aten::swapaxes", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_transpose>>},
      {"aten::squeeze", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_squeeze>>},
      {"aten::squeeze.dims", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_squeeze_dims>>},
      {"aten::flip", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_flip>>},
      {"aten::roll", kCpu, kAny, kRef, &make_kernel<CopyKernel<copy_prepare_roll>>},
  });
}
}  // namespace tir::kernels
