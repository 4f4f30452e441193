#include "runtime/executor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "ir/sym_expr.h"
#include "kernels/epilogue.h"
#include "runtime/control_flow.h"
#include "runtime/fusion.h"
#include "runtime/layout.h"
#include "runtime/memory_planner.h"
#include "runtime/profiler.h"
#include "runtime/session_state.h"
#include "runtime/shape_binding.h"
#include "runtime/weight_binding.h"

namespace tir {

namespace fb = ir::fb;
using kernels::Arg;
using kernels::ArgKind;

struct PlanNode {
  std::unique_ptr<kernels::Kernel> kernel;
  std::vector<Arg> args;
  std::vector<std::vector<int64_t>> int_store;  // backing for spans that are not in the file
  std::vector<Tensor> inputs, outputs;
  std::vector<int32_t> in_values, out_values;
  kernels::PrepareInfo info;
  kernels::KernelCall call;
  size_t scratch_offset = 0;
  std::unique_ptr<kernels::SubgraphRunner> subgraphs;  // control-flow nodes only
};

struct Plan {
  std::vector<int64_t> symbols;
  uint64_t bind_count = 0;  // MethodExecutor::bind_count_ when the weight pointers were set
  std::vector<PlanNode> nodes;
  std::vector<Tensor> values;     // dtype and shape of every value under this binding
  std::vector<void*> value_data;  // data of every value (aliases filled while running)
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t[], Free> arena;
  size_t arena_bytes = 0;
};

namespace {

std::string node_context(const fb::Node& n) {
  return "node '" + std::string(ir::str(n.name())) + "' (" + std::string(ir::str(n.op())) + ")";
}

/// The dtype that keys the kernel lookup: the first tensor operand's, else the first
/// output's, else any.
DType key_dtype(const fb::Method& m, const fb::Node& n) {
  auto dtype_of = [&](int32_t v) { return ir::to_dtype(m.values()->Get(v)->dtype()); };
  if (n.args()) {
    for (const fb::Argument* a : *n.args()) {
      if (a->value_type() == fb::ArgValue::TensorArg)
        return dtype_of(a->value_as_TensorArg()->value());
      if (a->value_type() == fb::ArgValue::TensorsArg && a->value_as_TensorsArg()->values())
        for (int32_t v : *a->value_as_TensorsArg()->values())
          if (v >= 0) return dtype_of(v);
    }
  }
  if (n.outputs() && n.outputs()->size() > 0) return dtype_of(n.outputs()->Get(0));
  return DType::kUndefined;
}

/// "aten::index_copy_" and "aten::add_.Tensor" write into their first argument (dunder
/// names such as "aten::__and__.Tensor" do not).
bool is_inplace(std::string_view op) {
  const size_t colons = op.find("::");
  std::string_view base = op.substr(colons == std::string_view::npos ? 0 : colons + 2);
  base = base.substr(0, base.find('.'));
  return base.size() > 1 && base.back() == '_' && !base.starts_with("__");
}

/// The weight values (buffers) `method` writes: targets of in-place ops, and the buffers of
/// its BUFFER_MUTATION outputs (bound by name).
std::vector<std::pair<int32_t, std::string>> mutated_buffers(const ir::ModelView& model,
                                                             const fb::Method& method) {
  const fb::Model& m = model.model();
  std::vector<std::pair<int32_t, std::string>> out;
  auto add = [&](int32_t v) {
    for (const auto& [seen, name] : out)
      if (seen == v) return;
    const fb::Value* val = method.values()->Get(v);
    if (val->source() == fb::ValueSource::Weight)
      out.emplace_back(v, std::string(ir::str(m.weights()->Get(val->index())->name())));
  };
  if (method.nodes())
    for (const fb::Node* n : *method.nodes())
      if (is_inplace(ir::str(n->op())) && n->args() && n->args()->size() > 0 &&
          n->args()->Get(0)->value_type() == fb::ArgValue::TensorArg)
        add(n->args()->Get(0)->value_as_TensorArg()->value());
  if (method.mutations() && method.values())
    for (const fb::BufferMutation* mu : *method.mutations())
      for (size_t v = 0; v < method.values()->size(); ++v) {
        const fb::Value* val = method.values()->Get(v);
        if (val->source() != fb::ValueSource::Weight) continue;
        const fb::WeightRef* w = m.weights()->Get(val->index());
        bool named = ir::str(w->name()) == ir::str(mu->buffer());
        if (w->aliases())
          for (const flatbuffers::String* a : *w->aliases())
            named = named || a->string_view() == ir::str(mu->buffer());
        if (named) add(int32_t(v));
      }
  return out;
}

}  // namespace

MethodExecutor::MethodExecutor(const ir::ModelView& model, const fb::Method& method)
    : model_(model), method_(method) {}
MethodExecutor::~MethodExecutor() = default;

Result<std::unique_ptr<MethodExecutor>> MethodExecutor::create(
    const ir::ModelView& model, const fb::Method& method, std::shared_ptr<const WeightSet> weights,
    size_t max_cached_plans, SessionState* state, bool fuse, Precision precision) {
  std::unique_ptr<MethodExecutor> ex(new MethodExecutor(model, method));
  ex->max_plans_ = std::max<size_t>(1, max_cached_plans);
  TIR_RETURN_IF_ERROR(kernels::KernelRegistry::global().registration_status());
  if (method.nodes()) {
    for (const fb::Node* n : *method.nodes()) {
      const std::string_view op = ir::str(n->op());
      const kernels::KernelEntry* k =
          kernels::KernelRegistry::global().find(op, DeviceType::kCpu, key_dtype(method, *n));
      if (!k) {
        const bool any = kernels::KernelRegistry::global().has_op(op, DeviceType::kCpu);
        return make_error(StatusCode::kUnsupported, "node '", ir::str(n->name()), "': op ", op,
                          any ? " has no CPU kernel for dtype " : " has no kernel",
                          any ? dtype_name(key_dtype(method, *n)) : "");
      }
      ex->nodes_.push_back({n, k});
    }
  }
  ex->fuse_ = fuse;
  ex->precision_ = precision;
  if (fuse) ex->apply_fusion();
  if (fuse) ex->apply_layout();
  TIR_RETURN_IF_ERROR(check_weights(model, *weights));
  ex->state_ = state;
  if (state) ex->state_values_ = mutated_buffers(model, method);
  TIR_RETURN_IF_ERROR(ex->rebind_weights(std::move(weights)));
  return ex;
}

void MethodExecutor::apply_fusion() {
  const auto accepts = [&](int32_t i) { return nodes_[i].kernel->factory()->accepts_epilogue(); };
  const auto written = mutated_buffers(model_, method_);
  const auto frozen = [&](int32_t v) {
    const fb::ValueSource src = method_.values()->Get(v)->source();
    return (src == fb::ValueSource::Weight || src == fb::ValueSource::Constant) &&
           std::none_of(written.begin(), written.end(),
                        [&](const auto& w) { return w.first == v; });
  };
  for (const FusedGroup& g : fusion_find_groups(method_, accepts, frozen)) {
    NodeInfo& p = nodes_[g.producer];
    p.epilogue = g.activation;
    p.batch_norm = g.batch_norm;
    p.residual = g.residual;
    p.fused_output = g.output;
    p.fused_label = std::string(ir::str(p.node->op()));
    if (g.batch_norm.present()) p.fused_label += "+batch_norm";
    if (g.residual >= 0) p.fused_label += "+add";
    if (g.activation != kernels::Activation::kNone)
      p.fused_label += "+" + std::string(kernels::activation_name(g.activation));
    for (int32_t i : g.absorbed) nodes_[i].absorbed = true;
    if (g.position != g.producer) {  // runs where its residual is ready (an absorbed node)
      nodes_[g.position] = p;
      nodes_[g.producer].absorbed = true;
    }
    ++num_fused_;
  }
}

namespace {
bool same_declared_sizes(const fb::Value& a, const fb::Value& b) {
  if (!a.sizes() || !b.sizes() || a.sizes()->size() != b.sizes()->size()) return false;
  for (size_t d = 0; d < a.sizes()->size(); ++d)
    if (a.sizes()->Get(d)->value() != b.sizes()->Get(d)->value()) return false;
  return true;
}
}  // namespace

void MethodExecutor::apply_layout() {
  std::vector<LayoutNode> info(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const NodeInfo& n = nodes_[i];
    info[i].node = n.node;
    info[i].runs = !n.absorbed;
    info[i].residual = n.residual;
    info[i].channels_last = n.kernel->factory()->accepts_channels_last();
    const auto* outs = n.node->outputs();
    info[i].output = n.fused_output >= 0        ? n.fused_output
                     : outs && outs->size() > 0 ? outs->Get(0)
                                                : -1;
    // A group that reshapes the producer's output on the way (GEMM + view) writes a tensor
    // of another shape: it stays plain.
    if (n.fused_output >= 0 && outs && outs->size() > 0 &&
        !same_declared_sizes(*method_.values()->Get(outs->Get(0)),
                             *method_.values()->Get(n.fused_output)))
      info[i].channels_last = false;
  }
  channels_last_ = choose_channels_last(method_, info);
  num_channels_last_ = size_t(std::count(channels_last_.begin(), channels_last_.end(), true));
}

Status MethodExecutor::rebind_weights(std::shared_ptr<const WeightSet> weights) {
  TIR_ASSIGN_OR_RETURN(fixed_data_, resolve_fixed_data(model_, method_, *weights));
  weights_ = std::move(weights);
  ++bind_count_;
  return bind_state();
}

Status MethodExecutor::bind_state() {
  if (!state_) return ok_status();
  for (const auto& [v, name] : state_values_) {
    const Tensor* initial = weights_->find(name);
    if (!initial)
      return make_error(StatusCode::kNotFound, "buffer '", name, "' is missing from '",
                        weights_->path(), "'");
    TIR_ASSIGN_OR_RETURN(Tensor * buf, state_->buffer(name, *initial));
    fixed_data_[v] = buf->data;
  }
  if (write_back_.empty() && method_.mutations())
    for (const fb::BufferMutation* mu : *method_.mutations()) {
      const std::string name(ir::str(mu->buffer()));
      const Tensor* initial = weights_->find(name);
      if (!initial)
        return make_error(StatusCode::kNotFound, "method '", ir::str(method_.name()),
                          "' mutates buffer '", name, "', which is not a weight of the model");
      TIR_ASSIGN_OR_RETURN(Tensor * buf, state_->buffer(name, *initial));
      write_back_.emplace_back(mu->value(), buf);
    }
  return ok_status();
}

void* MethodExecutor::prepare_data(int32_t v) const {
  for (const auto& entry : state_values_)
    if (entry.first == v) return nullptr;
  return fixed_data_[v];
}

Status MethodExecutor::refresh_weights(Plan& plan) {
  std::vector<bool> changed(fixed_data_.size(), false);
  bool any = false;
  for (size_t v = 0; v < fixed_data_.size(); ++v) {
    if (fixed_data_[v] == nullptr || plan.value_data[v] == fixed_data_[v]) continue;
    plan.value_data[v] = plan.values[v].data = fixed_data_[v];
    changed[v] = any = true;
  }
  // Kernels may pack weights in prepare (oneDNN conv): prepare again the nodes that read a
  // changed weight, so they pack the new one. Same shapes, so the plan's memory still fits.
  // Every kernel packs into the new set's cache from now on (the old set may go away).
  for (PlanNode& pn : plan.nodes) pn.call.packed_cache = &weights_->packed_cache();
  for (size_t i = 0; any && i < plan.nodes.size(); ++i) {
    PlanNode& pn = plan.nodes[i];
    bool reads_changed = false;
    for (size_t s = 0; s < pn.in_values.size(); ++s) {
      if (!changed[pn.in_values[s]]) continue;
      pn.inputs[s].data = fixed_data_[pn.in_values[s]];
      reads_changed = true;
    }
    if (!reads_changed) continue;
    // Not the previous run's activation pointers: prepare must tell weights from activations.
    for (size_t s = 0; s < pn.in_values.size(); ++s)
      pn.inputs[s].data = prepare_data(pn.in_values[s]);
    kernels::PrepareInfo info;
    TIR_RETURN_IF_ERROR(pn.kernel->prepare(pn.call, &info));
    if (info.scratch_bytes > pn.info.scratch_bytes)
      return make_error(StatusCode::kInternal, node_context(*nodes_[i].node),
                        ": needs more scratch after a weight swap");
  }
  plan.bind_count = bind_count_;
  return ok_status();
}

Result<std::unique_ptr<Plan>> MethodExecutor::build_plan(std::vector<int64_t> symbols,
                                                         std::span<const Tensor> inputs) {
  auto plan = std::make_unique<Plan>();
  plan->symbols = std::move(symbols);
  plan->bind_count = bind_count_;
  const size_t nvalues = method_.values() ? method_.values()->size() : 0;
  plan->values.resize(nvalues);
  plan->value_data = fixed_data_;
  // Declared shapes of every non-activation value.
  for (size_t v = 0; v < nvalues; ++v) {
    const fb::Value* val = method_.values()->Get(v);
    if (val->kind() != fb::ValueKind::Tensor || val->source() == fb::ValueSource::Activation)
      continue;
    TIR_ASSIGN_OR_RETURN(auto sizes, value_sizes(*val, plan->symbols));
    plan->values[v] = make_tensor(ir::to_dtype(val->dtype()), sizes, fixed_data_[v]);
  }
  for (size_t k = 0; k < inputs.size(); ++k) plan->values[method_.inputs()->Get(k)] = inputs[k];

  std::vector<int32_t> root(nvalues);
  for (size_t v = 0; v < nvalues; ++v) root[v] = static_cast<int32_t>(v);
  std::vector<int32_t> first(nvalues, -1), last(nvalues, -1);
  plan->nodes.resize(nodes_.size());
  std::vector<BufferRequest> requests;
  std::vector<size_t> scratch_request(nodes_.size(), SIZE_MAX);

  for (size_t i = 0; i < nodes_.size(); ++i) {
    const fb::Node& n = *nodes_[i].node;
    PlanNode& pn = plan->nodes[i];
    if (nodes_[i].absorbed) continue;  // part of a fused group: no kernel, no memory
    pn.kernel = nodes_[i].kernel->factory();
    auto add_input = [&](int32_t v) {
      pn.in_values.push_back(v);
      Tensor t = plan->values[v];
      t.data = prepare_data(v);
      pn.inputs.push_back(t);
      return static_cast<int64_t>(pn.inputs.size() - 1);
    };
    if (n.args()) {
      for (const fb::Argument* a : *n.args()) {
        Arg arg;
        switch (a->value_type()) {
          case fb::ArgValue::IntArg:
            arg.kind = ArgKind::kInt;
            arg.i = a->value_as_IntArg()->value();
            break;
          case fb::ArgValue::FloatArg:
            arg.kind = ArgKind::kFloat;
            arg.f = a->value_as_FloatArg()->value();
            break;
          case fb::ArgValue::BoolArg:
            arg.kind = ArgKind::kBool;
            arg.i = a->value_as_BoolArg()->value();
            break;
          case fb::ArgValue::IntsArg: {
            arg.kind = ArgKind::kInts;
            const auto* vals = a->value_as_IntsArg()->values();
            if (vals) arg.ints = {vals->data(), vals->size()};
            break;
          }
          case fb::ArgValue::FloatsArg: {
            arg.kind = ArgKind::kFloats;
            const auto* vals = a->value_as_FloatsArg()->values();
            if (vals) arg.floats = {vals->data(), vals->size()};
            break;
          }
          case fb::ArgValue::BoolsArg: {
            arg.kind = ArgKind::kBools;
            auto& store = pn.int_store.emplace_back();
            if (const auto* vals = a->value_as_BoolsArg()->values())
              store.assign(vals->begin(), vals->end());
            break;
          }
          case fb::ArgValue::StringArg:
            arg.kind = ArgKind::kString;
            arg.s = ir::str(a->value_as_StringArg()->value());
            break;
          case fb::ArgValue::TensorArg:
            arg.kind = ArgKind::kTensor;
            arg.i = add_input(a->value_as_TensorArg()->value());
            break;
          case fb::ArgValue::TensorsArg: {
            arg.kind = ArgKind::kTensors;
            auto& store = pn.int_store.emplace_back();
            if (const auto* vals = a->value_as_TensorsArg()->values())
              for (int32_t v : *vals) store.push_back(v < 0 ? -1 : add_input(v));
            break;
          }
          case fb::ArgValue::DTypeArg:
            arg.kind = ArgKind::kDType;
            arg.i = int64_t(a->value_as_DTypeArg()->value());
            break;
          case fb::ArgValue::SymIntArg: {
            arg.kind = ArgKind::kInt;
            TIR_ASSIGN_OR_RETURN(
                arg.i, ir::eval_sym_expr(*a->value_as_SymIntArg()->value(), plan->symbols));
            break;
          }
          case fb::ArgValue::SymIntsArg: {
            arg.kind = ArgKind::kInts;
            auto& store = pn.int_store.emplace_back();
            if (const auto* vals = a->value_as_SymIntsArg()->values())
              for (const fb::SymExpr* e : *vals) {
                TIR_ASSIGN_OR_RETURN(int64_t x, ir::eval_sym_expr(*e, plan->symbols));
                store.push_back(x);
              }
            break;
          }
          case fb::ArgValue::MemoryFormatArg:
            arg.kind = ArgKind::kMemoryFormat;
            arg.i = a->value_as_MemoryFormatArg()->value();
            break;
          case fb::ArgValue::LayoutArg:
            arg.kind = ArgKind::kLayout;
            arg.i = a->value_as_LayoutArg()->value();
            break;
          case fb::ArgValue::DeviceArg:
            arg.kind = ArgKind::kDevice;
            arg.s = ir::str(a->value_as_DeviceArg()->type());
            arg.i = a->value_as_DeviceArg()->index();
            break;
          case fb::ArgValue::GraphArg:
            arg.kind = ArgKind::kGraph;
            arg.i = a->value_as_GraphArg()->index();
            break;
          default:
            arg.kind = ArgKind::kNone;
            break;
        }
        pn.args.push_back(arg);
      }
    }
    // A folded batch norm's tensors are inputs too (after the args'), so a weight swap that
    // changes only them re-prepares the conv (refresh_weights), which folds them again.
    kernels::BatchNormFold fold;
    if (const FusedBatchNorm& bn = nodes_[i].batch_norm; bn.present()) {
      const auto slot = [&](int32_t v) { return v < 0 ? -1 : int(add_input(v)); };
      fold = {slot(bn.weight), slot(bn.bias), slot(bn.mean), slot(bn.var), bn.eps};
    }
    const int residual = nodes_[i].residual < 0 ? -1 : int(add_input(nodes_[i].residual));
    // Spans into int_store are taken only now that the store no longer grows.
    size_t store_at = 0;
    for (size_t j = 0; j < pn.args.size(); ++j) {
      const fb::ArgValue t = n.args()->Get(j)->value_type();
      if (t == fb::ArgValue::BoolsArg || t == fb::ArgValue::TensorsArg ||
          t == fb::ArgValue::SymIntsArg)
        pn.args[j].ints = pn.int_store[store_at++];
    }
    const size_t nout = n.outputs() ? n.outputs()->size() : 0;
    if (nout > size_t(kernels::kMaxOutputs))
      return make_error(StatusCode::kUnsupported, node_context(n), ": more than ",
                        kernels::kMaxOutputs, " outputs");
    pn.outputs.resize(nout);
    for (size_t k = 0; k < nout; ++k) pn.out_values.push_back(n.outputs()->Get(k));
    const bool fused = nodes_[i].fused_output >= 0;  // writes the group's last value
    if (fused) pn.out_values[0] = nodes_[i].fused_output;
    pn.call = {ir::str(n.op()), ir::str(n.name()), pn.args, pn.inputs, pn.outputs};
    pn.call.epilogue = nodes_[i].epilogue;
    pn.call.batch_norm = fold;
    pn.call.residual = residual;
    pn.call.precision = precision_;
    pn.call.packed_cache = &weights_->packed_cache();
    pn.call.channels_last = nout > 0 && !channels_last_.empty() && channels_last_[pn.out_values[0]];
    if (std::any_of(pn.args.begin(), pn.args.end(),
                    [](const Arg& a) { return a.kind == ArgKind::kGraph; })) {
      pn.subgraphs = make_subgraph_runner(
          {&model_, &method_, &weights_, plan->symbols, &kernel_calls_, state_, fuse_, precision_});
      pn.call.subgraphs = pn.subgraphs.get();
    }
    TIR_RETURN_IF_ERROR(pn.kernel->prepare(pn.call, &pn.info));  // names node and op

    for (size_t k = 0; k < nout; ++k) {
      const int32_t v = pn.out_values[k];
      const fb::Value* val = method_.values()->Get(v);
      Tensor& out = pn.outputs[k];
      if (val->kind() == fb::ValueKind::Tensor) {
        TIR_ASSIGN_OR_RETURN(auto want, value_sizes(*val, plan->symbols));
        // A fused producer's output may be reshaped on its way to the group's last value.
        const bool same_shape =
            fused && k == 0
                ? make_tensor(out.dtype, want, nullptr).numel() == out.numel()
                : std::equal(want.begin(), want.end(), out.shape().begin(), out.shape().end());
        if (out.dtype != ir::to_dtype(val->dtype()) || !same_shape)
          return make_error(StatusCode::kInternal, node_context(n), ": kernel computes output ", k,
                            " as ", dtype_name(out.dtype), shape_str(out.shape()),
                            " but the program records ", dtype_name(ir::to_dtype(val->dtype())),
                            shape_str(want));
        if (k == 0 && pn.call.channels_last) {  // the kernel wrote channels-last strides
          if (!out.is_channels_last() ||
              !std::equal(want.begin(), want.end(), out.shape().begin(), out.shape().end()))
            return make_error(StatusCode::kInternal, node_context(n),
                              ": kernel ignored the channels-last layout");
          plan->values[v] = out;
          first[v] = last[v] = static_cast<int32_t>(i);
          continue;
        }
        if (fused && k == 0) {
          out.set_contiguous_strides();
          plan->values[v] = make_tensor(out.dtype, want, nullptr);
          first[v] = last[v] = static_cast<int32_t>(i);
          continue;
        }
      }
      out.set_contiguous_strides();
      plan->values[v] = out;
      const int alias = pn.info.output_alias[k];
      if (alias >= 0) {
        if (size_t(alias) >= pn.inputs.size() || out.nbytes() > pn.inputs[alias].nbytes())
          return make_error(StatusCode::kInternal, node_context(n), ": bad output alias");
        root[v] = root[pn.in_values[alias]];
      } else {
        first[v] = static_cast<int32_t>(i);
        last[v] = static_cast<int32_t>(i);
      }
    }
    for (int32_t v : pn.in_values) last[root[v]] = std::max(last[root[v]], int32_t(i));
    if (pn.info.scratch_bytes > 0) {
      scratch_request[i] = requests.size();
      requests.push_back({pn.info.scratch_bytes, int32_t(i), int32_t(i)});
    }
  }
  const int32_t end = static_cast<int32_t>(nodes_.size());
  if (method_.outputs())
    for (int32_t v : *method_.outputs()) last[root[v]] = end;
  if (method_.mutations())
    for (const fb::BufferMutation* mu : *method_.mutations()) last[root[mu->value()]] = end;

  std::vector<int32_t> request_value(requests.size(), -1);
  for (size_t v = 0; v < nvalues; ++v) {
    if (first[v] < 0 || root[v] != int32_t(v)) continue;
    request_value.push_back(int32_t(v));
    requests.push_back({plan->values[v].nbytes(), first[v], last[v]});
  }
  const MemoryPlan mp = plan_memory(requests);
  plan->arena_bytes = mp.arena_bytes;
  plan->arena.reset(
      static_cast<uint8_t*>(std::aligned_alloc(kArenaAlignment, mp.arena_bytes + kArenaAlignment)));
  if (!plan->arena)
    return make_error(StatusCode::kInternal, "cannot allocate ", mp.arena_bytes, " bytes");
  for (size_t r = 0; r < requests.size(); ++r)
    if (request_value[r] >= 0)
      plan->value_data[request_value[r]] = plan->arena.get() + mp.offsets[r];
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (scratch_request[i] != SIZE_MAX)
      plan->nodes[i].scratch_offset = mp.offsets[scratch_request[i]];
  return plan;
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

Result<Plan*> MethodExecutor::plan_for(std::span<const Tensor> inputs) {
  TIR_ASSIGN_OR_RETURN(auto symbols, bind_symbols(method_, inputs));
  if (Plan* cached = find_plan(symbols)) return cached;
  TIR_ASSIGN_OR_RETURN(auto plan, build_plan(std::move(symbols), inputs));
  plans_.push_front(std::move(plan));
  while (plans_.size() > max_plans_) plans_.pop_back();
  return plans_.front().get();
}

Result<std::span<const Tensor>> MethodExecutor::run(std::span<const Tensor> inputs) {
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].data == nullptr && inputs[k].nbytes() > 0)
      return make_error(StatusCode::kInvalidArgument, "input '",
                        ir::str(method_.values()->Get(method_.inputs()->Get(k))->name()),
                        "' has no data");
    if (!inputs[k].is_contiguous())
      return make_error(StatusCode::kUnsupported, "input ", k, " is not contiguous");
  }
  TIR_ASSIGN_OR_RETURN(Plan * plan, plan_for(inputs));
  return execute(plan, inputs);
}

Status MethodExecutor::prepare_subgraph(std::span<const int64_t> symbols,
                                        std::span<const Tensor> inputs) {
  const size_t ninputs = method_.inputs() ? method_.inputs()->size() : 0;
  if (inputs.size() != ninputs)
    return make_error(StatusCode::kInternal, "subgraph '", ir::str(method_.name()), "' takes ",
                      ninputs, " inputs, got ", inputs.size());
  for (size_t k = 0; k < ninputs; ++k) {
    const fb::Value& v = *method_.values()->Get(method_.inputs()->Get(k));
    TIR_ASSIGN_OR_RETURN(auto want, value_sizes(v, symbols));
    if (inputs[k].dtype != ir::to_dtype(v.dtype()) ||
        !std::equal(want.begin(), want.end(), inputs[k].shape().begin(), inputs[k].shape().end()))
      return make_error(StatusCode::kInternal, "subgraph '", ir::str(method_.name()), "' input '",
                        ir::str(v.name()), "' is ", dtype_name(inputs[k].dtype),
                        shape_str(inputs[k].shape()), ", the program records ",
                        dtype_name(ir::to_dtype(v.dtype())), shape_str(want));
  }
  if (find_plan(symbols)) return ok_status();
  TIR_ASSIGN_OR_RETURN(auto plan,
                       build_plan(std::vector<int64_t>(symbols.begin(), symbols.end()), inputs));
  plans_.push_front(std::move(plan));
  while (plans_.size() > max_plans_) plans_.pop_back();
  return ok_status();
}

Result<std::span<const Tensor>> MethodExecutor::run_subgraph(std::span<const int64_t> symbols,
                                                             std::span<const Tensor> inputs) {
  Plan* plan = find_plan(symbols);
  if (!plan)
    return make_error(StatusCode::kInternal, "subgraph '", ir::str(method_.name()),
                      "' was not prepared for this binding");
  return execute(plan, inputs);
}

Result<std::span<const Tensor>> MethodExecutor::execute(Plan* plan,
                                                        std::span<const Tensor> inputs) {
  if (plan->bind_count != bind_count_) TIR_RETURN_IF_ERROR(refresh_weights(*plan));
  std::vector<void*>& data = plan->value_data;
  for (size_t k = 0; k < inputs.size(); ++k) data[method_.inputs()->Get(k)] = inputs[k].data;
  uint8_t* arena = plan->arena.get();
  for (size_t i = 0; i < plan->nodes.size(); ++i) {
    PlanNode& pn = plan->nodes[i];
    if (!pn.kernel) continue;  // absorbed by a fused producer
    for (size_t s = 0; s < pn.inputs.size(); ++s) pn.inputs[s].data = data[pn.in_values[s]];
    for (size_t k = 0; k < pn.outputs.size(); ++k) {
      const int alias = pn.info.output_alias[k];
      if (alias >= 0) data[pn.out_values[k]] = pn.inputs[alias].data;
      pn.outputs[k].data = data[pn.out_values[k]];
    }
    ++kernel_calls_;
    const auto t0 = profiler_ ? Profiler::Clock::now() : Profiler::Clock::time_point{};
    Status s = pn.kernel->run(pn.call, arena + pn.scratch_offset);
    if (profiler_) [[unlikely]] {
      const fb::Node& n = *nodes_[i].node;
      const std::string_view op =
          nodes_[i].fused_label.empty() ? ir::str(n.op()) : nodes_[i].fused_label;
      profiler_->record(ir::str(n.name()), op, ir::str(n.module_path()), int32_t(i), t0,
                        Profiler::Clock::now(), pn.outputs);
    }
    if (!s.ok()) return s;  // kernels name node and op (kernels/kernel_util.h op_error)
  }
  for (const auto& [v, buffer] : write_back_)  // what the program wrote to its buffers
    if (data[v] != buffer->data) std::memmove(buffer->data, data[v], buffer->nbytes());
  outputs_.clear();
  if (method_.outputs()) {
    for (int32_t v : *method_.outputs()) {
      Tensor t = plan->values[v];
      t.data = data[v];
      outputs_.push_back(t);
    }
  }
  return std::span<const Tensor>(outputs_);
}

size_t MethodExecutor::arena_bytes() const {
  return plans_.empty() ? 0 : plans_.front()->arena_bytes;
}

}  // namespace tir
