#include "runtime/passes/fusion.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

#include "kernels/epilogue.h"
#include "kernels/ops/activation_ops.h"

namespace tir {

using kernels::ArgKind;
using kernels::ops::UnaryKind;

namespace {

using Ops = std::initializer_list<std::string_view>;

// Every op the patterns match, by the role it plays: the pass's one table of op names.
const Ops kGemmProducers = {"aten::linear", "aten::addmm", "aten::mm"};
const Ops kConvProducers = {"aten::convolution", "aten::conv2d", "aten::conv3d"};
const Ops kReshapes = {"aten::view", "aten::_unsafe_view", "aten::reshape"};
// The pieces of decomposed activations (NewGELU, core-IR hardswish/hardsigmoid/silu).
const Ops kMulScalar = {"aten::mul.Tensor", "aten::mul.Scalar"};
const Ops kMulTensor = {"aten::mul.Tensor"};
const Ops kAddScalar = {"aten::add.Tensor", "aten::add.Scalar"};
const Ops kAddTensor = {"aten::add.Tensor"};
const Ops kDivScalar = {"aten::div.Tensor", "aten::div.Scalar"};
const Ops kPowScalar = {"aten::pow.Tensor_Scalar"};
const Ops kTanh = {"aten::tanh"};
const Ops kSigmoid = {"aten::sigmoid"};
const Ops kClamp = {"aten::clamp"};
const Ops kHardtanh = {"aten::hardtanh"};
// Eval batch norms: (input, weight, bias, mean, var, training, momentum, eps, cudnn_enabled)
// and (input, weight, bias, mean, var, momentum, eps).
const Ops kBatchNorm = {"aten::batch_norm"};
const Ops kBatchNormNoTraining = {"aten::_native_batch_norm_legit_no_training"};
// The residual add after a conv (+ batch norm).
const Ops kResidualAdd = {"aten::add.Tensor", "aten::add_.Tensor"};
const Ops kResidualAddInPlace = {"aten::add_.Tensor"};

/// Read-only helpers over a graph's nodes and values (before fusion changed anything).
class Graph {
 public:
  Graph(const ExecGraph& g, const DefUse& du) : g_(g), du_(du) {}

  size_t num_nodes() const { return g_.nodes.size(); }
  const ExecNode& node(int32_t i) const { return g_.nodes[i]; }
  std::string_view op(int32_t i) const { return node(i).op; }
  const std::vector<int32_t>& uses(int32_t v) const { return du_.users[v]; }
  /// The node that computes v, or -1 (inputs, weights, constants).
  int32_t producer(int32_t v) const { return du_.producer[v]; }
  bool pinned(int32_t v) const { return du_.pinned[v]; }
  bool is_f32_tensor(int32_t v) const {
    return g_.values[v].is_tensor && g_.values[v].dtype == DType::kFloat32;
  }

  /// Values a and b have the same recorded sizes: equal static sizes, or the same symbolic
  /// expression.
  bool same_sizes(int32_t a, int32_t b) const {
    return same_value_sizes(g_.values[a], g_.values[b]);
  }
  /// Rank of tensor value v (its sizes may be symbolic).
  size_t rank(int32_t v) const {
    const auto* sizes = g_.values[v].ir->sizes();
    return sizes ? sizes->size() : 0;
  }
  /// The result of node i: its only output, or its first when the others (batch norm's
  /// saved statistics) are neither used nor method outputs; -1 otherwise.
  int32_t output(int32_t i) const {
    const auto& outs = node(i).outputs;
    if (outs.empty()) return -1;
    for (size_t k = 1; k < outs.size(); ++k)
      if (!uses(outs[k]).empty() || pinned(outs[k])) return -1;
    return outs[0];
  }
  /// The node that is the only user of v, or -1.
  int32_t sole_user(int32_t v) const { return uses(v).size() == 1 ? uses(v)[0] : -1; }

  /// The tensors node i reads through its arguments, in argument order.
  std::vector<int32_t> tensor_inputs(int32_t i) const {
    std::vector<int32_t> out;
    const ExecNode& n = node(i);
    for (const ExecArg& a : n.args) {
      if (a.kind == ArgKind::kTensor) out.push_back(n.inputs[a.i]);
      if (a.kind == ArgKind::kTensors)
        for (int64_t slot : a.ints)
          if (slot >= 0) out.push_back(n.inputs[slot]);
    }
    return out;
  }
  /// Argument k of node i as a tensor value, or -1.
  int32_t tensor_arg(int32_t i, size_t k) const {
    const ExecArg* a = arg(i, k);
    return a && a->kind == ArgKind::kTensor ? node(i).inputs[a->i] : -1;
  }
  /// Argument k of node i as an int or float scalar; nullopt otherwise (None included).
  std::optional<double> scalar_arg(int32_t i, size_t k) const {
    const ExecArg* a = arg(i, k);
    if (!a || a->symbolic()) return std::nullopt;
    if (a->kind == ArgKind::kFloat) return a->f;
    if (a->kind == ArgKind::kInt) return double(a->i);
    return std::nullopt;
  }
  std::optional<bool> bool_arg(int32_t i, size_t k) const {
    const ExecArg* a = arg(i, k);
    if (!a || a->kind != ArgKind::kBool) return std::nullopt;
    return a->i != 0;
  }
  bool none_arg(int32_t i, size_t k) const {
    const ExecArg* a = arg(i, k);
    return !a || a->kind == ArgKind::kNone;
  }
  std::string_view string_arg(int32_t i, size_t k) const {
    const ExecArg* a = arg(i, k);
    return a && a->kind == ArgKind::kString ? a->s : std::string_view();
  }

 private:
  const ExecArg* arg(int32_t i, size_t k) const {
    const auto& args = node(i).args;
    return k < args.size() ? &args[k] : nullptr;
  }
  const ExecGraph& g_;
  const DefUse& du_;
};

bool near(std::optional<double> got, double want) {
  return got && std::abs(*got - want) <= 1e-6 * std::max(1.0, std::abs(want));
}

bool is_any(std::string_view op, Ops names) {
  return std::find(names.begin(), names.end(), op) != names.end();
}

struct Match {
  UnaryKind activation = UnaryKind::kRelu;  // every matcher sets it
  std::vector<int32_t> nodes;  // the activation's nodes; the last one computes the result
};

/// Node i is `op(x, c)` (or `op(c, x)` when `commutes`) with scalar c == want; for add,
/// alpha (argument 2) must be 1.
bool is_scalar_op(const Graph& g, int32_t i, Ops ops, int32_t x, double want) {
  if (i < 0 || !is_any(g.op(i), ops) || g.tensor_arg(i, 0) != x || !near(g.scalar_arg(i, 1), want))
    return false;
  return !is_any(g.op(i), kAddScalar) || g.none_arg(i, 2) || near(g.scalar_arg(i, 2), 1.0);
}

/// `a * b` of the two values in either order.
bool is_product(const Graph& g, int32_t i, int32_t a, int32_t b) {
  if (i < 0 || !is_any(g.op(i), kMulTensor)) return false;
  const int32_t l = g.tensor_arg(i, 0), r = g.tensor_arg(i, 1);
  return (l == a && r == b) || (l == b && r == a);
}

/// clamp(v, 0, 6), clamp(clamp(v, 0), None, 6) or hardtanh(v, 0, 6): appends the nodes and
/// returns the clamped value, or -1.
int32_t match_relu6(const Graph& g, int32_t v, std::vector<int32_t>& nodes) {
  int32_t c = g.sole_user(v);
  if (c < 0) return -1;
  if (is_any(g.op(c), kHardtanh) && g.tensor_arg(c, 0) == v && near(g.scalar_arg(c, 1), 0) &&
      near(g.scalar_arg(c, 2), 6)) {
    nodes.push_back(c);
    return g.output(c);
  }
  if (!is_any(g.op(c), kClamp) || g.tensor_arg(c, 0) != v || !near(g.scalar_arg(c, 1), 0))
    return -1;
  nodes.push_back(c);
  if (near(g.scalar_arg(c, 2), 6)) return g.output(c);
  if (!g.none_arg(c, 2)) return -1;
  const int32_t lo = g.output(c);
  const int32_t c2 = g.sole_user(lo);
  if (c2 < 0 || !is_any(g.op(c2), kClamp) || g.tensor_arg(c2, 0) != lo || !g.none_arg(c2, 1) ||
      !near(g.scalar_arg(c2, 2), 6))
    return -1;
  nodes.push_back(c2);
  return g.output(c2);
}

/// One ATen activation node applied to x.
std::optional<Match> match_single(const Graph& g, int32_t x) {
  const int32_t u = g.sole_user(x);
  if (u < 0 || g.tensor_arg(u, 0) != x) return std::nullopt;
  // One table of activation ops (kernels/ops/activation_ops.h); gelu by its `approximate`.
  const std::string_view op = g.op(u);
  const bool gelu = op == "aten::gelu" || op == "aten::gelu_";
  const kernels::ops::ActivationOp* act =
      kernels::ops::activation_of(op, gelu ? g.string_arg(u, 1) : "");
  if (!act) return std::nullopt;
  return Match{act->kind, {u}};
}

/// HF NewGELU / gelu_new, as exported (training and core IR alike):
///   a = x*0.5; b = pow(x, 3); c = b*0.044715; d = x + c; e = d*sqrt(2/pi); f = tanh(e);
///   h = f + 1; out = a*h
std::optional<Match> match_new_gelu(const Graph& g, int32_t x) {
  const auto& users = g.uses(x);
  if (users.size() != 3) return std::nullopt;
  int32_t a = -1, b = -1;
  for (int32_t u : users) {
    if (is_scalar_op(g, u, kMulScalar, x, 0.5)) a = u;
    if (is_scalar_op(g, u, kPowScalar, x, 3.0)) b = u;
  }
  if (a < 0 || b < 0) return std::nullopt;
  const int32_t c = g.sole_user(g.output(b));
  if (!is_scalar_op(g, c, kMulScalar, g.output(b), 0.044715)) return std::nullopt;
  const int32_t d = g.sole_user(g.output(c));
  if (d < 0 || !is_any(g.op(d), kAddTensor) || !near(g.scalar_arg(d, 2), 1.0) ||
      !((g.tensor_arg(d, 0) == x && g.tensor_arg(d, 1) == g.output(c)) ||
        (g.tensor_arg(d, 1) == x && g.tensor_arg(d, 0) == g.output(c))) ||
      std::find(users.begin(), users.end(), d) == users.end())
    return std::nullopt;
  const int32_t e = g.sole_user(g.output(d));
  if (!is_scalar_op(g, e, kMulScalar, g.output(d), std::sqrt(2.0 / M_PI))) return std::nullopt;
  const int32_t f = g.sole_user(g.output(e));
  if (f < 0 || !is_any(g.op(f), kTanh) || g.tensor_arg(f, 0) != g.output(e)) return std::nullopt;
  const int32_t h = g.sole_user(g.output(f));
  if (!is_scalar_op(g, h, kAddScalar, g.output(f), 1.0)) return std::nullopt;
  const int32_t out = g.sole_user(g.output(h));
  if (!is_product(g, out, g.output(a), g.output(h)) || g.sole_user(g.output(a)) != out)
    return std::nullopt;
  return Match{UnaryKind::kGeluTanh, {a, b, c, d, e, f, h, out}};
}

/// The core IR's silu: x * sigmoid(x).
std::optional<Match> match_silu(const Graph& g, int32_t x) {
  const auto& users = g.uses(x);
  if (users.size() != 2) return std::nullopt;
  for (int32_t s : users) {
    if (!is_any(g.op(s), kSigmoid) || g.tensor_arg(s, 0) != x) continue;
    const int32_t mul = g.sole_user(g.output(s));
    if (is_product(g, mul, x, g.output(s)) &&
        std::find(users.begin(), users.end(), mul) != users.end())
      return Match{UnaryKind::kSilu, {s, mul}};
  }
  return std::nullopt;
}

/// The core IR's decompositions: hardsigmoid = relu6(x + 3) / 6 and
/// hardswish = x * relu6(x + 3) / 6.
std::optional<Match> match_hard(const Graph& g, int32_t x) {
  const auto& users = g.uses(x);
  int32_t add = -1, mul = -1;
  for (int32_t u : users) {
    if (is_scalar_op(g, u, kAddScalar, x, 3.0)) add = u;
    if (is_any(g.op(u), kMulTensor)) mul = u;
  }
  if (add < 0 || users.size() != (mul >= 0 ? 2u : 1u)) return std::nullopt;
  Match m;
  m.nodes.push_back(add);
  const int32_t r6 = match_relu6(g, g.output(add), m.nodes);
  if (r6 < 0) return std::nullopt;
  int32_t v = r6;
  m.activation = UnaryKind::kHardsigmoid;
  if (mul >= 0) {
    if (!is_product(g, mul, x, r6) || g.sole_user(r6) != mul) return std::nullopt;
    m.nodes.push_back(mul);
    v = g.output(mul);
    m.activation = UnaryKind::kHardswish;
  }
  const int32_t div = g.sole_user(v);
  if (!is_scalar_op(g, div, kDivScalar, v, 6.0) || !g.none_arg(div, 2)) return std::nullopt;
  m.nodes.push_back(div);
  return m;
}

/// The eval batch norm that is the sole user of conv output x, when x is batched (N, C, H, W
/// or N, C, D, H, W: the norm's channels are the conv's output channels) and every tensor the norm
/// reads but x is a frozen float32 tensor (or None: weight, bias): the node and its parameters.
std::optional<std::pair<int32_t, FusedBatchNorm>> match_batch_norm(
    const Graph& g, int32_t x, const std::function<bool(int32_t)>& frozen) {
  const int32_t b = g.sole_user(x);
  if (b < 0 || g.tensor_arg(b, 0) != x || (g.rank(x) != 4 && g.rank(x) != 5)) return std::nullopt;
  size_t eps_at = 0;
  if (is_any(g.op(b), kBatchNorm) && g.bool_arg(b, 5) == false)
    eps_at = 7;  // (input, weight, bias, mean, var, training, momentum, eps, cudnn_enabled)
  else if (is_any(g.op(b), kBatchNormNoTraining))
    eps_at = 6;  // (input, weight, bias, mean, var, momentum, eps)
  else
    return std::nullopt;
  const std::optional<double> eps = g.scalar_arg(b, eps_at);
  if (!eps) return std::nullopt;
  FusedBatchNorm bn;
  bn.eps = *eps;
  int32_t* slots[4] = {&bn.weight, &bn.bias, &bn.mean, &bn.var};
  for (size_t k = 0; k < 4; ++k) {
    if (k < 2 && g.none_arg(b, k + 1)) continue;
    const int32_t v = g.tensor_arg(b, k + 1);
    if (v < 0 || !g.is_f32_tensor(v) || !frozen(v)) return std::nullopt;
    *slots[k] = v;
  }
  return std::pair{b, bn};
}

struct Residual {
  int32_t add = -1;       // the aten::add / add_ node
  int32_t identity = -1;  // its other operand
};

/// The residual add that is the sole user of the batched conv (+ norm) result x: x + identity
/// or identity + x, alpha 1, no broadcasting (same recorded sizes), all float32. An in-place
/// add_ writes its self: tir runs it as a new value (later nodes read the add's output), but
/// when self is the identity it fuses only if no later node reads the identity (nothing could
/// tell a written identity from an unwritten one) and the identity is an activation.
std::optional<Residual> match_residual(const Graph& g, int32_t x) {
  const int32_t a = g.sole_user(x);
  if (a < 0 || (g.rank(x) != 4 && g.rank(x) != 5) || !is_any(g.op(a), kResidualAdd))
    return std::nullopt;
  const int32_t l = g.tensor_arg(a, 0), r = g.tensor_arg(a, 1);
  if (l == r || (l != x && r != x)) return std::nullopt;
  const int32_t id = l == x ? r : l;
  const int32_t out = g.output(a);
  if (id < 0 || out < 0 || !g.is_f32_tensor(id) || !g.is_f32_tensor(out) || !g.same_sizes(id, x) ||
      !g.same_sizes(out, x) || !(g.none_arg(a, 2) || near(g.scalar_arg(a, 2), 1.0)))
    return std::nullopt;
  if (is_any(g.op(a), kResidualAddInPlace) && l == id) {
    if (g.producer(id) < 0 || g.pinned(id)) return std::nullopt;
    for (int32_t u : g.uses(id))
      if (u > a) return std::nullopt;
  }
  return Residual{a, id};
}

/// The conv's weight and bias are frozen (its folded copy is computed once, not per run).
bool conv_params_frozen(const Graph& g, int32_t conv, const std::function<bool(int32_t)>& frozen) {
  const int32_t w = g.tensor_arg(conv, 1), b = g.tensor_arg(conv, 2);
  return w >= 0 && frozen(w) && (g.none_arg(conv, 2) || (b >= 0 && frozen(b)));
}

/// Every value the group computes, but its result, is used only inside the group and is
/// not a method output; every tensor the group's nodes read (but the producer's) comes
/// from inside or is one of `params` (a batch norm's); all are float32.
bool self_contained(const Graph& g, const std::vector<int32_t>& group,
                    const std::vector<int32_t>& params) {
  auto inside = [&](int32_t node) {
    return std::find(group.begin(), group.end(), node) != group.end();
  };
  std::vector<int32_t> made;
  for (size_t k = 0; k < group.size(); ++k) {
    const int32_t v = g.output(group[k]);
    if (v < 0 || !g.is_f32_tensor(v)) return false;
    if (k > 0)
      for (int32_t in : g.tensor_inputs(group[k]))
        if (std::find(made.begin(), made.end(), in) == made.end() &&
            std::find(params.begin(), params.end(), in) == params.end())
          return false;
    made.push_back(v);
    if (k + 1 == group.size()) break;
    if (g.pinned(v)) return false;
    for (int32_t u : g.uses(v))
      if (!inside(u)) return false;
  }
  return true;
}

/// The group producer p heads, with the residual add after a conv when `residual` (and one
/// matches); nullopt when none forms.
std::optional<FusedGroup> match_group(const Graph& g, int32_t p, bool residual,
                                      const std::function<bool(int32_t)>& frozen) {
  int32_t x = g.output(p);
  if (x < 0 || !g.is_f32_tensor(x)) return std::nullopt;
  const bool conv = is_any(g.op(p), kConvProducers);
  std::vector<int32_t> group{p};
  // An inference batch norm right after a conv, folded into the conv's weights and bias.
  FusedBatchNorm bn;
  std::vector<int32_t> params;  // tensors the group reads from outside (but the producer's)
  if (conv && conv_params_frozen(g, p, frozen))
    if (auto m = match_batch_norm(g, x, frozen)) {
      bn = m->second;
      for (int32_t v : {bn.weight, bn.bias, bn.mean, bn.var})
        if (v >= 0) params.push_back(v);
      group.push_back(m->first);
      x = g.output(m->first);
      if (x < 0) return std::nullopt;
    }
  // The residual add of ResNet / MobileNetV3 blocks.
  std::optional<Residual> res;
  if (conv && residual) {
    res = match_residual(g, x);
    if (!res) return std::nullopt;
    params.push_back(res->identity);
    group.push_back(res->add);
    x = g.output(res->add);
  }
  // Reshapes of the contiguous GEMM output (GPT-2's Conv1D: addmm, then view to 3-D).
  for (int32_t r = g.sole_user(x);
       !res && r >= 0 && g.tensor_arg(r, 0) == x && is_any(g.op(r), kReshapes);
       r = g.sole_user(x)) {
    group.push_back(r);
    x = g.output(r);
    if (x < 0) return std::nullopt;
  }
  std::optional<Match> m = match_single(g, x);
  if (!m) m = match_new_gelu(g, x);
  if (!m) m = match_hard(g, x);
  if (!m) m = match_silu(g, x);
  if (!m && !bn.present() && !res) return std::nullopt;
  if (m) group.insert(group.end(), m->nodes.begin(), m->nodes.end());
  const int32_t last = group.back();
  // Nodes in topological order: the result is computed by the group's last node.
  std::sort(group.begin() + 1, group.end());
  if (group.back() != last || !self_contained(g, group, params)) return std::nullopt;
  FusedGroup out;
  out.producer = out.position = p;
  if (m) out.activation = m->activation;
  out.batch_norm = bn;
  out.output = g.output(last);
  out.absorbed.assign(group.begin() + 1, group.end());
  if (res) {
    out.residual = res->identity;
    // An identity computed after the conv: run the group at the add instead, if no in-place
    // op in between could change what the conv reads.
    if (g.producer(res->identity) > p) {
      out.position = res->add;
      for (int32_t i = p + 1; i < res->add; ++i)
        if (op_is_inplace(g.op(i)) && std::find(group.begin(), group.end(), i) == group.end())
          return std::nullopt;
    }
  }
  return out;
}

}  // namespace

std::vector<FusedGroup> fusion_find_groups(const ExecGraph& graph, const DefUse& def_use,
                                           const std::function<bool(int32_t)>& accepts,
                                           const std::function<bool(int32_t)>& frozen) {
  std::vector<FusedGroup> groups;
  const Graph g(graph, def_use);
  std::vector<bool> claimed(g.num_nodes(), false);  // absorbed by an earlier group
  for (int32_t p = 0; p < int32_t(g.num_nodes()); ++p) {
    if (claimed[p] || !(is_any(g.op(p), kGemmProducers) || is_any(g.op(p), kConvProducers)) ||
        !accepts(p))
      continue;
    std::optional<FusedGroup> grp;  // with the residual add if one matches, else without
    for (bool residual : {true, false}) {
      grp = match_group(g, p, residual, frozen);
      if (grp && std::none_of(grp->absorbed.begin(), grp->absorbed.end(),
                              [&](int32_t i) { return claimed[i]; }))
        break;
      grp.reset();
    }
    if (!grp) continue;
    for (int32_t i : grp->absorbed) claimed[i] = true;
    groups.push_back(std::move(*grp));
  }
  return groups;
}

size_t fuse_graph(ExecGraph& g) { return fuse_graph(g, exec_graph_def_use(g)); }

size_t fuse_graph(ExecGraph& g, const DefUse& def_use) {
  const auto accepts = [&](int32_t i) {
    const ExecNode& n = g.nodes[i];
    return n.kind == StepKind::kKernel && n.kernel && n.kernel->caps.epilogue;
  };
  const auto frozen = [&](int32_t v) {
    const ExecValue& val = g.values[v];
    return (val.source == fb::ValueSource::Weight || val.source == fb::ValueSource::Constant) &&
           !val.mutated;
  };
  const std::vector<FusedGroup> groups = fusion_find_groups(g, def_use, accepts, frozen);
  for (const FusedGroup& grp : groups) {
    ExecNode& p = g.nodes[grp.producer];
    const auto slot = [&](int32_t v) {
      if (v < 0) return -1;
      p.inputs.push_back(v);
      return int(p.inputs.size() - 1);
    };
    // A folded batch norm's tensors are inputs of the fused node, so a weight swap that
    // changes only them re-prepares the conv, which folds them again.
    if (grp.batch_norm.present())
      p.batch_norm = {slot(grp.batch_norm.weight), slot(grp.batch_norm.bias),
                      slot(grp.batch_norm.mean), slot(grp.batch_norm.var), grp.batch_norm.eps};
    p.residual = slot(grp.residual);
    p.epilogue = grp.activation;
    p.reshaped = !same_value_sizes(g.values[p.outputs[0]], g.values[grp.output]);
    p.outputs[0] = grp.output;
    g.values[grp.output].device = p.device;  // written by the producer, on its device
    p.fused = true;
    p.label = std::string(p.op);
    if (grp.batch_norm.present()) p.label += "+batch_norm";
    if (grp.residual >= 0) p.label += "+add";
    if (grp.activation) p.label += "+" + std::string(kernels::activation_name(*grp.activation));
    for (int32_t i : grp.absorbed) g.nodes[i].dead = true;
    if (grp.position != grp.producer) {  // runs where its residual is ready (an absorbed node)
      const int32_t index = g.nodes[grp.position].index;
      g.nodes[grp.position] = std::move(p);
      g.nodes[grp.position].index = index;
      g.nodes[grp.producer] = ExecNode{};
      g.nodes[grp.producer].dead = true;
    }
  }
  g.num_fused += groups.size();
  return groups.size();
}

}  // namespace tir
