#include "runtime/exec/loops.h"

#include <cstring>

#include "ir/model.h"
#include "kernels/kernel_util.h"

namespace tir {
namespace {

using kernels::Arg;
using kernels::ArgKind;
using kernels::KernelCall;
using kernels::op_error;

/// Copies what the loop could not compute in place, counting it (LoopPlan::copied_bytes).
void copy_bytes(LoopPlan& loop, void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || dst == src) return;
  std::memmove(dst, src, bytes);
  loop.copied_bytes += bytes;
}

/// The step input slots of operand list argument `a`.
Result<std::vector<int64_t>> list_slots(const KernelCall& call, size_t a) {
  if (a >= call.args.size() || call.args[a].kind != ArgKind::kTensors)
    return op_error(call, StatusCode::kInvalidArgument, "argument ", a,
                    " is not a list of tensors");
  return std::vector<int64_t>(call.args[a].ints.begin(), call.args[a].ints.end());
}

/// Reads the operand lists of `call` into `loop` and sets its operands' dtypes and shapes.
Status loop_bind(const KernelCall& call, LoopPlan& loop) {
  const bool is_while = loop.kind == LoopPlan::Kind::kWhile;
  const size_t first = is_while ? 2 : 1;
  const size_t nlists = loop.kind == LoopPlan::Kind::kScan ? 3 : 2;
  if (call.args.size() != first + nlists)
    return op_error(call, StatusCode::kInvalidArgument, "expected ", first + nlists,
                    " arguments, got ", call.args.size());
  std::vector<std::vector<int64_t>> lists;
  for (size_t k = 0; k < nlists; ++k) {
    TIR_ASSIGN_OR_RETURN(auto slots, list_slots(call, first + k));
    lists.push_back(std::move(slots));
  }
  if (loop.kind == LoopPlan::Kind::kMap) {
    loop.xs = std::move(lists[0]);
  } else {
    loop.carried = std::move(lists[0]);
    if (!is_while) loop.xs = std::move(lists[1]);
  }
  loop.extra = std::move(lists.back());
  for (int64_t s : loop.carried) loop.operands.push_back(call.inputs[s]);
  for (size_t x = 0; x < loop.xs.size(); ++x) {
    const Tensor& t = call.inputs[loop.xs[x]];
    if (t.rank == 0)
      return op_error(call, StatusCode::kInvalidArgument, "xs ", x, " is 0-dim; ", loop.op,
                      " slices its xs on dim 0");
    if (x == 0) loop.length = t.size(0);
    if (t.size(0) != loop.length)
      return op_error(call, StatusCode::kInvalidArgument, "xs ", x, " has ", t.size(0),
                      " rows on dim 0, xs 0 has ", loop.length);
    const auto sizes = t.shape();
    loop.operands.push_back(make_tensor(t.dtype, sizes.subspan(1), nullptr));
  }
  for (int64_t s : loop.extra) loop.operands.push_back(call.inputs[s]);
  for (Tensor& t : loop.operands) t.data = nullptr;
  return ok_status();
}

/// Checks that output k of `sub` has the dtype and shape of `want` (the carried state).
Status check_carried(const KernelCall& call, const Plan& sub, size_t k, const Tensor& want) {
  const Tensor& got = sub.values[sub.graph->outputs[k]];
  if (got.dtype != want.dtype || !got.same_shape(want))
    return op_error(call, StatusCode::kUnsupported, "the body returns carried value ", k, " as ",
                    dtype_name(got.dtype), shape_str(got.shape()), " but it enters the loop as ",
                    dtype_name(want.dtype), shape_str(want.shape()),
                    "; a loop state that changes shape is not supported");
  return ok_status();
}

/// Sets call.outputs from the body's outputs: the carried state, then each result stacked.
Status loop_outputs(const KernelCall& call, const LoopPlan& loop) {
  const Plan& body = *loop.plans[loop.kind == LoopPlan::Kind::kWhile ? 1 : 0];
  const size_t nres = body.graph->outputs.size(), nc = loop.carried.size();
  if (nres != call.outputs.size() || nres < nc)
    return op_error(call, StatusCode::kInternal, "the body returns ", nres,
                    " values, the node has ", call.outputs.size(), " outputs");
  for (size_t k = 0; k < nres; ++k) {
    const Tensor& v = body.values[body.graph->outputs[k]];
    if (k < nc) {
      TIR_RETURN_IF_ERROR(check_carried(call, body, k, loop.operands[k]));
      call.outputs[k] = make_tensor(v.dtype, v.shape(), nullptr);
      continue;
    }
    std::vector<int64_t> sizes{loop.length};
    sizes.insert(sizes.end(), v.shape().begin(), v.shape().end());
    call.outputs[k] = make_tensor(v.dtype, sizes, nullptr);
  }
  return ok_status();
}

Status check_predicate(const KernelCall& call, const Plan& cond_fn) {
  if (cond_fn.graph->outputs.size() != 1)
    return op_error(call, StatusCode::kInvalidArgument, "cond_fn returns ",
                    cond_fn.graph->outputs.size(), " values, expected one bool");
  const Tensor& p = cond_fn.values[cond_fn.graph->outputs[0]];
  const DType d = p.dtype;
  if (p.numel() != 1 || !predicate_dtype_ok(d))
    return op_error(call, StatusCode::kInvalidArgument,
                    "cond_fn must return a one-element bool tensor, got ", dtype_name(d),
                    shape_str(p.shape()));
  return ok_status();
}

/// The sub-plan's output k: where it is this run.
const void* result(const Plan& sub, size_t k) { return sub.value_data[sub.graph->outputs[k]]; }

/// Per output of `body`: the value whose memory the iteration can point at the loop's own
/// buffer (the carried state, a row of a stacked output) so that the body writes there and
/// nothing is copied; -1 where the output must be copied. That value is the output's root
/// (the output itself, or what it is a whole view of) when a step of the body computes it
/// into the arena of a host device, as many bytes as the output and contiguous, and no
/// other output has the same root. Any other output (one of the body's inputs or a view of
/// one, a constant, a second output of one value) is copied from where it is.
std::vector<int32_t> direct_roots(const Plan& body) {
  const ExecGraph& g = *body.graph;
  std::vector<int32_t> root(g.values.size());
  std::vector<bool> computed(g.values.size(), false);
  for (size_t v = 0; v < root.size(); ++v) root[v] = int32_t(v);
  for (const PlanStep& step : body.steps) {
    const bool host = step.device == nullptr || step.device->host_accessible();
    for (size_t k = 0; k < step.out_values.size(); ++k) {
      const int32_t v = step.out_values[k];
      const int alias = k < step.info.output_alias.size() ? step.info.output_alias[k] : -1;
      if (alias >= 0)
        root[v] = root[step.in_values[size_t(alias)]];
      else
        computed[v] = host && !step.uploaded;
    }
  }
  std::vector<int32_t> direct(g.outputs.size(), -1);
  std::vector<bool> claimed(g.values.size(), false);
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    const int32_t v = g.outputs[k], r = root[v];
    const Tensor &out = body.values[v], &whole = body.values[r];
    if (!computed[r] || claimed[r] || whole.nbytes() != out.nbytes() || !out.is_contiguous() ||
        !whole.is_contiguous())
      continue;
    claimed[r] = true;
    direct[k] = r;
  }
  return direct;
}

/// The body writes output k at `dst` this iteration: its root's memory is `dst` where it can
/// be (the steps read value_data as they run), else output k is copied there afterwards
/// (finish_outputs).
void aim_output(LoopPlan& loop, Plan& body, size_t k, void* dst) {
  loop.targets[k] = dst;
  if (loop.direct[k] >= 0) body.value_data[size_t(loop.direct[k])] = dst;
}

/// Copies the outputs the body could not write in place to their targets.
void finish_outputs(LoopPlan& loop, const Plan& body) {
  for (size_t k = 0; k < loop.targets.size(); ++k)
    if (loop.direct[k] < 0)
      copy_bytes(loop, loop.targets[k], result(body, k),
                 body.values[body.graph->outputs[k]].nbytes());
}

/// Aims the body's carried outputs at the state set `w` (or, on the last iteration of a
/// scan, at the step's outputs).
void aim_state(LoopPlan& loop, Plan& body, const KernelCall& call, int w, bool last) {
  for (size_t c = 0; c < loop.carried.size(); ++c)
    aim_output(loop, body, c, last ? call.outputs[c].data : loop.state[w][c].view().data);
}

/// The next iteration reads the state the body just wrote.
void take_state(LoopPlan& loop) {
  for (size_t c = 0; c < loop.carried.size(); ++c) loop.operands[c].data = loop.targets[c];
}

Status run_while(LoopPlan& loop, const KernelCall& call, uint64_t max_iterations,
                 const RunLoopPlan& run) {
  const Plan& cond_fn = *loop.plans[0];
  Plan& body = *loop.plans[1];
  Tensor pred = cond_fn.values[cond_fn.graph->outputs[0]];
  for (uint64_t it = 0;; ++it) {
    TIR_RETURN_IF_ERROR(run(0));
    pred.data = const_cast<void*>(result(cond_fn, 0));
    if (!predicate_value(pred)) return ok_status();
    if (it >= max_iterations)
      return op_error(call, StatusCode::kInvalidArgument, "cond_fn still holds after ",
                      max_iterations,
                      " iterations (the limit: SessionOptions::"
                      "max_loop_iterations, tirrun --max-loop-iterations)");
    aim_state(loop, body, call, int(it % 2), false);
    TIR_RETURN_IF_ERROR(run(1));
    finish_outputs(loop, body);
    take_state(loop);
  }
}

Status run_rows(LoopPlan& loop, const KernelCall& call, const RunLoopPlan& run) {
  Plan& body = *loop.plans[0];
  const size_t nc = loop.carried.size(), nx = loop.xs.size();
  for (int64_t i = 0; i < loop.length; ++i) {
    for (size_t x = 0; x < nx; ++x) {
      Tensor& slice = loop.operands[nc + x];
      slice.data = static_cast<uint8_t*>(call.inputs[loop.xs[x]].data) + i * slice.nbytes();
    }
    aim_state(loop, body, call, int(i % 2), i + 1 == loop.length);
    for (size_t k = nc; k < call.outputs.size(); ++k) {
      const size_t row = call.outputs[k].nbytes() / size_t(loop.length);
      aim_output(loop, body, k, static_cast<uint8_t*>(call.outputs[k].data) + i * row);
    }
    TIR_RETURN_IF_ERROR(run(0));
    finish_outputs(loop, body);
    take_state(loop);
  }
  return ok_status();
}

}  // namespace

Result<std::unique_ptr<LoopPlan>> loop_prepare(const KernelCall& call, std::string_view op,
                                               std::array<int32_t, 2> graphs,
                                               const BuildBranch& build) {
  auto loop = std::make_unique<LoopPlan>();
  loop->op = op;
  loop->kind = op == ir::kWhileLoopOp ? LoopPlan::Kind::kWhile
               : op == ir::kScanOp    ? LoopPlan::Kind::kScan
                                      : LoopPlan::Kind::kMap;
  loop->graphs = graphs;
  TIR_RETURN_IF_ERROR(loop_bind(call, *loop));
  const int nplans = loop->kind == LoopPlan::Kind::kWhile ? 2 : 1;
  for (int p = 0; p < nplans; ++p) {
    TIR_ASSIGN_OR_RETURN(loop->plans[p], build(graphs[p], loop->operands));
  }
  if (loop->kind == LoopPlan::Kind::kWhile)
    TIR_RETURN_IF_ERROR(check_predicate(call, *loop->plans[0]));
  TIR_RETURN_IF_ERROR(loop_outputs(call, *loop));
  loop->direct = direct_roots(*loop->plans[loop->kind == LoopPlan::Kind::kWhile ? 1 : 0]);
  loop->targets.assign(loop->direct.size(), nullptr);
  for (auto& set : loop->state)
    for (size_t c = 0; c < loop->carried.size(); ++c)
      set.emplace_back(loop->operands[c].dtype, loop->operands[c].shape());
  return loop;
}

Status loop_run(LoopPlan& loop, const KernelCall& call, uint64_t max_iterations,
                const RunLoopPlan& run) {
  const size_t nc = loop.carried.size(), nx = loop.xs.size();
  for (size_t e = 0; e < loop.extra.size(); ++e)
    loop.operands[nc + nx + e].data = call.inputs[loop.extra[e]].data;
  // The first iteration reads the state where it enters; each writes the set the one before
  // did not, so an iteration never overwrites what it reads.
  for (size_t c = 0; c < nc; ++c) loop.operands[c].data = call.inputs[loop.carried[c]].data;
  TIR_RETURN_IF_ERROR(loop.kind == LoopPlan::Kind::kWhile
                          ? run_while(loop, call, max_iterations, run)
                          : run_rows(loop, call, run));
  for (size_t c = 0; c < nc; ++c)  // a scan's last iteration wrote them in place
    copy_bytes(loop, call.outputs[c].data, loop.operands[c].data, call.outputs[c].nbytes());
  return ok_status();
}

}  // namespace tir
