// Shared validation for the graph assertions export leaves in (_assert_scalar,
// _assert_tensor_metadata, sym_constrain_range_for_size): checked at prepare, nothing to run.
#pragma once

#include "kernels/kernel.h"

namespace tir::kernels {

/// Graph assertions: no outputs, nothing to run.
struct AssertParams {};
/// _assert_scalar(self, assert_msg): fails with the message when self is 0/False.
Result<AssertParams> assertion_prepare_scalar(const KernelCall& call, PrepareInfo* out_info);
/// _assert_tensor_metadata and sym_constrain_range_for_size: accepted as no-ops.
Result<AssertParams> assertion_prepare_noop(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
