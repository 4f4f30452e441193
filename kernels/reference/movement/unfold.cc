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
  int64_t total = 1;
  for (int d = 0; d < p.rank; ++d) total *= p.out_sizes[d];
  std::array<int64_t, kMaxRank> idx{};
  int64_t off = 0;
  for (int64_t o = 0; o < total; ++o) {
    std::memcpy(out + o * p.elem_size, in + off * p.elem_size, p.elem_size);
    for (int d = p.rank - 1; d >= 0; --d) {
      off += p.in_strides[d];
      if (++idx[d] < p.out_sizes[d]) break;
      off -= p.in_strides[d] * p.out_sizes[d];
      idx[d] = 0;
    }
  }
}

}  // namespace

void register_unfold_ref(KernelRegistry& registry) {
  using Unfold = FnKernel<UnfoldParams, unfold_prepare, ref_unfold>;
  registry.add({{"aten::unfold", DeviceType::kCpu, DType::kUndefined, KernelImpl::kReference,
                 &make_kernel<Unfold>}});
}

}  // namespace tir::kernels
