// Reference dropout at inference: dropout and dropout_ alias their input (ref_shape has
// nothing to do), native_dropout copies it and writes an all-true mask.
#include "kernels/shapes/unary/dropout.h"

#include <cstring>

#include "kernels/kernel_util.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

void ref_native_dropout(const DropoutParams& p, const KernelCall& call, void*) {
  if (p.nbytes) std::memcpy(call.outputs[0].data, call.inputs[p.input].data, p.nbytes);
  bool* mask = call.outputs[1].data_as<bool>();
  for (int64_t i = 0; i < p.numel; ++i) mask[i] = true;
}

using DropoutRef = FnKernel<ViewParams, dropout_prepare, ref_shape>;
using NativeDropoutRef = FnKernel<DropoutParams, dropout_prepare_native, ref_native_dropout>;

}  // namespace

void register_dropout_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::dropout", kCpu, kAny, kRef, &make_kernel<DropoutRef>},
      {"aten::dropout_", kCpu, kAny, kRef, &make_kernel<DropoutRef>},
      {"aten::native_dropout", kCpu, kAny, kRef, &make_kernel<NativeDropoutRef>},
  });
}

}  // namespace tir::kernels
