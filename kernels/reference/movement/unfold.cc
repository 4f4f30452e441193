// Reference unfold: a gather of the windows, element by element (any element size).
#include "kernels/shapes/movement/unfold.h"

#include <cstring>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

void ref_unfold(const UnfoldParams& p, const KernelCall& call, void*) {
  const auto* in = static_cast<const uint8_t*>(call.inputs[p.input].data);
  auto* out = static_cast<uint8_t*>(call.outputs[0].data);
  for_each_strided(p.rank, p.out_sizes.data(), p.in_strides.data(), [&](int64_t o, int64_t off) {
    std::memcpy(out + o * p.elem_size, in + off * p.elem_size, p.elem_size);
  });
}

}  // namespace

void register_unfold_ref(KernelRegistry& registry) {
  using Unfold = FnKernel<UnfoldParams, unfold_prepare, ref_unfold>;
  registry.add({{"aten::unfold", DeviceType::kCpu, DType::kUndefined, KernelImpl::kReference,
                 &make_kernel<Unfold>}});
}

}  // namespace tir::kernels
