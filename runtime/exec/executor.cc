#include "runtime/exec/executor.h"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "kernels/epilogue.h"
#include "runtime/exec/control_flow.h"
#include "runtime/exec/loops.h"
#include "runtime/exec/lora_step.h"
#include "runtime/exec/profiler.h"
#include "runtime/exec/session_state.h"
#include "runtime/exec/shape_binding.h"
#include "runtime/weights/weight_binding.h"

namespace tir {
MethodExecutor::~MethodExecutor() = default;

Result<std::unique_ptr<MethodExecutor>> MethodExecutor::create(
    std::shared_ptr<const LoweredMethod> program, std::shared_ptr<WeightSource> weights,
    const ExecutorOptions& options) {
  std::unique_ptr<MethodExecutor> ex = make(std::move(program), options);
  TIR_RETURN_IF_ERROR(ex->rebind_weights(std::move(weights)));
  return ex;
}

Result<std::unique_ptr<MethodExecutor>> MethodExecutor::create(
    const ir::ModelView& model, const fb::Method& method, std::shared_ptr<WeightSource> weights,
    const ExecutorOptions& options, const LoweringOptions& lowering) {
  TIR_ASSIGN_OR_RETURN(auto program, LoweredMethod::create(model, method, lowering));
  TIR_RETURN_IF_ERROR(check_weights(model, weights->set()));
  return create(std::move(program), std::move(weights), options);
}

std::unique_ptr<MethodExecutor> MethodExecutor::make(std::shared_ptr<const LoweredMethod> program,
                                                     const ExecutorOptions& options) {
  std::unique_ptr<MethodExecutor> ex(new MethodExecutor());
  ex->options_ = options;
  ex->options_.max_cached_plans = std::max<size_t>(1, options.max_cached_plans);
  init_binding(ex->root_, std::move(program));
  if (ex->program().probe())
    ex->random_ = std::make_unique<kernels::RandomStream>(
        options.random ? options.random : &kernels::default_random_stream());
  return ex;
}

void MethodExecutor::init_binding(Binding& b, std::shared_ptr<const LoweredMethod> program) {
  b.subgraphs.resize(program->subgraphs().size());
  for (size_t k = 0; k < b.subgraphs.size(); ++k)
    init_binding(b.subgraphs[k], program->subgraphs()[k]);
  b.program = std::move(program);
}

Status MethodExecutor::rebind_weights(std::shared_ptr<WeightSource> weights) {
  weights_ = std::move(weights);
  resident_ = weights_->resident();
  uploads_.clear();  // plans upload the new bytes again (refresh_weights)
  ++bind_count_;
  return bind_fixed_data(root_);
}

Status MethodExecutor::bind_fixed_data(Binding& b) {
  const LoweredMethod& program = *b.program;
  if (!resident_)  // a budgeted source refuses a method it cannot run, now
    TIR_RETURN_IF_ERROR(
        weights_->check_uses(ir::str(program.method().name()), program.weight_uses()));
  for (Binding& sub : b.subgraphs) TIR_RETURN_IF_ERROR(bind_fixed_data(sub));
  const ExecGraph& g = program.graph();
  const fb::Model& m = program.model().model();
  b.fixed_data.assign(g.values.size(), nullptr);
  b.keys.assign(g.values.size(), kernels::WeightKey{});
  b.quantized.assign(g.values.size(), nullptr);
  for (size_t v = 0; v < g.values.size(); ++v) {
    const ExecValue& val = g.values[v];
    if (val.weight >= 0) {
      b.keys[v] = weights_->key(val.weight);
      b.quantized[v] = weights_->quantized(val.weight);
      // An int8-stored weight that only kernels reading the int8 storage read is bound
      // without its float32 dequantization (made if a kernel asks: PlanInputs::dequantize).
      if (resident_ && !(b.quantized[v] && !weights_->dequantized(val.weight) &&
                         program.int8_readers_only(int32_t(v)))) {
        TIR_ASSIGN_OR_RETURN(const Tensor* t, weights_->acquire(val.weight));
        b.fixed_data[v] = t->data;
      }
    } else if (val.constant >= 0) {
      const fb::Constant* c = m.constants()->Get(val.constant);
      b.fixed_data[v] = const_cast<uint8_t*>(c->data() ? c->data()->data() : nullptr);
    }
  }
  SessionState* state = options_.state;
  if (!state) return ok_status();
  for (const auto& [v, name] : g.state_values) {
    TIR_ASSIGN_OR_RETURN(const Tensor initial, state_initial_value(weights_->set(), m, name));
    TIR_ASSIGN_OR_RETURN(Tensor * buf, state->buffer(std::string(name), initial));
    b.fixed_data[v] = buf->data;
    b.keys[v] = {};
  }
  if (b.write_back.empty())
    for (const auto& [v, buffer] : g.mutations) {
      const std::string name(buffer);
      const Result<Tensor> initial = state_initial_value(weights_->set(), m, name);
      if (!initial.ok() && initial.status().code() == StatusCode::kNotFound)
        return make_error(StatusCode::kNotFound, "method '", ir::str(program.method().name()),
                          "' mutates buffer '", name,
                          "', which is neither a weight nor a constant of the model");
      TIR_RETURN_IF_ERROR(initial.status());
      TIR_ASSIGN_OR_RETURN(Tensor * buf, state->buffer(name, *initial));
      b.write_back.emplace_back(v, buf);
    }
  return ok_status();
}

PlanInputs MethodExecutor::plan_inputs(const Binding& b) {
  PlanInputs in;
  in.graph = &b.program->graph();
  in.devices = b.program->devices();
  in.fixed_data = b.fixed_data;
  in.keys = b.keys;
  in.quantized = b.quantized;
  in.packed_cache = &weights_->set().packed_cache();
  in.dequantize = [this, graph = in.graph](int32_t v) -> Result<void*> {
    TIR_ASSIGN_OR_RETURN(const Tensor* t, weights_->acquire(graph->values[size_t(v)].weight));
    return t->data;
  };
  if (weights_->resident()) in.drop_packed = &weights_->set();
  in.precision = options_.precision;
  in.random = random_ ? random_.get() : options_.random;
  in.uploads = &uploads_;
  for (const Binding& sub : b.subgraphs) in.subgraphs.push_back(plan_inputs(sub));
  return in;
}

Status MethodExecutor::refresh_weights(Plan& plan, const Binding& b) {
  std::vector<bool> changed(b.fixed_data.size(), false);
  for (size_t v = 0; v < b.fixed_data.size(); ++v) {
    // An int8-stored weight bound without float32 bytes: the plan must not keep another
    // set's (its kernel compares what it is given with what it packed).
    const bool int8_only = b.fixed_data[v] == nullptr && b.quantized[v] != nullptr;
    if ((b.fixed_data[v] == nullptr && !int8_only) || plan.value_data[v] == b.fixed_data[v])
      continue;
    plan.value_data[v] = plan.values[v].data = b.fixed_data[v];
    changed[v] = true;
  }
  // Weights and constants uploaded to devices: the cache was cleared when they were rebound.
  for (PlanStep& step : plan.steps) {
    if (!step.uploaded) continue;
    const int32_t src = step.in_values[0], dst = step.out_values[0];
    if (b.fixed_data[src] == nullptr)
      return make_error(StatusCode::kInternal, node_context(*step.node),
                        ": uploaded bytes are gone after a weight swap");
    TIR_ASSIGN_OR_RETURN(void* data,
                         uploads_.get(*step.device, b.fixed_data[src], plan.values[src].nbytes()));
    plan.value_data[dst] = step.outputs[0].data = data;
    changed[dst] = true;
  }
  TIR_RETURN_IF_ERROR(refresh_steps(plan, b, changed));
  for (PlanStep& step : plan.steps) {  // sub-plans read weights of their own
    const auto* graphs = step.cond ? &step.cond->graphs : step.loop ? &step.loop->graphs : nullptr;
    for (int k = 0; graphs && k < 2; ++k) {
      Plan* sub = step.cond ? step.cond->branches[k].get() : step.loop->plans[k].get();
      if (sub) TIR_RETURN_IF_ERROR(refresh_weights(*sub, b.subgraphs[(*graphs)[k]]));
    }
  }
  plan.bind_count = bind_count_;
  return ok_status();
}

Status MethodExecutor::refresh_steps(Plan& plan, const Binding& b,
                                     const std::vector<bool>& changed) {
  const PlanInputs in = plan_inputs(b);
  // Kernels may pack weights in prepare (oneDNN conv): prepare again the steps that read a
  // changed weight, so they pack the new one. Same shapes, so the plan's memory still fits.
  // Every kernel packs into the new set's cache from now on (the old set may go away).
  for (PlanStep& step : plan.steps) {
    step.weights->packed_cache = in.packed_cache;
    for (size_t s = 0; s < step.in_values.size(); ++s) {
      step.input_keys[s] = b.keys[step.in_values[s]];
      step.input_quantized[s] = b.quantized[step.in_values[s]];
    }
  }
  for (PlanStep& step : plan.steps) {
    if (!step.kernel) continue;
    if (std::none_of(step.in_values.begin(), step.in_values.end(),
                     [&](int32_t v) { return changed[v]; }))
      continue;
    // Not the previous run's activation pointers: prepare must tell weights from activations.
    for (size_t s = 0; s < step.in_values.size(); ++s)
      step.inputs[s].data = plan_prepare_data(in, step.in_values[s]);
    step.lora_twin.reset();  // made again, over the new weights, when an adapter needs it
    kernels::PrepareInfo info;
    TIR_RETURN_IF_ERROR(plan_prepare_kernel(in, step, &info, plan.value_data));
    for (size_t s = 0; s < step.in_values.size(); ++s)  // made float32 bytes, if any
      plan.values[step.in_values[s]].data = plan.value_data[step.in_values[s]];
    if (info.scratch_bytes > step.info.scratch_bytes)
      return make_error(StatusCode::kInternal, node_context(*step.node),
                        ": needs more scratch after a weight swap");
    step.info.packed_inputs = info.packed_inputs;
    plan_drop_packed(in, step);
  }
  return ok_status();
}

Plan* MethodExecutor::find_plan(std::span<const int64_t> symbols) {
  for (auto it = plans_.begin(); it != plans_.end(); ++it) {
    if (std::equal((*it)->key.begin(), (*it)->key.end(), symbols.begin(), symbols.end())) {
      plans_.splice(plans_.begin(), plans_, it);
      return plans_.front().get();
    }
  }
  return nullptr;
}

Status MethodExecutor::add_plan(std::vector<int64_t> symbols, std::span<const Tensor> inputs) {
  TIR_ASSIGN_OR_RETURN(auto plan, plan_build(plan_inputs(root_), std::move(symbols), inputs));
  plan->bind_count = bind_count_;
  plans_.push_front(std::move(plan));
  while (plans_.size() > options_.max_cached_plans) plans_.pop_back();
  return ok_status();
}

Status MethodExecutor::bind_data_dependent_ints(std::span<const Tensor> inputs,
                                                std::vector<int64_t>& symbols) {
  for (const DataDependentProbe* probe = program().probe(); probe; probe = probe->next.get()) {
    auto it = std::find_if(probe_plans_.begin(), probe_plans_.end(), [&](const auto& p) {
      return p->graph == &probe->graph && p->key == symbols;
    });
    if (it == probe_plans_.end()) {
      PlanInputs in = plan_inputs(root_);
      in.graph = &probe->graph;
      TIR_ASSIGN_OR_RETURN(auto plan, plan_build(in, symbols, inputs));
      plan->bind_count = bind_count_;
      probe_plans_.push_front(std::move(plan));
      while (probe_plans_.size() > options_.max_cached_plans) probe_plans_.pop_back();
      it = probe_plans_.begin();
    }
    Plan& plan = **it;
    if (plan.bind_count != bind_count_) TIR_RETURN_IF_ERROR(refresh_weights(plan, root_));
    if (!resident_) weights_->begin_run(plan.weight_order);
    random_->replay_begin();  // a later stage draws what an earlier one did
    const Status s = run_steps(plan, root_, inputs, nullptr, /*write_back=*/false);
    if (!resident_) weights_->end_run();
    TIR_RETURN_IF_ERROR(s);
    TIR_RETURN_IF_ERROR(bind_data_dependent(*probe, method(), plan, symbols));
  }
  return ok_status();
}

Result<Plan*> MethodExecutor::plan_for(std::span<const Tensor> inputs) {
  TIR_ASSIGN_OR_RETURN(auto symbols, bind_symbols(method(), inputs));
  if (program().probe()) TIR_RETURN_IF_ERROR(bind_data_dependent_ints(inputs, symbols));
  if (Plan* cached = find_plan(symbols)) return cached;
  TIR_RETURN_IF_ERROR(add_plan(std::move(symbols), inputs));
  return plans_.front().get();
}

Result<std::span<const Tensor>> MethodExecutor::run(std::span<const Tensor> inputs) {
  return run(inputs, nullptr);
}

Result<std::span<const Tensor>> MethodExecutor::run(std::span<const Tensor> inputs,
                                                    const BoundAdapter* adapter) {
  const ExecGraph& g = graph();
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].data == nullptr && inputs[k].nbytes() > 0)
      return make_error(StatusCode::kInvalidArgument, "input '",
                        ir::str(g.values[g.inputs[k]].ir->name()), "' has no data");
    if (!inputs[k].is_contiguous())
      return make_error(StatusCode::kUnsupported, "input ", k, " is not contiguous");
  }
  if (!random_) {
    TIR_ASSIGN_OR_RETURN(Plan * plan, plan_for(inputs));
    return execute(plan, inputs, adapter);
  }
  // The run draws the random values its probe drew (the sizes bound came from them).
  struct ReplayEnd {
    kernels::RandomStream* stream;
    ~ReplayEnd() { stream->replay_end(); }
  } replay_end{random_.get()};
  TIR_ASSIGN_OR_RETURN(Plan * plan, plan_for(inputs));
  random_->replay_begin();
  return execute(plan, inputs, adapter);
}

Status MethodExecutor::run_step(PlanStep& step, const Binding& b) {
  switch (step.kind) {
    case StepKind::kKernel:
      return step.kernel->run(step.call, step.scratch);
    case StepKind::kCopy: {
      if (step.uploaded) return ok_status();  // once, when the plan was built
      void* dst = step.outputs[0].data;
      const void* src = step.inputs[0].data;
      const size_t bytes = step.outputs[0].nbytes();
      // The side the host cannot address runs the copy (a GPU copies both ways).
      Status s = step.copy_from->host_accessible()
                     ? step.device->copy_from(dst, *step.copy_from, src, bytes)
                     : step.copy_from->copy_to(dst, *step.device, src, bytes);
      if (!s.ok()) return make_error(s.code(), node_context(*step.node), ": ", s.message());
      return ok_status();
    }
    case StepKind::kCond:
      return run_cond(step, b);
    case StepKind::kLoop:
      return run_loop(step, b);
  }
  return ok_status();
}

Status MethodExecutor::run_cond(PlanStep& step, const Binding& b) {
  CondPlan& cond = *step.cond;
  const int taken = cond_select(cond, step.inputs);
  Plan& sub = *cond.branches[taken];
  const Binding& sub_binding = b.subgraphs[cond.graphs[taken]];
  if (!resident_) weights_->begin_run(sub.weight_order);  // nested in the method's run
  Status s = run_steps(sub, sub_binding, cond.operands, nullptr);
  if (!resident_) weights_->end_run();
  TIR_RETURN_IF_ERROR(s);
  for (size_t k = 0; k < step.outputs.size(); ++k)
    std::memcpy(step.outputs[k].data, sub.value_data[sub.graph->outputs[k]],
                step.outputs[k].nbytes());
  return ok_status();
}

Status MethodExecutor::run_loop(PlanStep& step, const Binding& b) {
  LoopPlan& loop = *step.loop;
  auto run = [&](int which) {
    Plan& sub = *loop.plans[which];
    if (!resident_) weights_->begin_run(sub.weight_order);  // nested in the method's run
    const Status s = run_steps(sub, b.subgraphs[loop.graphs[which]], loop.operands, nullptr);
    if (!resident_) weights_->end_run();
    return s;
  };
  const uint64_t copied = loop.copied_bytes;
  const Status s = loop_run(loop, step.call, options_.max_loop_iterations, run);
  loop_copied_bytes_ += loop.copied_bytes - copied;
  return s;
}

Result<std::span<const Tensor>> MethodExecutor::execute(Plan* plan, std::span<const Tensor> inputs,
                                                        const BoundAdapter* adapter) {
  if (plan->bind_count != bind_count_) TIR_RETURN_IF_ERROR(refresh_weights(*plan, root_));
  if (!resident_) weights_->begin_run(plan->weight_order);  // read ahead in the plan's order
  const Status s = run_steps(*plan, root_, inputs, profiler_, true, adapter);
  if (s.ok()) {
    outputs_.clear();
    for (int32_t v : plan->graph->outputs) {
      Tensor t = plan->values[v];
      t.data = plan->value_data[v];
      outputs_.push_back(t);
    }
    if (!resident_)
      for (size_t k : plan->weight_outputs) {  // views of weights outlive the run: copy them
        held_outputs_.resize(outputs_.size());
        const auto* p = static_cast<const uint8_t*>(outputs_[k].data);
        held_outputs_[k].assign(p, p + outputs_[k].nbytes());
        outputs_[k].data = held_outputs_[k].data();
      }
  }
  if (!resident_) weights_->end_run();  // gives back all the run acquired
  TIR_RETURN_IF_ERROR(s);
  return std::span<const Tensor>(outputs_);
}

Status MethodExecutor::run_steps(Plan& plan, const Binding& b, std::span<const Tensor> inputs,
                                 Profiler* const profiler, bool write_back,
                                 const BoundAdapter* const adapter) {
  const ExecGraph& g = *plan.graph;
  std::vector<void*>& data = plan.value_data;
  for (size_t k = 0; k < inputs.size(); ++k) data[g.inputs[k]] = inputs[k].data;
  // Locals: kernels' virtual calls would otherwise make the compiler reload the members.
  const bool streaming = !resident_;
  for (PlanStep& step : plan.steps) {
    if (streaming) [[unlikely]]
      for (const auto& [id, v] : step.acquire) {
        TIR_ASSIGN_OR_RETURN(const Tensor* t, weights_->acquire(id));
        data[v] = t->data;
      }
    for (size_t s = 0; s < step.inputs.size(); ++s) step.inputs[s].data = data[step.in_values[s]];
    for (size_t k = 0; k < step.outputs.size(); ++k) {
      const int alias = step.info.output_alias[k];
      if (alias >= 0) data[step.out_values[k]] = step.inputs[alias].data;
      step.outputs[k].data = data[step.out_values[k]];
    }
    ++kernel_calls_;
    const auto t0 = profiler ? Profiler::Clock::now() : Profiler::Clock::time_point{};
    const LoraNode* lora = adapter ? adapter->at(size_t(step.node - g.nodes.data())) : nullptr;
    Status s = lora                             ? run_lora_step(step, *lora)
               : step.kind == StepKind::kKernel ? step.kernel->run(step.call, step.scratch)
                                                : run_step(step, b);
    if (profiler) [[unlikely]] {
      // A GPU step only queued its work: wait for it, so the node's time is its own (each
      // such node then also pays one synchronization, ~10 us).
      if (s.ok() && step.device && !step.device->host_accessible()) s = step.device->synchronize();
      const ExecNode& n = *step.node;
      profiler->record(n.name, n.profile_name(), n.module_path, n.index, t0, Profiler::Clock::now(),
                       step.outputs, step.inputs);
    }
    if (streaming) [[unlikely]]
      for (WeightId id : step.release) weights_->release(id);
    if (!s.ok()) return s;  // kernels name node and op (kernels/kernel_util.h op_error)
  }
  if (!write_back) return ok_status();
  for (const auto& [v, buffer] : b.write_back)  // what the program wrote to its buffers
    if (data[v] != buffer->data) std::memmove(buffer->data, data[v], buffer->nbytes());
  for (const auto& [v, k] : g.input_mutations) {  // what it wrote to the caller's inputs
    const Tensor& in = inputs[size_t(k)];
    const Tensor& now = plan.values[size_t(v)];
    if (now.dtype != in.dtype || now.numel() != in.numel())
      return make_error(StatusCode::kInternal, "method '", ir::str(g.method->name()), "' wrote a ",
                        dtype_name(now.dtype), " ", shape_str(now.shape()), " value to input ", k,
                        " (", dtype_name(in.dtype), " ", shape_str(in.shape()), ")");
    if (data[v] != in.data) std::memmove(in.data, data[v], in.nbytes());
  }
  return ok_status();
}

Status MethodExecutor::prepare_lora_twin(PlanStep& step) {
  const PlanInputs in = plan_inputs(root_);
  std::vector<Tensor> inputs = step.inputs, outputs = step.outputs;
  for (size_t s = 0; s < inputs.size(); ++s)
    inputs[s].data = plan_prepare_data(in, step.in_values[s]);
  kernels::KernelCall call = step.call;
  call.inputs = inputs;
  call.outputs = outputs;
  call.epilogue.reset();
  std::unique_ptr<kernels::Kernel> twin = step.node->kernel->make();
  kernels::PrepareInfo info;
  {
    // Threads running different adapters make their twins at once; oneDNN's primitive
    // creation there raced under ThreadSanitizer (a flaky LoraThreads failure). Once per step
    // and context, so one lock costs nothing.
    static std::mutex twin_mu;
    std::lock_guard lock(twin_mu);
    TIR_RETURN_IF_ERROR(twin->prepare(call, &info));
  }
  if (info.scratch_bytes > step.info.scratch_bytes)
    return make_error(StatusCode::kInternal, node_context(*step.node),
                      ": needs more scratch without its activation");
  if (!step.device)
    return make_error(StatusCode::kInternal, node_context(*step.node), ": no device");
  TIR_ASSIGN_OR_RETURN(step.lora_activation,
                       LoraActivation::make(*step.call.epilogue, *step.device, step.outputs[0]));
  step.lora_twin = std::move(twin);
  return ok_status();
}

Status MethodExecutor::run_lora_step(PlanStep& step, const LoraNode& node) {
  const LoraUpdate& u = *node.update;
  if (step.device && !step.device->host_accessible())
    return make_error(StatusCode::kUnsupported, node_context(*step.node),
                      ": LoRA adapters run on CPU nodes only (this one runs on ",
                      step.device->name(), ")");
  TIR_ASSIGN_OR_RETURN(const int64_t rows, lora_rows(node, step.inputs[size_t(node.x_input)],
                                                     step.outputs[0], step.node->name));
  if (lora_scratch_.size() < size_t(rows * u.rank)) lora_scratch_.resize(size_t(rows * u.rank));
  // x first: the planner may give the output x's memory.
  lora_down(u, step.inputs[size_t(node.x_input)].data_as<const float>(), rows,
            lora_scratch_.data());
  float* y = step.outputs[0].data_as<float>();
  if (!step.call.epilogue) {
    TIR_RETURN_IF_ERROR(step.kernel->run(step.call, step.scratch));
    lora_up(u, lora_scratch_.data(), rows, y);
    return ok_status();
  }
  if (!step.lora_twin) TIR_RETURN_IF_ERROR(prepare_lora_twin(step));
  kernels::KernelCall call = step.call;
  call.epilogue.reset();
  TIR_RETURN_IF_ERROR(step.lora_twin->run(call, step.scratch));
  lora_up(u, lora_scratch_.data(), rows, y);
  if (step.lora_activation) return step.lora_activation->run(y);
  kernels::apply_activation(step.call.epilogue, y, rows * u.out_features);
  return ok_status();
}

size_t MethodExecutor::arena_bytes() const {
  return plans_.empty() ? 0 : plans_.front()->arena_bytes;
}

}  // namespace tir
