// Reference graph assertions: their prepare checks (kernels/shapes/assertion/assertion.h), no
// run work but _assert_async's.
#include "kernels/shapes/assertion/assertion.h"

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

void ref_noop(const AssertParams&, const KernelCall&, void*) {}

using AssertScalarRef = FnKernel<AssertParams, assertion_prepare_scalar, ref_noop>;
using NoopRef = FnKernel<AssertParams, assertion_prepare_noop, ref_noop>;
using AssertAsyncRef =
    CheckedKernel<AssertAsyncParams, assertion_prepare_async, assertion_run_async>;
using LocalScalarRef =
    CheckedKernel<LocalScalarParams, assertion_prepare_local_scalar, assertion_run_local_scalar>;

}  // namespace

void register_assertion_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::_assert_scalar", kCpu, kAny, kRef, &make_kernel<AssertScalarRef>},
      {"aten::_assert_async", kCpu, kAny, kRef, &make_kernel<AssertAsyncRef>},
      {"aten::_assert_async.msg", kCpu, kAny, kRef, &make_kernel<AssertAsyncRef>},
      {"aten::_local_scalar_dense", kCpu, kAny, kRef, &make_kernel<LocalScalarRef>},
      {"aten::_assert_tensor_metadata", kCpu, kAny, kRef, &make_kernel<NoopRef>},
      {"aten::sym_constrain_range_for_size", kCpu, kAny, kRef, &make_kernel<NoopRef>},
  });
}
}  // namespace tir::kernels
