// Shared validation for the graph assertions export leaves in (_assert_scalar,
// _assert_tensor_metadata, sym_constrain_range_for_size): checked at prepare, nothing to run;
// and _assert_async, whose condition is a tensor: checked at run time.
#pragma once

#include <string>

#include "kernels/kernel.h"

namespace tir::kernels {

/// Graph assertions: no outputs, nothing to run.
struct AssertParams {};
/// _assert_scalar(self, assert_msg): fails with the message when self is 0/False.
Result<AssertParams> assertion_prepare_scalar(const KernelCall& call, PrepareInfo* out_info);
/// _assert_tensor_metadata and sym_constrain_range_for_size: accepted as no-ops.
Result<AssertParams> assertion_prepare_noop(const KernelCall& call, PrepareInfo* out_info);

/// _assert_async(self) and _assert_async.msg(self, assert_msg): fails the run (with the
/// message) when self's one element is 0/False; the decompositions of one_hot, and others
/// that check values, write it.
struct AssertAsyncParams {
  int input = -1;
  std::string message;
};
Result<AssertAsyncParams> assertion_prepare_async(const KernelCall& call, PrepareInfo* out_info);
Status assertion_run_async(const AssertAsyncParams& p, const KernelCall& call);

/// _local_scalar_dense(self, symbol) (`x.item()`, importer/scalar_binding.cc): the runtime
/// bound `symbol` to self's value before planning (runtime/exec/data_dependent.h); the kernel
/// checks at run time that the value is still the one the plan was made for.
struct LocalScalarParams {
  int64_t bound = 0;
};
Result<LocalScalarParams> assertion_prepare_local_scalar(const KernelCall& call,
                                                         PrepareInfo* out_info);
Status assertion_run_local_scalar(const LocalScalarParams& p, const KernelCall& call);
/// The one element of `t` (integer or bool dtype) as int64; an error for other dtypes.
Result<int64_t> local_scalar_value(const Tensor& t);

}  // namespace tir::kernels
