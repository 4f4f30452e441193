#include "runtime/passes/exec_graph.h"

#include <algorithm>
#include <atomic>

namespace tir {

using kernels::ArgKind;

namespace {

std::atomic<uint64_t> lower_count{0};

/// Decodes argument `a` of a node; tensor references become slots of `node.inputs`.
/// Ops whose output size depends on their input's values (data_dependent_dim) get it as a
/// trailing int argument: output 0's dim as declared, bound before the run is planned
/// (runtime/exec/data_dependent.h).
void append_bound_size(const ExecGraph& g, ExecNode& node) {
  const int dim = data_dependent_dim(g, node).dim;
  if (dim < 0 || node.outputs.empty()) return;
  const fb::Value* out = g.values[node.outputs[0]].ir;
  if (!out->sizes() || out->sizes()->size() <= size_t(dim)) return;
  const fb::Dim* rows = out->sizes()->Get(dim);
  ExecArg arg;
  arg.kind = ArgKind::kInt;
  arg.i = rows->value();
  arg.sym = rows->expr();
  node.args.push_back(std::move(arg));
}

ExecArg lower_arg(const fb::Argument& a, ExecNode& node) {
  ExecArg arg;
  const auto add_input = [&](int32_t v) {
    node.inputs.push_back(v);
    return int64_t(node.inputs.size() - 1);
  };
  switch (a.value_type()) {
    case fb::ArgValue::IntArg:
      arg.kind = ArgKind::kInt;
      arg.i = a.value_as_IntArg()->value();
      break;
    case fb::ArgValue::FloatArg:
      arg.kind = ArgKind::kFloat;
      arg.f = a.value_as_FloatArg()->value();
      break;
    case fb::ArgValue::BoolArg:
      arg.kind = ArgKind::kBool;
      arg.i = a.value_as_BoolArg()->value();
      break;
    case fb::ArgValue::IntsArg:
      arg.kind = ArgKind::kInts;
      if (const auto* v = a.value_as_IntsArg()->values()) arg.ints.assign(v->begin(), v->end());
      break;
    case fb::ArgValue::FloatsArg:
      arg.kind = ArgKind::kFloats;
      if (const auto* v = a.value_as_FloatsArg()->values()) arg.floats.assign(v->begin(), v->end());
      break;
    case fb::ArgValue::BoolsArg:
      arg.kind = ArgKind::kBools;
      if (const auto* v = a.value_as_BoolsArg()->values()) arg.ints.assign(v->begin(), v->end());
      break;
    case fb::ArgValue::StringArg:
      arg.kind = ArgKind::kString;
      arg.s = ir::str(a.value_as_StringArg()->value());
      break;
    case fb::ArgValue::TensorArg:
      arg.kind = ArgKind::kTensor;
      arg.i = add_input(a.value_as_TensorArg()->value());
      break;
    case fb::ArgValue::TensorsArg:
      arg.kind = ArgKind::kTensors;
      if (const auto* v = a.value_as_TensorsArg()->values())
        for (int32_t x : *v) arg.ints.push_back(x < 0 ? -1 : add_input(x));
      break;
    case fb::ArgValue::DTypeArg:
      arg.kind = ArgKind::kDType;
      arg.i = int64_t(a.value_as_DTypeArg()->value());
      break;
    case fb::ArgValue::SymIntArg:
      arg.kind = ArgKind::kInt;
      arg.sym = a.value_as_SymIntArg()->value();
      break;
    case fb::ArgValue::SymIntsArg:
      arg.kind = ArgKind::kInts;
      if (const auto* v = a.value_as_SymIntsArg()->values())
        for (const fb::SymExpr* e : *v) arg.syms.push_back(e);
      break;
    case fb::ArgValue::MemoryFormatArg:
      arg.kind = ArgKind::kMemoryFormat;
      arg.i = a.value_as_MemoryFormatArg()->value();
      break;
    case fb::ArgValue::LayoutArg:
      arg.kind = ArgKind::kLayout;
      arg.i = a.value_as_LayoutArg()->value();
      break;
    case fb::ArgValue::DeviceArg:
      arg.kind = ArgKind::kDevice;
      arg.s = ir::str(a.value_as_DeviceArg()->type());
      arg.i = a.value_as_DeviceArg()->index();
      break;
    case fb::ArgValue::GraphArg:  // a subgraph index (control flow): the executor's business
      arg.kind = ArgKind::kNone;
      arg.i = a.value_as_GraphArg()->index();
      break;
    default:
      arg.kind = ArgKind::kNone;
      break;
  }
  return arg;
}

/// The name a weight or constant value binds to in SessionState: the weight's name, or the
/// constant's (a non-persistent buffer the program mutates is a constant of the program).
std::string_view state_name(const fb::Model& m, const ExecValue& val) {
  if (val.source == fb::ValueSource::Weight) return ir::str(m.weights()->Get(val.weight)->name());
  return ir::str(m.constants()->Get(val.constant)->name());
}

/// True when weight or constant value `val` is buffer `buffer` (by name or a weight's alias).
bool names_buffer(const fb::Model& m, const ExecValue& val, std::string_view buffer) {
  if (val.source == fb::ValueSource::Constant) return state_name(m, val) == buffer;
  if (val.source != fb::ValueSource::Weight) return false;
  const fb::WeightRef* w = m.weights()->Get(val.weight);
  bool named = ir::str(w->name()) == buffer;
  if (w->aliases())
    for (const flatbuffers::String* a : *w->aliases()) named = named || a->string_view() == buffer;
  return named;
}

/// The weight and constant values `g` writes: targets of in-place ops, and the buffers of its
/// BUFFER_MUTATION outputs (bound by name, aliases included).
void find_state_values(const fb::Model& m, ExecGraph& g) {
  const auto add = [&](int32_t v) {
    ExecValue& val = g.values[v];
    const bool fixed =
        val.source == fb::ValueSource::Weight || val.source == fb::ValueSource::Constant;
    if (!fixed || val.mutated) return;
    val.mutated = true;
    g.state_values.emplace_back(v, state_name(m, val));
  };
  for (const ExecNode& n : g.nodes)
    if (op_is_inplace(n.op) && !n.args.empty() && n.args[0].kind == ArgKind::kTensor)
      add(n.inputs[n.args[0].i]);
  for (const auto& [value, buffer] : g.mutations)
    for (size_t v = 0; v < g.values.size(); ++v)
      if (names_buffer(m, g.values[v], buffer)) add(int32_t(v));
}

}  // namespace

bool op_is_inplace(std::string_view op) {
  const size_t colons = op.find("::");
  std::string_view base = op.substr(colons == std::string_view::npos ? 0 : colons + 2);
  base = base.substr(0, base.find('.'));
  return base.size() > 1 && base.back() == '_' && !base.starts_with("__");
}

std::string node_context(const ExecNode& n) {
  return "node '" + std::string(n.name) + "' (" + std::string(n.op) + ")";
}

int32_t ExecGraph::add_value_like(int32_t v, DeviceId device) {
  ExecValue made = values[v];
  made.source = fb::ValueSource::Activation;
  made.weight = made.constant = -1;
  made.mutated = made.channels_last = false;
  made.device = device;
  values.push_back(made);
  return int32_t(values.size() - 1);
}

bool ExecGraph::pinned(int32_t v) const {
  return std::find(outputs.begin(), outputs.end(), v) != outputs.end() ||
         std::any_of(mutations.begin(), mutations.end(),
                     [&](const auto& m) { return m.first == v; });
}

uint64_t exec_graph_lower_count() { return lower_count.load(std::memory_order_relaxed); }

DefUse exec_graph_def_use(const ExecGraph& g) {
  DefUse du;
  du.producer.assign(g.values.size(), -1);
  du.users.resize(g.values.size());
  du.pinned.assign(g.values.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ExecNode& n = g.nodes[i];
    if (n.dead) continue;
    for (int32_t v : n.inputs) du.users[size_t(v)].push_back(int32_t(i));
    for (int32_t v : n.outputs) du.producer[size_t(v)] = int32_t(i);
  }
  for (int32_t v : g.outputs) du.pinned[size_t(v)] = true;
  for (const auto& m : g.mutations) du.pinned[size_t(m.first)] = true;
  for (const auto& m : g.input_mutations) du.pinned[size_t(m.first)] = true;
  return du;
}

void DefUse::remove_node(int32_t i, const ExecNode& n) {
  for (int32_t v : n.inputs) {
    std::vector<int32_t>& u = users[size_t(v)];
    if (const auto it = std::find(u.begin(), u.end(), i); it != u.end()) u.erase(it);
  }
  for (int32_t v : n.outputs)
    if (producer[size_t(v)] == i) producer[size_t(v)] = -1;
}

void DefUse::add_node(int32_t i, const ExecNode& n) {
  for (int32_t v : n.inputs) {
    std::vector<int32_t>& u = users[size_t(v)];
    u.insert(std::upper_bound(u.begin(), u.end(), i), i);
  }
  for (int32_t v : n.outputs) producer[size_t(v)] = i;
}

Result<ExecGraph> exec_graph_lower(const ir::ModelView& model, const fb::Method& method) {
  lower_count.fetch_add(1, std::memory_order_relaxed);
  ExecGraph g;
  g.method = &method;
  if (method.values())
    for (const fb::Value* v : *method.values()) {
      ExecValue val;
      val.ir = v;
      val.source = v->source();
      val.dtype = ir::to_dtype(v->dtype());
      val.is_tensor = v->kind() == fb::ValueKind::Tensor;
      if (v->source() == fb::ValueSource::Weight) val.weight = v->index();
      if (v->source() == fb::ValueSource::Constant) val.constant = v->index();
      g.values.push_back(val);
    }
  if (method.nodes())
    for (const fb::Node* n : *method.nodes()) {
      ExecNode node;
      node.op = ir::str(n->op());
      node.name = ir::str(n->name());
      node.module_path = ir::str(n->module_path());
      node.index = int32_t(g.nodes.size());
      if (n->args())
        for (const fb::Argument* a : *n->args()) {
          node.args.push_back(lower_arg(*a, node));
          node.args.back().name = ir::str(a->name());  // custom ops' kernels read by name
        }
      if (n->outputs()) node.outputs.assign(n->outputs()->begin(), n->outputs()->end());
      if (node.outputs.size() > size_t(kernels::kMaxOutputs))
        return make_error(StatusCode::kUnsupported, node_context(node), ": more than ",
                          kernels::kMaxOutputs, " outputs");
      append_bound_size(g, node);
      if (ir::is_control_flow_op(node.op)) {
        node.kind = node.op == ir::kCondOp ? StepKind::kCond : StepKind::kLoop;
        const size_t first = node.op == ir::kCondOp ? 1 : 0;  // cond's pred comes first
        const size_t count = node.op == ir::kCondOp || node.op == ir::kWhileLoopOp ? 2 : 1;
        for (size_t b = 0; b < count; ++b) {
          const fb::Argument* a =
              n->args() && n->args()->size() > first + b ? n->args()->Get(first + b) : nullptr;
          if (!a || a->value_type() != fb::ArgValue::GraphArg)
            return make_error(StatusCode::kInvalidArgument, node_context(node), ": argument ",
                              first + b, " is not a subgraph");
          node.branches[b] = a->value_as_GraphArg()->index();
        }
      }
      g.nodes.push_back(std::move(node));
    }
  if (method.inputs()) g.inputs.assign(method.inputs()->begin(), method.inputs()->end());
  if (method.outputs()) g.outputs.assign(method.outputs()->begin(), method.outputs()->end());
  if (method.mutations())
    for (const fb::BufferMutation* mu : *method.mutations())
      g.mutations.emplace_back(mu->value(), ir::str(mu->buffer()));
  if (method.input_mutations())
    for (const fb::InputMutation* mu : *method.input_mutations())
      g.input_mutations.emplace_back(mu->value(), mu->input());
  find_state_values(model.model(), g);
  return g;
}

ExecNode exec_graph_cast_node(const ExecGraph& g, int32_t from, int32_t to, DType dtype) {
  ExecNode c;
  c.op = "aten::_to_copy";
  c.name = ir::str(g.values[from].ir->name());
  c.device = g.values[from].device;
  ExecArg self;
  self.kind = kernels::ArgKind::kTensor;
  self.i = 0;
  self.name = "self";
  ExecArg d;
  d.kind = kernels::ArgKind::kDType;
  d.i = int64_t(dtype);
  d.name = "dtype";
  c.args = {self, d};
  c.inputs = {from};
  c.outputs = {to};
  return c;
}

DType exec_node_key_dtype(const ExecGraph& g, const ExecNode& n) {
  for (const ExecArg& a : n.args) {
    if (a.kind == ArgKind::kTensor) return g.values[n.inputs[a.i]].dtype;
    if (a.kind == ArgKind::kTensors)
      for (int64_t slot : a.ints)
        if (slot >= 0) return g.values[n.inputs[slot]].dtype;
  }
  if (!n.outputs.empty()) return g.values[n.outputs[0]].dtype;
  return DType::kUndefined;
}

bool same_declared_dim(const fb::Dim& a, const fb::Dim& b) {
  if (bool(a.expr()) != bool(b.expr())) return false;
  if (!a.expr()) return a.value() == b.value();
  const auto* ta = a.expr()->terms();
  const auto* tb = b.expr()->terms();
  if (!ta || !tb || ta->size() != tb->size()) return false;
  for (size_t k = 0; k < ta->size(); ++k)
    if (ta->Get(k)->op() != tb->Get(k)->op() || ta->Get(k)->value() != tb->Get(k)->value())
      return false;
  return true;
}

bool same_declared_sizes(const fb::Value& a, const fb::Value& b) {
  const auto* sa = a.sizes();
  const auto* sb = b.sizes();
  if (!sa || !sb || sa->size() != sb->size()) return false;
  for (size_t k = 0; k < sa->size(); ++k)
    if (!same_declared_dim(*sa->Get(k), *sb->Get(k))) return false;
  return true;
}

bool same_value_sizes(const ExecValue& a, const ExecValue& b) {
  return a.last_position_dim == b.last_position_dim && same_declared_sizes(*a.ir, *b.ir);
}

void exec_graph_remove_dead(ExecGraph& g) {
  std::erase_if(g.nodes, [](const ExecNode& n) { return n.dead; });
}

namespace {

DataDependentDim mask_index_dim(const ExecGraph& g, const ExecNode& node) {
  if (node.args.size() < 2 || node.args[1].kind != ArgKind::kTensors) return {};
  DataDependentDim m;
  int dim = 0, tensors = 0;
  for (int64_t in : node.args[1].ints) {
    if (in < 0) {  // None: self's dim passes through
      ++dim;
      continue;
    }
    ++tensors;
    const int32_t v = node.inputs[size_t(in)];
    const DType t = ir::to_dtype(g.values[v].ir->dtype());
    if ((t == DType::kBool || t == DType::kUInt8) && m.source < 0) m = {dim, v};
  }
  return tensors == 1 ? m : DataDependentDim{};
}

/// repeat_interleave.self_Tensor(self, repeats, dim?) repeats along dim (0 of the flattened
/// self when None); .Tensor(repeats) makes a 1-D output.
DataDependentDim repeat_dim(const ExecGraph& g, const ExecNode& node) {
  const bool indices = node.op == "aten::repeat_interleave.Tensor";
  const size_t r = indices ? 0 : 1;
  if (node.args.size() <= r || node.args[r].kind != ArgKind::kTensor || node.outputs.empty())
    return {};
  int dim = 0;
  if (!indices && node.args.size() > 2 && node.args[2].kind == ArgKind::kInt) {
    const fb::Value* out = g.values[node.outputs[0]].ir;
    const int rank = out->sizes() ? int(out->sizes()->size()) : 0;
    dim = int(node.args[2].i < 0 ? node.args[2].i + rank : node.args[2].i);
    if (dim < 0 || dim >= rank) return {};
  }
  return {dim, node.inputs[size_t(node.args[r].i)]};
}

}  // namespace

DataDependentDim data_dependent_dim(const ExecGraph& g, const ExecNode& node) {
  if ((node.op == "aten::nonzero" || node.op == "aten::_unique2" || node.op == "aten::bincount") &&
      !node.inputs.empty())
    return {0, node.inputs[0]};
  if (node.op == "aten::masked_select" && node.inputs.size() >= 2) return {0, node.inputs[1]};
  if (node.op == "aten::index.Tensor") return mask_index_dim(g, node);
  if (node.op == "aten::repeat_interleave.self_Tensor" ||
      node.op == "aten::repeat_interleave.Tensor")
    return repeat_dim(g, node);
  return {};
}

}  // namespace tir
