// Shape ops (any dtype): views that alias their input, and the copies permute, t, clone.
// These have no optimized variant; the copies are memory-bound gathers.
#include <cstring>

#include "kernels/kernel_util.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

template <typename T>
void gather(const ViewParams& p, const T* in, T* out) {
  for_each_strided(p.rank, p.out_sizes.data(), p.in_strides.data(),
                   [&](int64_t o, int64_t off) { out[o] = in[off]; });
}

}  // namespace

void ref_shape(const ViewParams& p, const KernelCall& call, void*) {
  if (!p.copy) return;  // output aliases the input
  const void* in = call.inputs[p.input].data;
  void* out = call.outputs[0].data;
  if (!p.permute) {
    if (p.nbytes) std::memcpy(out, in, p.nbytes);
    return;
  }
  switch (p.elem_size) {
    case 1:
      gather(p, static_cast<const uint8_t*>(in) + p.in_offset, static_cast<uint8_t*>(out));
      break;
    case 2:
      gather(p, static_cast<const uint16_t*>(in) + p.in_offset, static_cast<uint16_t*>(out));
      break;
    case 4:
      gather(p, static_cast<const uint32_t*>(in) + p.in_offset, static_cast<uint32_t*>(out));
      break;
    case 8:
      gather(p, static_cast<const uint64_t*>(in) + p.in_offset, static_cast<uint64_t*>(out));
      break;
    case 16:
      gather(p, static_cast<const Bits128*>(in) + p.in_offset, static_cast<Bits128*>(out));
      break;
    default:
      break;
  }
}

namespace {

template <Result<ViewParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
using ShapeKernel = FnKernel<ViewParams, Prepare, ref_shape>;

}  // namespace

void register_shape_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::view", kCpu, kAny, kRef, &make_kernel<ShapeKernel<view_prepare_view>>},
      {"aten::reshape", kCpu, kAny, kRef, &make_kernel<ShapeKernel<view_prepare_view>>},
      {"aten::view_as", kCpu, kAny, kRef, &make_kernel<ShapeKernel<view_prepare_as>>},
      {"aten::reshape_as", kCpu, kAny, kRef, &make_kernel<ShapeKernel<view_prepare_as>>},
      {"aten::_unsafe_view", kCpu, kAny, kRef, &make_kernel<ShapeKernel<view_prepare_view>>},
      {"aten::flatten.using_ints", kCpu, kAny, kRef,
       &make_kernel<ShapeKernel<view_prepare_flatten>>},
      {"aten::unsqueeze", kCpu, kAny, kRef, &make_kernel<ShapeKernel<view_prepare_unsqueeze>>},
      {"aten::squeeze.dim", kCpu, kAny, kRef, &make_kernel<ShapeKernel<view_prepare_squeeze_dim>>},
      {"aten::alias", kCpu, kAny, kRef, &make_kernel<ShapeKernel<view_prepare_identity>>},
      {"aten::detach", kCpu, kAny, kRef, &make_kernel<ShapeKernel<view_prepare_identity>>},
      {"aten::contiguous", kCpu, kAny, kRef, &make_kernel<ShapeKernel<view_prepare_identity>>},
      {"aten::unflatten.int", kCpu, kAny, kRef, &make_kernel<ShapeKernel<view_prepare_unflatten>>},
      {"aten::clone", kCpu, kAny, kRef, &make_kernel<ShapeKernel<view_prepare_clone>>},
      {"aten::permute", kCpu, kAny, kRef, &make_kernel<ShapeKernel<view_prepare_permute>>},
      {"aten::movedim.int", kCpu, kAny, kRef, &make_kernel<ShapeKernel<view_prepare_movedim>>},
      {"aten::t", kCpu, kAny, kRef, &make_kernel<ShapeKernel<view_prepare_t>>},
  });
}
}  // namespace tir::kernels
