// Control flow in the runtime: higher_order::cond (torch.cond) is a step the executor runs,
// not a kernel. Arguments (importer/hop_cond.cc): pred, true_fn, false_fn, operands. Its
// branches are subgraphs of the method, each lowered once with it (runtime/exec/lowered_method.h)
// and planned as sub-plans of the enclosing plan's cond step (CondPlan, runtime/exec/plan.h),
// under that plan's binding: the executor walks a branch's sub-plan as it walks any plan.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "kernels/kernel.h"
#include "runtime/exec/plan.h"

namespace tir {

/// Builds the sub-plan of the branch whose subgraph index is `graph` for `operands` (dtypes
/// and shapes; data may be null). plan_build passes one that builds it from PlanInputs::
/// subgraphs; tests pass fakes.
using BuildBranch =
    std::function<Result<std::unique_ptr<Plan>>(int32_t graph, std::span<const Tensor> operands)>;

/// Prepares the cond whose arguments and input tensors `call` holds (as a kernel would see
/// them), with `graphs` its true_fn and false_fn subgraph indices: the branches that can run
/// get sub-plans, and call.outputs their dtypes and shapes (both branches must agree when the
/// predicate is read at run time). Errors start with "node '<name>' (higher_order::cond): ".
Result<std::unique_ptr<CondPlan>> cond_prepare(const kernels::KernelCall& call,
                                               std::array<int32_t, 2> graphs,
                                               const BuildBranch& build);

/// A predicate tensor's dtype: bool, an integer or a float (read as its truth).
bool predicate_dtype_ok(DType d);
/// The truth of a one-element predicate tensor with data.
bool predicate_value(const Tensor& t);

/// The branch that runs for the step's `inputs` this run (0: true_fn, 1: false_fn); points
/// cond.operands at the inputs' data.
int cond_select(CondPlan& cond, std::span<const Tensor> inputs);

}  // namespace tir
