// Reference products that are one fixed einsum (kernels/shapes/linear_algebra/contraction.h):
// the einsum loops, in double.
#include "kernels/shapes/linear_algebra/contraction.h"

#include "kernels/kernel_util.h"
#include "kernels/reference/linear_algebra/einsum.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

template <Result<EinsumParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
using ContractionRef = FnKernel<EinsumParams, Prepare, ref_einsum>;

template <Contraction C>
void add(KernelRegistry& registry, const char* op) {
  using K = ContractionRef<contraction_prepare<C>>;
  registry.add({
      {op, DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference, &make_kernel<K>},
      {op, DeviceType::kCpu, DType::kFloat64, KernelImpl::kReference, &make_kernel<K>},
  });
}

template <Result<EinsumParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
void add(KernelRegistry& registry, const char* op) {
  using K = ContractionRef<Prepare>;
  registry.add({
      {op, DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference, &make_kernel<K>},
      {op, DeviceType::kCpu, DType::kFloat64, KernelImpl::kReference, &make_kernel<K>},
  });
}

}  // namespace

void register_contraction_ref(KernelRegistry& registry) {
  add<Contraction::kOuter>(registry, "aten::outer");
  add<Contraction::kOuter>(registry, "aten::ger");
  add<Contraction::kDot>(registry, "aten::dot");
  add<Contraction::kDot>(registry, "aten::vdot");
  add<Contraction::kMv>(registry, "aten::mv");
  add<contraction_prepare_trace>(registry, "aten::trace");
  add<Contraction::kAddmv>(registry, "aten::addmv");
  add<Contraction::kAddr>(registry, "aten::addr");
  add<Contraction::kAddbmm>(registry, "aten::addbmm");
  add<contraction_prepare_bilinear>(registry, "aten::bilinear");
  add<contraction_prepare_trilinear>(registry, "aten::_trilinear");
}

}  // namespace tir::kernels
