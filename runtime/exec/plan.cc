#include "runtime/exec/plan.h"

#include <algorithm>

#include "ir/sym_expr.h"
#include "runtime/exec/control_flow.h"
#include "runtime/exec/data_dependent.h"
#include "runtime/exec/loops.h"
#include "runtime/exec/shape_binding.h"
#include "runtime/passes/memory_planner.h"
#include "runtime/weights/weight_set.h"

namespace tir {

using kernels::Arg;
using kernels::ArgKind;

namespace {

/// Lifetimes of the values of one plan, in step indices.
struct Lifetimes {
  std::vector<int32_t> root;         // the value whose memory a value uses (itself, or aliased)
  std::vector<int32_t> first, last;  // -1: no memory of its own
  std::vector<size_t> scratch_request;
};

/// The sizes `v` has under `symbols`: as declared, one position where a pass narrowed it.
Result<std::vector<int64_t>> exec_value_sizes(const ExecValue& v,
                                              std::span<const int64_t> symbols) {
  TIR_ASSIGN_OR_RETURN(auto sizes, value_sizes(*v.ir, symbols));
  if (v.last_position_dim >= 0 && size_t(v.last_position_dim) < sizes.size())
    sizes[size_t(v.last_position_dim)] = 1;
  return sizes;
}

/// Dtypes and declared shapes of every value that is not computed, bound to its bytes.
Status init_values(const PlanInputs& in, Plan& plan, std::span<const Tensor> inputs) {
  const ExecGraph& g = *in.graph;
  plan.values.resize(g.values.size());
  plan.value_data.assign(in.fixed_data.begin(), in.fixed_data.end());
  for (size_t v = 0; v < g.values.size(); ++v) {
    const ExecValue& val = g.values[v];
    if (!val.is_tensor || val.source == fb::ValueSource::Activation) continue;
    TIR_ASSIGN_OR_RETURN(auto sizes, exec_value_sizes(val, plan.symbols));
    plan.values[v] = make_tensor(val.dtype, sizes, in.fixed_data[v]);
  }
  for (size_t k = 0; k < inputs.size(); ++k) plan.values[g.inputs[k]] = inputs[k];
  return ok_status();
}

/// The kernel-facing arguments of `node` under the plan's binding.
Status bind_args(const ExecNode& node, const Plan& plan, PlanStep& step) {
  step.args.resize(node.args.size());
  for (size_t j = 0; j < node.args.size(); ++j) {
    const ExecArg& a = node.args[j];
    Arg& arg = step.args[j];
    arg.kind = a.kind;
    arg.i = a.i;
    arg.f = a.f;
    arg.s = a.s;
    arg.name = a.name;
    arg.ints = a.ints;
    arg.floats = a.floats;
    if (a.sym) {
      TIR_ASSIGN_OR_RETURN(arg.i, ir::eval_sym_expr(*a.sym, plan.symbols));
    } else if (!a.syms.empty()) {
      auto& store = step.int_store.emplace_back();
      for (size_t k = 0; k < a.syms.size(); ++k) {  // null: a pass set the entry (ints[k])
        int64_t x = k < a.ints.size() ? a.ints[k] : 0;
        if (a.syms[k]) {
          TIR_ASSIGN_OR_RETURN(x, ir::eval_sym_expr(*a.syms[k], plan.symbols));
        }
        store.push_back(x);
      }
    }
  }
  // Spans into int_store are taken only now that the store no longer grows.
  size_t store_at = 0;
  for (size_t j = 0; j < node.args.size(); ++j)
    if (!node.args[j].syms.empty()) step.args[j].ints = step.int_store[store_at++];
  return ok_status();
}

/// Fills step's tensors, keys and KernelCall for `node`.
Status bind_step(const PlanInputs& in, const ExecNode& node, Plan& plan, PlanStep& step) {
  step.kind = node.kind;
  step.node = &node;
  step.device = in.devices[node.device].get();
  TIR_RETURN_IF_ERROR(bind_args(node, plan, step));
  step.in_values = node.inputs;
  for (int32_t v : node.inputs) {
    Tensor t = plan.values[v];
    t.data = plan_prepare_data(in, v);
    step.inputs.push_back(t);
    step.input_keys.push_back(in.keys[v]);
    step.input_quantized.push_back(size_t(v) < in.quantized.size() ? in.quantized[v] : nullptr);
  }
  step.out_values = node.outputs;
  step.outputs.resize(node.outputs.size());
  step.call = {node.op, node.name, step.args, step.inputs, step.outputs};
  step.call.epilogue = node.epilogue;
  step.call.batch_norm = node.batch_norm;
  step.call.residual = node.residual;
  step.call.precision = in.precision;
  step.call.random = in.random;
  step.weights->packed_cache = in.packed_cache;
  step.weights->input_keys = step.input_keys;
  step.weights->input_quantized = step.input_quantized;
  step.call.weights = step.weights.get();
  step.call.context = step.device->context();
  step.call.channels_last =
      !node.outputs.empty() && in.graph->values[node.outputs[0]].channels_last;
  return ok_status();
}

/// The sub-plan of cond branch `graph` (a Method.subgraphs index) for `operands`, which must
/// match the subgraph's inputs as the program records them under the enclosing binding.
Result<std::unique_ptr<Plan>> plan_build_branch(const PlanInputs& in, const ExecNode& node,
                                                int32_t graph, std::span<const int64_t> symbols,
                                                std::span<const Tensor> operands) {
  if (graph < 0 || size_t(graph) >= in.subgraphs.size())
    return make_error(StatusCode::kInternal, node_context(node), ": the method has no subgraph ",
                      graph);
  const PlanInputs& sub = in.subgraphs[graph];
  const ExecGraph& g = *sub.graph;
  const std::string_view name = g.method ? ir::str(g.method->name()) : std::string_view();
  if (operands.size() != g.inputs.size())
    return make_error(StatusCode::kInternal, "subgraph '", name, "' takes ", g.inputs.size(),
                      " inputs, got ", operands.size());
  for (size_t k = 0; k < operands.size(); ++k) {
    const ExecValue& v = g.values[g.inputs[k]];
    TIR_ASSIGN_OR_RETURN(auto want, exec_value_sizes(v, symbols));
    if (operands[k].dtype != v.dtype ||
        !std::equal(want.begin(), want.end(), operands[k].shape().begin(),
                    operands[k].shape().end()))
      return make_error(StatusCode::kInternal, "subgraph '", name, "' input '",
                        ir::str(v.ir->name()), "' is ", dtype_name(operands[k].dtype),
                        shape_str(operands[k].shape()), ", the program records ",
                        dtype_name(v.dtype), shape_str(want));
  }
  return plan_build(sub, std::vector<int64_t>(symbols.begin(), symbols.end()), operands);
}

/// Lets the step's kernel (or the runtime, for copies and control flow) prepare.
Status prepare_step(const PlanInputs& in, const ExecNode& node, Plan& plan, PlanStep& step) {
  switch (node.kind) {
    case StepKind::kKernel:
      step.kernel = node.kernel->make();
      TIR_RETURN_IF_ERROR(plan_prepare_kernel(in, step, &step.info, plan.value_data));
      for (size_t s = 0; s < step.in_values.size(); ++s)  // made float32 bytes, if any
        plan.values[step.in_values[s]].data = plan.value_data[step.in_values[s]];
      plan_drop_packed(in, step);
      return ok_status();
    case StepKind::kCopy: {
      const Tensor& src = step.inputs[0];
      step.outputs[0] = make_tensor(src.dtype, src.shape(), nullptr);
      step.copy_from = in.devices[in.graph->values[node.inputs[0]].device].get();
      if (in.graph->values[node.inputs[0]].source != fb::ValueSource::Activation)
        step.copy_from = in.devices[0].get();
      if (plan_copy_uploads_once(in, node)) {
        TIR_ASSIGN_OR_RETURN(step.outputs[0].data,
                             in.uploads->get(*step.device, src.data, src.nbytes()));
        step.uploaded = true;
      }
      return ok_status();
    }
    case StepKind::kCond: {
      auto build = [&](int32_t graph, std::span<const Tensor> operands) {
        return plan_build_branch(in, node, graph, plan.symbols, operands);
      };
      TIR_ASSIGN_OR_RETURN(step.cond, cond_prepare(step.call, node.branches, build));
      return ok_status();
    }
    case StepKind::kLoop: {
      auto build = [&](int32_t graph, std::span<const Tensor> operands) {
        return plan_build_branch(in, node, graph, plan.symbols, operands);
      };
      TIR_ASSIGN_OR_RETURN(step.loop, loop_prepare(step.call, node.op, node.branches, build));
      return ok_status();
    }
  }
  return ok_status();
}

/// Checks each output against the program's declared dtype and shape, records its shape in
/// the plan and its lifetime (or its alias).
Status record_outputs(const ExecGraph& g, const ExecNode& node, Plan& plan, PlanStep& step,
                      int32_t i, Lifetimes& life) {
  for (size_t k = 0; k < step.outputs.size(); ++k) {
    const int32_t v = step.out_values[k];
    const ExecValue& val = g.values[v];
    Tensor& out = step.outputs[k];
    const bool fused = node.fused && k == 0;  // writes the group's last value
    if (val.is_tensor) {
      bind_derived_symbols(*val.ir, out, plan.symbols, val.last_position_dim);
      TIR_ASSIGN_OR_RETURN(auto want, exec_value_sizes(val, plan.symbols));
      // A fused producer's output may be reshaped on its way to the group's last value.
      const bool same_shape =
          fused ? make_tensor(out.dtype, want, nullptr).numel() == out.numel()
                : std::equal(want.begin(), want.end(), out.shape().begin(), out.shape().end());
      if (out.dtype != val.dtype || !same_shape)
        return make_error(StatusCode::kInternal, node_context(node), ": kernel computes output ", k,
                          " as ", dtype_name(out.dtype), shape_str(out.shape()),
                          " but the program records ", dtype_name(val.dtype), shape_str(want));
      if (k == 0 && step.call.channels_last) {  // the kernel wrote channels-last strides
        if (!out.is_channels_last() ||
            !std::equal(want.begin(), want.end(), out.shape().begin(), out.shape().end()))
          return make_error(StatusCode::kInternal, node_context(node),
                            ": kernel ignored the channels-last layout");
        plan.values[v] = out;
        life.first[v] = life.last[v] = i;
        continue;
      }
      if (fused) {
        out.set_contiguous_strides();
        plan.values[v] = make_tensor(out.dtype, want, nullptr);
        life.first[v] = life.last[v] = i;
        continue;
      }
    }
    out.set_contiguous_strides();
    plan.values[v] = out;
    if (step.uploaded) {  // lives in the uploads, not in the arena
      plan.value_data[v] = out.data;
      continue;
    }
    const int alias = step.info.output_alias[k];
    if (alias >= 0) {
      if (size_t(alias) >= step.inputs.size() || out.nbytes() > step.inputs[alias].nbytes())
        return make_error(StatusCode::kInternal, node_context(node), ": bad output alias");
      life.root[v] = life.root[step.in_values[alias]];
    } else {
      life.first[v] = life.last[v] = i;
    }
  }
  for (int32_t v : step.in_values) life.last[life.root[v]] = std::max(life.last[life.root[v]], i);
  return ok_status();
}

/// First and last use of every weight value, as acquire/release lists of the steps. A use
/// through a view of the weight (an output that aliases it) counts as a use of the weight; a
/// weight a method output views is held to the end of the run.
void plan_weight_uses(const ExecGraph& g, Plan& plan, const Lifetimes& life) {
  std::vector<int32_t> first(g.values.size(), -1), last(g.values.size(), -1);
  auto is_weight = [&](int32_t v) { return g.values[v].weight >= 0 && !g.values[v].mutated; };
  for (size_t i = 0; i < plan.steps.size(); ++i)
    for (int32_t v : plan.steps[i].in_values) {
      const int32_t r = life.root[v];
      if (!is_weight(r)) continue;
      if (first[r] < 0) first[r] = int32_t(i);
      last[r] = int32_t(i);
    }
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    const int32_t r = life.root[g.outputs[k]];
    if (!is_weight(r)) continue;
    plan.weight_outputs.push_back(k);
    last[r] = -1;  // released when the run ends
  }
  for (size_t v = 0; v < g.values.size(); ++v) {
    if (first[v] < 0) continue;
    plan.steps[first[v]].acquire.emplace_back(g.values[v].weight, int32_t(v));
    if (last[v] >= 0) plan.steps[last[v]].release.push_back(g.values[v].weight);
  }
  for (const PlanStep& step : plan.steps)
    for (const auto& [id, v] : step.acquire) plan.weight_order.push_back(id);
}

/// One arena per device: activations by lifetime, each step's scratch for its own step.
Status place_memory(const PlanInputs& in, Plan& plan, const Lifetimes& life) {
  const ExecGraph& g = *in.graph;
  const int32_t end = int32_t(plan.steps.size());
  std::vector<int32_t> last = life.last;
  for (int32_t v : g.outputs) last[life.root[v]] = end;
  for (const auto& m : g.mutations) last[life.root[m.first]] = end;
  for (const auto& m : g.input_mutations) last[life.root[m.first]] = end;
  for (size_t d = 0; d < in.devices.size(); ++d) {
    std::vector<BufferRequest> requests;
    std::vector<int32_t> value_of, step_of;  // per request: the value, or the step (scratch)
    for (size_t i = 0; i < plan.steps.size(); ++i)
      if (plan.steps[i].info.scratch_bytes > 0 && plan.steps[i].node->device == d) {
        requests.push_back({plan.steps[i].info.scratch_bytes, int32_t(i), int32_t(i)});
        value_of.push_back(-1);
        step_of.push_back(int32_t(i));
      }
    for (size_t v = 0; v < g.values.size(); ++v) {
      if (life.first[v] < 0 || life.root[v] != int32_t(v) || g.values[v].device != d) continue;
      requests.push_back({plan.values[v].nbytes(), life.first[v], last[v]});
      value_of.push_back(int32_t(v));
      step_of.push_back(-1);
    }
    if (requests.empty()) continue;
    const MemoryPlan mp = plan_memory(requests);
    auto arena = std::make_unique<Arena>();
    arena->device = in.devices[d].get();
    TIR_ASSIGN_OR_RETURN(arena->data, arena->device->alloc(mp.arena_bytes, kArenaAlignment));
    arena->bytes = mp.arena_bytes;
    uint8_t* base = static_cast<uint8_t*>(arena->data);
    for (size_t r = 0; r < requests.size(); ++r) {
      if (value_of[r] >= 0) plan.value_data[value_of[r]] = base + mp.offsets[r];
      if (step_of[r] >= 0) {
        plan.steps[step_of[r]].scratch_offset = mp.offsets[r];
        plan.steps[step_of[r]].scratch = base + mp.offsets[r];
      }
    }
    plan.arena_bytes += mp.arena_bytes;
    plan.arenas.push_back(std::move(arena));
  }
  return ok_status();
}

}  // namespace

Status plan_prepare_kernel(const PlanInputs& in, PlanStep& step, kernels::PrepareInfo* info,
                           std::span<void*> value_data) {
  for (int attempt = 0;; ++attempt) {
    *info = {};
    step.weights->weight_pages = in.drop_packed;              // for this prepare only
    const Status st = step.kernel->prepare(step.call, info);  // names node and op
    step.weights->weight_pages = nullptr;
    TIR_RETURN_IF_ERROR(st);
    if (info->needs_float_inputs == 0) return ok_status();
    if (attempt > 0 || !in.dequantize)
      return make_error(StatusCode::kInternal, node_context(*step.node),
                        ": the kernel needs float32 bytes of a weight it was given");
    for (size_t s = 0; s < step.inputs.size() && s < 64; ++s) {
      if (!(info->needs_float_inputs >> s & 1u)) continue;
      const int32_t v = step.in_values[s];
      TIR_ASSIGN_OR_RETURN(void* data, in.dequantize(v));
      step.inputs[s].data = value_data[size_t(v)] = data;
    }
  }
}

void plan_drop_packed(const PlanInputs& in, const PlanStep& step) {
  if (!in.drop_packed || step.info.packed_inputs == 0) return;
  for (size_t k = 0; k < step.in_values.size() && k < 64; ++k) {
    if (!(step.info.packed_inputs >> k & 1)) continue;
    const kernels::WeightKey key = in.keys[step.in_values[k]];
    if (key.valid()) in.drop_packed->drop_pages(size_t(key.slot));
  }
}

void* plan_prepare_data(const PlanInputs& in, int32_t v) {
  return in.graph->values[v].mutated ? nullptr : in.fixed_data[v];
}

bool plan_copy_uploads_once(const PlanInputs& in, const ExecNode& node) {
  if (!in.uploads || node.kind != StepKind::kCopy) return false;
  const ExecGraph& g = *in.graph;
  const int32_t src = node.inputs[0], dst = node.outputs[0];
  const ExecValue& val = g.values[src];
  const bool fixed =
      val.source == fb::ValueSource::Weight || val.source == fb::ValueSource::Constant;
  if (!fixed || val.mutated || !plan_prepare_data(in, src) ||
      in.devices[node.device]->host_accessible())
    return false;
  for (const auto& state : g.state_values)  // another method may write it between runs
    if (state.first == src) return false;
  for (const ExecNode& n : g.nodes)
    if (!n.inputs.empty() && n.inputs[0] == dst && op_is_inplace(n.op)) return false;
  return true;
}

Result<std::unique_ptr<Plan>> plan_build(const PlanInputs& in, std::vector<int64_t> symbols,
                                         std::span<const Tensor> inputs) {
  const ExecGraph& g = *in.graph;
  auto plan = std::make_unique<Plan>();
  plan->graph = in.graph;
  plan->key = symbols;
  plan->symbols = std::move(symbols);
  TIR_RETURN_IF_ERROR(init_values(in, *plan, inputs));
  Lifetimes life;
  life.root.resize(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v) life.root[v] = int32_t(v);
  life.first.assign(g.values.size(), -1);
  life.last.assign(g.values.size(), -1);
  plan->steps.resize(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ExecNode& node = g.nodes[i];
    PlanStep& step = plan->steps[i];
    TIR_RETURN_IF_ERROR(bind_step(in, node, *plan, step));
    TIR_RETURN_IF_ERROR(prepare_step(in, node, *plan, step));
    TIR_RETURN_IF_ERROR(record_outputs(g, node, *plan, step, int32_t(i), life));
  }
  plan_weight_uses(g, *plan, life);
  TIR_RETURN_IF_ERROR(place_memory(in, *plan, life));
  return plan;
}

}  // namespace tir
