#include "runtime/exec/session.h"

#include <omp.h>

#include <atomic>
#include <cstdio>
#include <limits>
#include <random>

#include "core/threads.h"
#include "ir/model.h"
#include "ir/sym_expr.h"
#include "kernels/random.h"
#include "runtime/exec/device_select.h"
#include "runtime/exec/executor.h"
#include "runtime/exec/lora_step.h"
#include "runtime/exec/lowered_method.h"
#include "runtime/exec/profiler.h"
#include "runtime/weights/streaming_weights.h"
#include "runtime/weights/weight_binding.h"
#include "runtime/weights/weight_source.h"

namespace tir {
namespace {

/// The range max of the symbol named `name`; -1 if it is not one or unbounded.
int64_t symbol_max(const ir::fb::Method& m, std::string_view name) {
  if (!m.symbols()) return -1;
  for (const ir::fb::Symbol* sym : *m.symbols())
    if (ir::str(sym->name()) == name)
      return sym->max() == std::numeric_limits<int64_t>::max() ? -1 : sym->max();
  return -1;
}

IoSpec io_spec(const ir::fb::Method& m, const ir::fb::Value& v) {
  IoSpec s;
  s.name = std::string(ir::str(v.name()));
  s.dtype = ir::to_dtype(v.dtype());
  if (v.sizes()) {
    for (const ir::fb::Dim* d : *v.sizes()) {
      s.shape.push_back(d->expr() ? -1 : d->value());
      s.dims.push_back(d->expr() ? ir::format_sym_expr(*d->expr(), m.symbols())
                                 : std::to_string(d->value()));
      s.max_shape.push_back(d->expr() ? symbol_max(m, s.dims.back()) : d->value());
    }
  }
  return s;
}

}  // namespace

struct Session::Context {
  /// An executor over an adapter's modules_to_save (Session::adapter_executor).
  struct AdapterExecutor {
    std::weak_ptr<const BoundAdapter> owner;  // expired: the adapter was unloaded
    std::unique_ptr<MethodExecutor> executor;
  };
  std::unique_ptr<MethodExecutor> executor;
  std::unordered_map<const BoundAdapter*, AdapterExecutor> adapter_executors;
  std::shared_ptr<const WeightSet> set;  // the weights the executor is bound to
  uint64_t generation = 0;               // of the weights the executor is bound to
};

Session::Session() = default;
Session::~Session() = default;

WeightSetOptions weight_open_options(const SessionOptions& options) {
  WeightSetOptions wo = options.weights;
  if (options.weight_budget > 0 || options.weight_pool) {
    // Streaming verifies each tensor as it reads it, and inflates what is compressed then.
    wo.verify_checksums = false;
    wo.decode = false;
  }
  return wo;
}

Result<std::unique_ptr<Session>> Session::open(const std::string& model_path,
                                               const std::string& weights_path,
                                               const SessionOptions& options) {
  TIR_ASSIGN_OR_RETURN(auto model, data_source_mmap(model_path));
  TIR_ASSIGN_OR_RETURN(auto weights, WeightSet::open(weights_path, weight_open_options(options)));
  return create(std::move(model), std::move(weights), options);
}

Result<std::unique_ptr<Session>> Session::create(std::shared_ptr<const DataSource> model,
                                                 std::shared_ptr<const WeightSet> weights,
                                                 const SessionOptions& options) {
  TIR_ASSIGN_OR_RETURN(ir::ModelView view, ir::ModelView::open(model->bytes(), model->name()));
  const ir::fb::Method* method = view.method(options.method);
  if (!method)
    return make_error(StatusCode::kNotFound, "'", model->name(), "' has no method '",
                      options.method, "' (it has: ", view.method_names(), ")");
  std::unique_ptr<Session> s(new Session());
  s->model_ = std::move(model);
  s->view_ = std::make_unique<ir::ModelView>(view);
  s->options_ = options;
  if (s->options_.devices.empty() && !options.device.empty()) {
    TIR_ASSIGN_OR_RETURN(DeviceSelection chosen, select_device(options.device));
    s->options_.devices = std::move(chosen.devices);
    if (!s->options_.placement) s->options_.placement = std::move(chosen.placement);
  }
  s->options_.precision = devices_precision(s->options_.devices, options.precision);
  if (!s->options_.state) s->options_.state = std::make_shared<SessionState>();
  s->random_ = std::make_shared<kernels::RandomStream>(
      options.seed ? *options.seed
                   : uint64_t{std::random_device{}()} << 32 | std::random_device{}());
  s->method_name_ = options.method;
  TIR_RETURN_IF_ERROR(check_weights(*s->view_, *weights));  // once: every context trusts it
  LoweringOptions lowering;
  lowering.fuse = s->options_.fuse;
  lowering.devices = s->options_.devices;
  lowering.placement = s->options_.placement;
  lowering.last_position = s->options_.last_position;
  TIR_ASSIGN_OR_RETURN(s->program_, LoweredMethod::create(*s->view_, *method, lowering));
  if (s->options_.weight_budget > 0 && !s->options_.weight_pool) {
    TIR_ASSIGN_OR_RETURN(s->options_.weight_pool, WeightPool::create(s->options_.weight_budget));
  }
  TIR_ASSIGN_OR_RETURN(s->weights_, s->bind(std::move(weights)));
  // The first context is built now, so a weight file that does not fit (a weight budget too
  // small for a node) fails at open, not at the first run.
  TIR_RETURN_IF_ERROR(s->context().status());
  if (method->inputs())
    for (int32_t v : *method->inputs())
      s->inputs_.push_back(io_spec(*method, *method->values()->Get(v)));
  if (method->input_mutations())
    for (const ir::fb::InputMutation* mu : *method->input_mutations())
      s->inputs_[size_t(mu->input())].mutated = true;  // in range: the verifier checked it
  if (method->outputs())
    for (int32_t v : *method->outputs())
      s->outputs_.push_back(io_spec(*method, *method->values()->Get(v)));
  for (const LastPosition& p : s->options_.last_position) {  // checked by the pass
    IoSpec& out = s->outputs_[size_t(p.output)];
    const size_t d = size_t(p.dim < 0 ? p.dim + int(out.shape.size()) : p.dim);
    out.shape[d] = out.max_shape[d] = 1;
    out.dims[d] = "1";
  }
  return s;
}

Result<Session::Context*> Session::context() {
  std::shared_ptr<WeightSource> weights;
  uint64_t generation = 0;
  Context* ctx = nullptr;
  {
    std::lock_guard lock(mu_);
    weights = weights_;
    generation = generation_;
    auto& slot = contexts_[std::this_thread::get_id()];
    if (!slot) {
      auto made = MethodExecutor::create(program_, weights, executor_options());
      if (!made.ok()) {
        contexts_.erase(std::this_thread::get_id());
        return made.status();
      }
      slot = std::make_unique<Context>();
      slot->executor = std::move(*made);
      slot->set = weights->set_ptr();
      slot->generation = generation;
    }
    ctx = slot.get();
  }
  // Only this thread uses its context, so rebinding needs no lock.
  if (ctx->generation != generation) {
    ctx->set = weights->set_ptr();
    TIR_RETURN_IF_ERROR(ctx->executor->rebind_weights(std::move(weights)));
    ctx->generation = generation;
  }
  return ctx;
}

ExecutorOptions Session::executor_options() const {
  ExecutorOptions o;
  o.max_cached_plans = options_.max_cached_plans;
  o.max_loop_iterations = options_.max_loop_iterations;
  o.state = options_.state.get();
  o.precision = options_.precision;
  o.random = random_.get();
  return o;
}

Status Session::swap_weights(std::shared_ptr<const WeightSet> weights) {
  if (!weights) return make_error(StatusCode::kInvalidArgument, "swap_weights: no weight set");
  std::lock_guard admin(admin_mu_);
  TIR_RETURN_IF_ERROR(check_weights(*view_, *weights));
  TIR_ASSIGN_OR_RETURN(std::shared_ptr<WeightSource> bound, bind(std::move(weights)));
  // Adapters with modules_to_save lay them over the new weights now.
  std::map<std::string, std::shared_ptr<const BoundAdapter>, std::less<>> adapters;
  {
    std::lock_guard lock(mu_);
    adapters = adapters_;
  }
  for (auto& [name, a] : adapters) {
    if (!a->replacements()) continue;
    TIR_ASSIGN_OR_RETURN(a, bind_adapter(name, a->adapter(), bound));
  }
  std::lock_guard lock(mu_);
  weights_ = std::move(bound);
  adapters_ = std::move(adapters);
  ++generation_;
  return ok_status();
}

Result<std::shared_ptr<const BoundAdapter>> Session::bind_adapter(
    const std::string& name, std::shared_ptr<const LoraAdapter> adapter,
    std::shared_ptr<WeightSource> weights) {
  std::shared_ptr<WeightSource> replaced;
  if (adapter->replacements()) {
    const std::shared_ptr<const WeightSet> deltas[] = {adapter->replacements()};
    TIR_ASSIGN_OR_RETURN(auto set, WeightSet::overlay(weights->set_ptr(), deltas));
    TIR_RETURN_IF_ERROR(check_weights(*view_, *set));
    TIR_ASSIGN_OR_RETURN(replaced, bind(std::move(set)));
  }
  return BoundAdapter::bind(name, std::move(adapter), program_->graph(), view_->model(),
                            weights->set(), std::move(replaced));
}

Status Session::load_adapter(const std::string& name, const std::string& path) {
  TIR_ASSIGN_OR_RETURN(auto adapter, LoraAdapter::open(path, *weights()));
  return load_adapter(name, std::move(adapter));
}

Status Session::load_adapter(const std::string& name, std::shared_ptr<const LoraAdapter> adapter) {
  if (name.empty() || !adapter)
    return make_error(StatusCode::kInvalidArgument, "load_adapter: an adapter needs a name");
  if (options_.weight_pool)
    return make_error(StatusCode::kUnsupported, "adapter '", adapter->path(),
                      "': adapters need resident weights (no weight budget)");
  std::lock_guard admin(admin_mu_);
  std::shared_ptr<WeightSource> current;
  {
    std::lock_guard lock(mu_);
    current = weights_;
  }
  TIR_ASSIGN_OR_RETURN(auto bound, bind_adapter(name, std::move(adapter), std::move(current)));
  std::lock_guard lock(mu_);
  adapters_[name] = std::move(bound);
  return ok_status();
}

Status Session::unload_adapter(const std::string& name) {
  std::lock_guard lock(mu_);
  if (adapters_.erase(name) == 0)
    return make_error(StatusCode::kNotFound, "unload_adapter: no adapter named '", name, "'");
  return ok_status();
}

std::vector<std::string> Session::adapter_names() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, a] : adapters_) names.push_back(name);
  return names;
}

Result<MethodExecutor*> Session::adapter_executor(
    Context& ctx, const std::shared_ptr<const BoundAdapter>& adapter) {
  auto& made = ctx.adapter_executors;
  for (auto it = made.begin(); it != made.end();)  // those of unloaded adapters go
    it = it->second.owner.expired() ? made.erase(it) : std::next(it);
  if (!adapter->replacements()) return ctx.executor.get();
  const auto it = made.find(adapter.get());
  if (it != made.end() && it->second.owner.lock() == adapter) return it->second.executor.get();
  TIR_ASSIGN_OR_RETURN(
      auto executor, MethodExecutor::create(program_, adapter->replacements(), executor_options()));
  if (Profiler* p = ctx.executor->profiler()) executor->set_profiler(p);
  auto& slot = made[adapter.get()];
  slot.owner = adapter;
  slot.executor = std::move(executor);
  return slot.executor.get();
}

Result<std::shared_ptr<WeightSource>> Session::bind(std::shared_ptr<const WeightSet> set) {
  std::shared_ptr<WeightSource> source;
  if (!options_.weight_pool) {
    TIR_ASSIGN_OR_RETURN(source, ResidentWeights::bind(*view_, std::move(set)));
    return source;
  }
  StreamingOptions so;
  so.verify_checksums = options_.weights.verify_checksums;
  so.direct_io = options_.direct_io;
  so.io_threads = options_.weight_io_threads;
  TIR_ASSIGN_OR_RETURN(source,
                       StreamingWeights::bind(*view_, std::move(set), options_.weight_pool, so));
  return source;
}

Status Session::reset_state() { return options_.state->reset(*weights(), view_->model()); }

std::shared_ptr<const WeightSet> Session::weights() const {
  std::lock_guard lock(mu_);
  return weights_->set_ptr();
}

uint64_t Session::weights_generation() const {
  std::lock_guard lock(mu_);
  return generation_;
}

int Session::input_index(std::string_view name) const {
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i].name == name) return static_cast<int>(i);
  return -1;
}

namespace {

/// Writes the weight file's layout cache when this run packed weights it lacks. A cache that
/// cannot be written (a read-only folder) costs only the packing in later processes: one
/// warning line per process, never a failed run.
void save_layouts(const WeightSet& set) {
  const Status s = set.save_layouts();
  static std::atomic<bool> warned{false};
  if (!s.ok() && !warned.exchange(true))
    std::fprintf(stderr, "tir: warning: %s (layout cache not written)\n", s.message().c_str());
}

}  // namespace

Result<std::span<const Tensor>> Session::run(std::span<const Tensor> inputs) {
  TIR_ASSIGN_OR_RETURN(Context * ctx, context());
  // A weight file truncated since it was mapped is an error here, not SIGBUS in a kernel.
  if (ctx->set) TIR_RETURN_IF_ERROR(ctx->set->check_mapped());
  Profiler* profiler = ctx->executor->profiler();
  if (profiler) profiler->begin_run();
  auto outputs = ctx->executor->run(inputs);
  if (profiler) profiler->end_run();
  if (outputs.ok() && ctx->set) {
    // Checksums checked while this run went on: no output of bytes that fail them.
    TIR_RETURN_IF_ERROR(ctx->set->verified());
    save_layouts(*ctx->set);
  }
  return outputs;
}

Result<std::span<const Tensor>> Session::run(std::span<const Tensor> inputs,
                                             std::string_view adapter) {
  if (adapter.empty()) return run(inputs);
  std::shared_ptr<const BoundAdapter> bound;
  {
    std::lock_guard lock(mu_);
    const auto it = adapters_.find(adapter);
    if (it == adapters_.end()) {
      std::string loaded;
      for (const auto& [name, a] : adapters_) loaded += (loaded.empty() ? "" : ", ") + name;
      return make_error(StatusCode::kNotFound, "no adapter named '", adapter,
                        "' is loaded (loaded: ", loaded.empty() ? "none" : loaded, ")");
    }
    bound = it->second;
  }
  TIR_ASSIGN_OR_RETURN(Context * ctx, context());
  if (ctx->set) TIR_RETURN_IF_ERROR(ctx->set->check_mapped());
  TIR_ASSIGN_OR_RETURN(MethodExecutor * executor, adapter_executor(*ctx, bound));
  Profiler* profiler = executor->profiler();
  if (profiler) profiler->begin_run();
  auto outputs = executor->run(inputs, bound.get());
  if (profiler) profiler->end_run();
  if (outputs.ok() && ctx->set) TIR_RETURN_IF_ERROR(ctx->set->verified());
  return outputs;
}

Status Session::set_profiler(Profiler* profiler) {
  TIR_ASSIGN_OR_RETURN(Context * ctx, context());
  ctx->executor->set_profiler(profiler);
  return ok_status();
}

const MethodExecutor& Session::executor() const {
  std::lock_guard lock(mu_);
  const auto it = contexts_.find(std::this_thread::get_id());
  return *(it != contexts_.end() ? it : contexts_.begin())->second->executor;
}

size_t Session::arena_bytes() const { return executor().arena_bytes(); }
size_t Session::num_nodes() const { return program_->num_nodes(); }
size_t Session::num_fused_groups() const { return program_->graph().num_fused; }
size_t Session::num_channels_last() const { return program_->graph().num_channels_last; }
size_t Session::num_cached_plans() const { return executor().num_cached_plans(); }
uint64_t Session::kernel_calls() const { return executor().kernel_calls(); }
uint64_t Session::loop_copied_bytes() const { return executor().loop_copied_bytes(); }
size_t Session::num_copies() const { return program_->num_copies(); }

std::string Session::placement_summary() const {
  return tir::placement_summary(exec_graph(), program_->devices());
}
const ExecGraph& Session::exec_graph() const { return program_->graph(); }

int set_num_threads(int threads) {
  if (threads <= 0) return omp_get_max_threads();
  const int used = usable_threads(threads);
  omp_set_num_threads(used);
  return used;
}

}  // namespace tir
