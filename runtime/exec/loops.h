// Loops in the runtime: higher_order::while_loop, scan and map_impl (ir/model.h) are steps the
// executor runs, like cond (control_flow.h). Their subgraphs are planned once per binding as
// sub-plans of the step (LoopPlan) and run once per iteration:
//   while_loop  cond_fn(carried..., additional...) -> pred; while pred:
//               carried = body_fn(carried..., additional...). Outputs: the final carried.
//   scan        for i in [0, len(xs[0])): carry, y_i = combine_fn(carry..., xs[..][i]...,
//               additional...). Outputs: the final carry, then each y stacked on dim 0.
//   map_impl    y_i = body_fn(xs[..][i]..., args...). Outputs: each y stacked on dim 0.
// No copy per iteration where the body allows: the loop state lives in two buffers the step
// owns, allocated with its plan; the first iteration reads the state where it enters, and
// each iteration's body computes its new state straight into the buffer the iteration does
// not read (the memory of the body values it returns is pointed there), a scan's last
// iteration into the step's outputs. Stacked outputs are computed into their rows of the
// step's outputs the same way; slices of xs are views. Only what the body returns without
// computing it (an input passed through, a constant, one value returned twice) is copied.
// A while_loop that runs more than ExecutorOptions::max_loop_iterations fails naming the node.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "kernels/kernel.h"
#include "runtime/exec/control_flow.h"
#include "runtime/exec/plan.h"

namespace tir {

/// Prepares the loop `op` whose arguments and inputs `call` holds, with `graphs` its subgraph
/// indices: plans the subgraphs through `build` and sets call.outputs' dtypes and shapes.
/// Errors start with "node '<name>' (<op>): ".
Result<std::unique_ptr<LoopPlan>> loop_prepare(const kernels::KernelCall& call, std::string_view op,
                                               std::array<int32_t, 2> graphs,
                                               const BuildBranch& build);

/// Runs sub-plan `which` (LoopPlan::plans) on LoopPlan::operands.
using RunLoopPlan = std::function<Status(int which)>;

/// Runs the loop on the step's `inputs`, writing `outputs`; `run` runs one sub-plan.
Status loop_run(LoopPlan& loop, const kernels::KernelCall& call, uint64_t max_iterations,
                const RunLoopPlan& run);

}  // namespace tir
