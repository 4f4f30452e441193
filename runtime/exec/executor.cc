#include "runtime/exec/executor.h"

#include <algorithm>
#include <cstring>

#include "runtime/exec/control_flow.h"
#include "runtime/exec/profiler.h"
#include "runtime/exec/session_state.h"
#include "runtime/exec/shape_binding.h"
#include "runtime/weights/weight_binding.h"

namespace tir {

/// A cond's branches under one binding: the executors of the two subgraphs.
class MethodExecutor::Branches final : public CondBranches {
 public:
  Branches(std::array<MethodExecutor*, 2> executors, std::span<const int64_t> symbols)
      : executors_(executors), symbols_(symbols.begin(), symbols.end()) {}

  Status prepare(int branch, std::span<const Tensor> operands,
                 std::span<Tensor> out_outputs) override {
    MethodExecutor& ex = *executors_[branch];
    TIR_RETURN_IF_ERROR(ex.prepare_subgraph(symbols_, operands));
    const ExecGraph& g = ex.graph();
    if (g.outputs.size() != out_outputs.size())
      return make_error(StatusCode::kInternal, "subgraph '", ir::str(ex.method().name()),
                        "' returns ", g.outputs.size(), " values, its node has ",
                        out_outputs.size(), " outputs");
    for (size_t k = 0; k < g.outputs.size(); ++k) {
      const ExecValue& v = g.values[g.outputs[k]];
      TIR_ASSIGN_OR_RETURN(auto sizes, value_sizes(*v.ir, symbols_));
      out_outputs[k] = make_tensor(v.dtype, sizes, nullptr);
    }
    return ok_status();
  }

  Status run(int branch, std::span<const Tensor> operands, std::span<Tensor> outputs) override {
    TIR_ASSIGN_OR_RETURN(auto results, executors_[branch]->run_subgraph(symbols_, operands));
    for (size_t k = 0; k < outputs.size(); ++k)
      std::memcpy(outputs[k].data, results[k].data, outputs[k].nbytes());
    return ok_status();
  }

 private:
  std::array<MethodExecutor*, 2> executors_;
  std::vector<int64_t> symbols_;
};

/// Prepares the control-flow steps of this executor's plans.
class MethodExecutor::Preparer final : public ControlPreparer {
 public:
  explicit Preparer(MethodExecutor& ex) : ex_(ex) {}
  Result<std::unique_ptr<ControlStep>> prepare(const ExecNode& node, PlanStep& step,
                                               std::span<const int64_t> symbols) override {
    std::array<MethodExecutor*, 2> branches{};
    for (size_t b = 0; b < 2; ++b) {
      const int32_t index = node.branches[b];
      if (index < 0 || size_t(index) >= ex_.subgraphs_.size())
        return make_error(StatusCode::kInternal, "method '", ir::str(ex_.method().name()),
                          "' has no subgraph ", index);
      branches[b] = ex_.subgraphs_[index].get();
    }
    return cond_prepare(std::make_unique<Branches>(branches, symbols), step.call);
  }

 private:
  MethodExecutor& ex_;
};

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
  ex->preparer_ = std::make_unique<Preparer>(*ex);
  for (const auto& sub : program->subgraphs()) ex->subgraphs_.push_back(make(sub, ex->options_));
  ex->program_ = std::move(program);
  return ex;
}

Status MethodExecutor::rebind_weights(std::shared_ptr<WeightSource> weights) {
  weights_ = std::move(weights);
  resident_ = weights_->resident();
  uploads_.clear();  // plans upload the new bytes again (refresh_weights)
  ++bind_count_;
  if (!resident_)  // a budgeted source refuses a method it cannot run, now
    TIR_RETURN_IF_ERROR(weights_->check_uses(ir::str(method().name()), program_->weight_uses()));
  TIR_RETURN_IF_ERROR(bind_fixed_data());
  for (auto& sub : subgraphs_) TIR_RETURN_IF_ERROR(sub->rebind_weights(weights_));
  return ok_status();
}

Status MethodExecutor::bind_fixed_data() {
  const ExecGraph& g = graph();
  const fb::Model& m = program_->model().model();
  fixed_data_.assign(g.values.size(), nullptr);
  keys_.assign(g.values.size(), kernels::WeightKey{});
  quantized_.assign(g.values.size(), nullptr);
  for (size_t v = 0; v < g.values.size(); ++v) {
    const ExecValue& val = g.values[v];
    if (val.weight >= 0) {
      keys_[v] = weights_->key(val.weight);
      quantized_[v] = weights_->quantized(val.weight);
      if (resident_) {
        TIR_ASSIGN_OR_RETURN(const Tensor* t, weights_->acquire(val.weight));
        fixed_data_[v] = t->data;
      }
    } else if (val.constant >= 0) {
      const fb::Constant* c = m.constants()->Get(val.constant);
      fixed_data_[v] = const_cast<uint8_t*>(c->data() ? c->data()->data() : nullptr);
    }
  }
  SessionState* state = options_.state;
  if (!state) return ok_status();
  const WeightSet& set = weights_->set();
  for (const auto& [v, name] : g.state_values) {
    const Tensor* initial = set.find(name);
    if (!initial)
      return make_error(StatusCode::kNotFound, "buffer '", name, "' is missing from '", set.path(),
                        "'");
    if (!initial->data && initial->nbytes() > 0)  // streaming left it compressed
      return make_error(StatusCode::kUnsupported, "buffer '", name, "' of '", set.path(),
                        "' is compressed: streaming weights needs buffers stored plain");
    TIR_ASSIGN_OR_RETURN(Tensor * buf, state->buffer(std::string(name), *initial));
    fixed_data_[v] = buf->data;
    keys_[v] = {};
  }
  if (write_back_.empty())
    for (const auto& [v, buffer] : g.mutations) {
      const std::string name(buffer);
      const Tensor* initial = set.find(name);
      if (!initial)
        return make_error(StatusCode::kNotFound, "method '", ir::str(method().name()),
                          "' mutates buffer '", name, "', which is not a weight of the model");
      TIR_ASSIGN_OR_RETURN(Tensor * buf, state->buffer(name, *initial));
      write_back_.emplace_back(v, buf);
    }
  return ok_status();
}

PlanInputs MethodExecutor::plan_inputs() {
  PlanInputs in;
  in.graph = &graph();
  in.devices = program_->devices();
  in.fixed_data = fixed_data_;
  in.keys = keys_;
  in.quantized = quantized_;
  in.packed_cache = &weights_->set().packed_cache();
  if (weights_->resident()) in.drop_packed = &weights_->set();
  in.precision = options_.precision;
  in.control = preparer_.get();
  in.uploads = &uploads_;
  return in;
}

Status MethodExecutor::refresh_weights(Plan& plan) {
  const PlanInputs in = plan_inputs();
  std::vector<bool> changed(fixed_data_.size(), false);
  bool any = false;
  for (size_t v = 0; v < fixed_data_.size(); ++v) {
    if (fixed_data_[v] == nullptr || plan.value_data[v] == fixed_data_[v]) continue;
    plan.value_data[v] = plan.values[v].data = fixed_data_[v];
    changed[v] = any = true;
  }
  // Weights and constants uploaded to devices: the cache was cleared when they were rebound.
  for (PlanStep& step : plan.steps) {
    if (!step.uploaded) continue;
    const int32_t src = step.in_values[0], dst = step.out_values[0];
    if (fixed_data_[src] == nullptr)
      return make_error(StatusCode::kInternal, node_context(*step.node),
                        ": uploaded bytes are gone after a weight swap");
    TIR_ASSIGN_OR_RETURN(void* data,
                         uploads_.get(*step.device, fixed_data_[src], plan.values[src].nbytes()));
    plan.value_data[dst] = step.outputs[0].data = data;
    changed[dst] = any = true;
  }
  // Kernels may pack weights in prepare (oneDNN conv): prepare again the steps that read a
  // changed weight, so they pack the new one. Same shapes, so the plan's memory still fits.
  // Every kernel packs into the new set's cache from now on (the old set may go away).
  for (PlanStep& step : plan.steps) {
    step.weights->packed_cache = in.packed_cache;
    for (size_t s = 0; s < step.in_values.size(); ++s) {
      step.input_keys[s] = keys_[step.in_values[s]];
      step.input_quantized[s] = quantized_[step.in_values[s]];
    }
  }
  for (PlanStep& step : plan.steps) {
    if (!any || !step.kernel) continue;
    if (std::none_of(step.in_values.begin(), step.in_values.end(),
                     [&](int32_t v) { return changed[v]; }))
      continue;
    // Not the previous run's activation pointers: prepare must tell weights from activations.
    for (size_t s = 0; s < step.in_values.size(); ++s)
      step.inputs[s].data = plan_prepare_data(in, step.in_values[s]);
    kernels::PrepareInfo info;
    step.weights->weight_pages = in.drop_packed;  // for this prepare only
    const Status prepared = step.kernel->prepare(step.call, &info);
    step.weights->weight_pages = nullptr;
    TIR_RETURN_IF_ERROR(prepared);
    if (info.scratch_bytes > step.info.scratch_bytes)
      return make_error(StatusCode::kInternal, node_context(*step.node),
                        ": needs more scratch after a weight swap");
    step.info.packed_inputs = info.packed_inputs;
    plan_drop_packed(in, step);
  }
  plan.bind_count = bind_count_;
  return ok_status();
}

Plan* MethodExecutor::find_plan(std::span<const int64_t> symbols) {
  for (auto it = plans_.begin(); it != plans_.end(); ++it) {
    if (std::equal((*it)->symbols.begin(), (*it)->symbols.end(), symbols.begin(), symbols.end())) {
      plans_.splice(plans_.begin(), plans_, it);
      return plans_.front().get();
    }
  }
  return nullptr;
}

Status MethodExecutor::add_plan(std::vector<int64_t> symbols, std::span<const Tensor> inputs) {
  TIR_ASSIGN_OR_RETURN(auto plan, plan_build(plan_inputs(), std::move(symbols), inputs));
  plan->bind_count = bind_count_;
  plans_.push_front(std::move(plan));
  while (plans_.size() > options_.max_cached_plans) plans_.pop_back();
  return ok_status();
}

Result<Plan*> MethodExecutor::plan_for(std::span<const Tensor> inputs) {
  TIR_ASSIGN_OR_RETURN(auto symbols, bind_symbols(method(), inputs));
  if (Plan* cached = find_plan(symbols)) return cached;
  TIR_RETURN_IF_ERROR(add_plan(std::move(symbols), inputs));
  return plans_.front().get();
}

Result<std::span<const Tensor>> MethodExecutor::run(std::span<const Tensor> inputs) {
  const ExecGraph& g = graph();
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].data == nullptr && inputs[k].nbytes() > 0)
      return make_error(StatusCode::kInvalidArgument, "input '",
                        ir::str(g.values[g.inputs[k]].ir->name()), "' has no data");
    if (!inputs[k].is_contiguous())
      return make_error(StatusCode::kUnsupported, "input ", k, " is not contiguous");
  }
  TIR_ASSIGN_OR_RETURN(Plan * plan, plan_for(inputs));
  return execute(plan, inputs);
}

Status MethodExecutor::prepare_subgraph(std::span<const int64_t> symbols,
                                        std::span<const Tensor> inputs) {
  const ExecGraph& g = graph();
  const std::string_view name = ir::str(method().name());
  if (inputs.size() != g.inputs.size())
    return make_error(StatusCode::kInternal, "subgraph '", name, "' takes ", g.inputs.size(),
                      " inputs, got ", inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    const ExecValue& v = g.values[g.inputs[k]];
    TIR_ASSIGN_OR_RETURN(auto want, value_sizes(*v.ir, symbols));
    if (inputs[k].dtype != v.dtype ||
        !std::equal(want.begin(), want.end(), inputs[k].shape().begin(), inputs[k].shape().end()))
      return make_error(StatusCode::kInternal, "subgraph '", name, "' input '",
                        ir::str(v.ir->name()), "' is ", dtype_name(inputs[k].dtype),
                        shape_str(inputs[k].shape()), ", the program records ", dtype_name(v.dtype),
                        shape_str(want));
  }
  if (find_plan(symbols)) return ok_status();
  return add_plan(std::vector<int64_t>(symbols.begin(), symbols.end()), inputs);
}

Result<std::span<const Tensor>> MethodExecutor::run_subgraph(std::span<const int64_t> symbols,
                                                             std::span<const Tensor> inputs) {
  Plan* plan = find_plan(symbols);
  if (!plan) {  // evicted since the enclosing plan prepared it: prepare again
    TIR_RETURN_IF_ERROR(prepare_subgraph(symbols, inputs));
    plan = plans_.front().get();
  }
  return execute(plan, inputs);
}

Status MethodExecutor::run_step(PlanStep& step) {
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
      return step.control->run(step.inputs, step.outputs);
  }
  return ok_status();
}

Result<std::span<const Tensor>> MethodExecutor::execute(Plan* plan,
                                                        std::span<const Tensor> inputs) {
  if (plan->bind_count != bind_count_) TIR_RETURN_IF_ERROR(refresh_weights(*plan));
  if (!resident_) {  // the source reads ahead in the plan's order; the run gives back all
    weights_->begin_run(plan->weight_order);
    auto result = execute_steps(plan, inputs);
    if (result.ok())
      for (size_t k : plan->weight_outputs) {  // views of weights outlive the run: copy them
        held_outputs_.resize(outputs_.size());
        const Tensor& t = outputs_[k];
        const auto* p = static_cast<const uint8_t*>(t.data);
        held_outputs_[k].assign(p, p + t.nbytes());
        outputs_[k].data = held_outputs_[k].data();
      }
    weights_->end_run();
    return result;
  }
  return execute_steps(plan, inputs);
}

Result<std::span<const Tensor>> MethodExecutor::execute_steps(Plan* plan,
                                                              std::span<const Tensor> inputs) {
  const ExecGraph& g = graph();
  std::vector<void*>& data = plan->value_data;
  for (size_t k = 0; k < inputs.size(); ++k) data[g.inputs[k]] = inputs[k].data;
  // Locals: kernels' virtual calls would otherwise make the compiler reload the members.
  const bool streaming = !resident_;
  Profiler* const profiler = profiler_;
  for (PlanStep& step : plan->steps) {
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
    Status s =
        step.kind == StepKind::kKernel ? step.kernel->run(step.call, step.scratch) : run_step(step);
    if (profiler) [[unlikely]] {
      const ExecNode& n = *step.node;
      profiler->record(n.name, n.profile_name(), n.module_path, n.index, t0, Profiler::Clock::now(),
                       step.outputs, step.inputs);
    }
    if (streaming) [[unlikely]]
      for (WeightId id : step.release) weights_->release(id);
    if (!s.ok()) return s;  // kernels name node and op (kernels/kernel_util.h op_error)
  }
  for (const auto& [v, buffer] : write_back_)  // what the program wrote to its buffers
    if (data[v] != buffer->data) std::memmove(buffer->data, data[v], buffer->nbytes());
  outputs_.clear();
  for (int32_t v : g.outputs) {
    Tensor t = plan->values[v];
    t.data = data[v];
    outputs_.push_back(t);
  }
  return std::span<const Tensor>(outputs_);
}

uint64_t MethodExecutor::kernel_calls() const {
  uint64_t n = kernel_calls_;
  for (const auto& sub : subgraphs_) n += sub->kernel_calls();
  return n;
}

size_t MethodExecutor::arena_bytes() const {
  return plans_.empty() ? 0 : plans_.front()->arena_bytes;
}

}  // namespace tir
