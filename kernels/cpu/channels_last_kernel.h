// A kernel made of a shared prepare and a run function (as kernel_util.h's FnKernel) that
// reads some schema arguments plain or channels-last (runtime/layout.h): its prepare accepts
// both layouts for those arguments and gives outputs[0] channels-last strides when
// KernelCall::channels_last.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

/// `Args`: bit k set when schema argument k may be channels-last.
template <typename Params, Result<Params> (*PrepareFn)(const KernelCall&, PrepareInfo*),
          void (*RunFn)(const Params&, const KernelCall&, void*), uint32_t Args>
class ChannelsLastFnKernel final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(params_, PrepareFn(call, out_info));
    return ok_status();
  }
  Status run(const KernelCall& call, void* scratch) override {
    RunFn(params_, call, scratch);
    return ok_status();
  }
  bool accepts_channels_last(size_t arg) const override { return arg < 32 && (Args >> arg & 1u); }

 private:
  Params params_{};
};

}  // namespace tir::kernels
