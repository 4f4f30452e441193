// Control flow in the runtime: higher_order::cond (torch.cond) is a step the executor runs,
// not a kernel. Arguments (importer/hop_cond.cc): pred, true_fn, false_fn, operands. A
// symbolic predicate (`s0 > 4`) is known once shapes are bound, so only the taken branch is
// prepared; a tensor predicate is read at run time, so both are prepared and must return the
// same dtypes and shapes. The branches are subgraphs of the method, each lowered once into an
// executor of its own (runtime/exec/executor.h), prepared under the enclosing plan's binding.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "kernels/kernel.h"
#include "runtime/exec/plan.h"

namespace tir {

/// The two subgraphs of one cond under one binding (the executor implements it; tests fake
/// it). Branch 0 is true_fn, 1 false_fn.
class CondBranches {
 public:
  virtual ~CondBranches() = default;
  /// Prepares `branch` for `operands` (dtypes and shapes) and fills `out_outputs` (one per
  /// subgraph output) with dtypes and contiguous shapes.
  virtual Status prepare(int branch, std::span<const Tensor> operands,
                         std::span<Tensor> out_outputs) = 0;
  /// Runs prepared `branch` and writes its results into `outputs`.
  virtual Status run(int branch, std::span<const Tensor> operands, std::span<Tensor> outputs) = 0;
};

/// Prepares the cond whose arguments and input tensors `call` holds (as a kernel would see
/// them), filling call.outputs. Errors start with "node '<name>' (higher_order::cond): ".
Result<std::unique_ptr<ControlStep>> cond_prepare(std::unique_ptr<CondBranches> branches,
                                                  const kernels::KernelCall& call);

}  // namespace tir
