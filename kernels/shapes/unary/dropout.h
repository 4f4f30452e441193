// Shared shape inference for dropout at inference: dropout and dropout_ alias their input,
// native_dropout copies it and adds an all-true mask. Training mode (random masks) is refused.
// Any dtype.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/shapes/movement/view.h"

namespace tir::kernels {

/// dropout(input, p, train) and dropout_: identity (an alias) when train is false.
Result<ViewParams> dropout_prepare(const KernelCall& call, PrepareInfo* out_info);

/// native_dropout(input, p, train?) outside training: (input, all-true mask).
struct DropoutParams {
  int input = -1;
  size_t nbytes = 0;
  int64_t numel = 0;
};
Result<DropoutParams> dropout_prepare_native(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
