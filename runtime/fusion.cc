#include "runtime/fusion.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

namespace tir {

namespace fb = ir::fb;
using kernels::Activation;

namespace {

constexpr std::string_view kProducers[] = {"aten::linear", "aten::addmm", "aten::mm",
                                           "aten::convolution", "aten::conv2d"};
constexpr std::string_view kReshapes[] = {"aten::view", "aten::_unsafe_view", "aten::reshape"};

/// Read-only helpers over one method's nodes and values.
class Graph {
 public:
  explicit Graph(const fb::Method& m) : m_(m) {
    const size_t nvalues = m.values() ? m.values()->size() : 0;
    uses_.resize(nvalues);
    pinned_.assign(nvalues, false);
    const size_t nnodes = m.nodes() ? m.nodes()->size() : 0;
    for (size_t i = 0; i < nnodes; ++i)
      for (int32_t v : tensor_inputs(int32_t(i))) uses_[v].push_back(int32_t(i));
    if (m.outputs())
      for (int32_t v : *m.outputs()) pinned_[v] = true;
    if (m.mutations())
      for (const fb::BufferMutation* mu : *m.mutations()) pinned_[mu->value()] = true;
  }

  size_t num_nodes() const { return m_.nodes() ? m_.nodes()->size() : 0; }
  const fb::Node& node(int32_t i) const { return *m_.nodes()->Get(i); }
  std::string_view op(int32_t i) const { return ir::str(node(i).op()); }
  const std::vector<int32_t>& uses(int32_t v) const { return uses_[v]; }
  bool pinned(int32_t v) const { return pinned_[v]; }
  bool is_f32_tensor(int32_t v) const {
    const fb::Value* val = m_.values()->Get(v);
    return val->kind() == fb::ValueKind::Tensor && val->dtype() == fb::DType::Float32;
  }

  /// The single output of node i, or -1.
  int32_t output(int32_t i) const {
    const auto* outs = node(i).outputs();
    return outs && outs->size() == 1 ? outs->Get(0) : -1;
  }
  /// The node that is the only user of v, or -1.
  int32_t sole_user(int32_t v) const { return uses_[v].size() == 1 ? uses_[v][0] : -1; }

  std::vector<int32_t> tensor_inputs(int32_t i) const {
    std::vector<int32_t> out;
    if (const auto* args = node(i).args())
      for (const fb::Argument* a : *args) {
        if (a->value_type() == fb::ArgValue::TensorArg)
          out.push_back(a->value_as_TensorArg()->value());
        if (a->value_type() == fb::ArgValue::TensorsArg && a->value_as_TensorsArg()->values())
          for (int32_t v : *a->value_as_TensorsArg()->values())
            if (v >= 0) out.push_back(v);
      }
    return out;
  }
  /// Argument k of node i as a tensor value, or -1.
  int32_t tensor_arg(int32_t i, size_t k) const {
    const fb::Argument* a = arg(i, k);
    return a && a->value_type() == fb::ArgValue::TensorArg ? a->value_as_TensorArg()->value() : -1;
  }
  /// Argument k of node i as an int or float scalar; nullopt otherwise (None included).
  std::optional<double> scalar_arg(int32_t i, size_t k) const {
    const fb::Argument* a = arg(i, k);
    if (!a) return std::nullopt;
    if (a->value_type() == fb::ArgValue::FloatArg) return a->value_as_FloatArg()->value();
    if (a->value_type() == fb::ArgValue::IntArg) return double(a->value_as_IntArg()->value());
    return std::nullopt;
  }
  bool none_arg(int32_t i, size_t k) const {
    const fb::Argument* a = arg(i, k);
    return !a || a->value_type() == fb::ArgValue::NONE || a->value_type() == fb::ArgValue::NoneArg;
  }
  std::string_view string_arg(int32_t i, size_t k) const {
    const fb::Argument* a = arg(i, k);
    return a && a->value_type() == fb::ArgValue::StringArg
               ? ir::str(a->value_as_StringArg()->value())
               : std::string_view();
  }

 private:
  const fb::Argument* arg(int32_t i, size_t k) const {
    const auto* args = node(i).args();
    return args && k < args->size() ? args->Get(k) : nullptr;
  }
  const fb::Method& m_;
  std::vector<std::vector<int32_t>> uses_;
  std::vector<bool> pinned_;
};

bool near(std::optional<double> got, double want) {
  return got && std::abs(*got - want) <= 1e-6 * std::max(1.0, std::abs(want));
}

bool is_any(std::string_view op, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), op) != names.end();
}

struct Match {
  Activation activation = Activation::kNone;
  std::vector<int32_t> nodes;  // the activation's nodes; the last one computes the result
};

/// Node i is `op(x, c)` (or `op(c, x)` when `commutes`) with scalar c == want; for add,
/// alpha (argument 2) must be 1.
bool is_scalar_op(const Graph& g, int32_t i, std::initializer_list<std::string_view> ops, int32_t x,
                  double want) {
  if (i < 0 || !is_any(g.op(i), ops) || g.tensor_arg(i, 0) != x || !near(g.scalar_arg(i, 1), want))
    return false;
  return !g.op(i).starts_with("aten::add") || g.none_arg(i, 2) || near(g.scalar_arg(i, 2), 1.0);
}

/// `a * b` of the two values in either order.
bool is_product(const Graph& g, int32_t i, int32_t a, int32_t b) {
  if (i < 0 || g.op(i) != "aten::mul.Tensor") return false;
  const int32_t l = g.tensor_arg(i, 0), r = g.tensor_arg(i, 1);
  return (l == a && r == b) || (l == b && r == a);
}

/// clamp(v, 0, 6), clamp(clamp(v, 0), None, 6) or hardtanh(v, 0, 6): appends the nodes and
/// returns the clamped value, or -1.
int32_t match_relu6(const Graph& g, int32_t v, std::vector<int32_t>& nodes) {
  int32_t c = g.sole_user(v);
  if (c < 0) return -1;
  if (g.op(c) == "aten::hardtanh" && g.tensor_arg(c, 0) == v && near(g.scalar_arg(c, 1), 0) &&
      near(g.scalar_arg(c, 2), 6)) {
    nodes.push_back(c);
    return g.output(c);
  }
  if (g.op(c) != "aten::clamp" || g.tensor_arg(c, 0) != v || !near(g.scalar_arg(c, 1), 0))
    return -1;
  nodes.push_back(c);
  if (near(g.scalar_arg(c, 2), 6)) return g.output(c);
  if (!g.none_arg(c, 2)) return -1;
  const int32_t lo = g.output(c);
  const int32_t c2 = g.sole_user(lo);
  if (c2 < 0 || g.op(c2) != "aten::clamp" || g.tensor_arg(c2, 0) != lo || !g.none_arg(c2, 1) ||
      !near(g.scalar_arg(c2, 2), 6))
    return -1;
  nodes.push_back(c2);
  return g.output(c2);
}

/// One ATen activation node applied to x.
std::optional<Match> match_single(const Graph& g, int32_t x) {
  const int32_t u = g.sole_user(x);
  if (u < 0 || g.tensor_arg(u, 0) != x) return std::nullopt;
  const std::string_view op = g.op(u);
  Activation act = Activation::kNone;
  if (is_any(op, {"aten::relu", "aten::relu_"})) act = Activation::kRelu;
  if (is_any(op, {"aten::hardswish", "aten::hardswish_"})) act = Activation::kHardswish;
  if (is_any(op, {"aten::hardsigmoid", "aten::hardsigmoid_"})) act = Activation::kHardsigmoid;
  if (is_any(op, {"aten::silu", "aten::silu_"})) act = Activation::kSilu;
  if (is_any(op, {"aten::sigmoid", "aten::sigmoid_"})) act = Activation::kSigmoid;
  if (is_any(op, {"aten::tanh", "aten::tanh_"})) act = Activation::kTanh;
  if (is_any(op, {"aten::gelu", "aten::gelu_"})) {
    const std::string_view approx = g.string_arg(u, 1);
    if (approx.empty() || approx == "none") act = Activation::kGeluErf;
    if (approx == "tanh") act = Activation::kGeluTanh;
  }
  if (act == Activation::kNone) return std::nullopt;
  return Match{act, {u}};
}

/// HF NewGELU / gelu_new, as exported (training and core IR alike):
///   a = x*0.5; b = pow(x, 3); c = b*0.044715; d = x + c; e = d*sqrt(2/pi); f = tanh(e);
///   h = f + 1; out = a*h
std::optional<Match> match_new_gelu(const Graph& g, int32_t x) {
  const auto& users = g.uses(x);
  if (users.size() != 3) return std::nullopt;
  int32_t a = -1, b = -1;
  for (int32_t u : users) {
    if (is_scalar_op(g, u, {"aten::mul.Tensor", "aten::mul.Scalar"}, x, 0.5)) a = u;
    if (is_scalar_op(g, u, {"aten::pow.Tensor_Scalar"}, x, 3.0)) b = u;
  }
  if (a < 0 || b < 0) return std::nullopt;
  const int32_t c = g.sole_user(g.output(b));
  if (!is_scalar_op(g, c, {"aten::mul.Tensor", "aten::mul.Scalar"}, g.output(b), 0.044715))
    return std::nullopt;
  const int32_t d = g.sole_user(g.output(c));
  if (d < 0 || g.op(d) != "aten::add.Tensor" || !near(g.scalar_arg(d, 2), 1.0) ||
      !((g.tensor_arg(d, 0) == x && g.tensor_arg(d, 1) == g.output(c)) ||
        (g.tensor_arg(d, 1) == x && g.tensor_arg(d, 0) == g.output(c))) ||
      std::find(users.begin(), users.end(), d) == users.end())
    return std::nullopt;
  const int32_t e = g.sole_user(g.output(d));
  if (!is_scalar_op(g, e, {"aten::mul.Tensor", "aten::mul.Scalar"}, g.output(d),
                    std::sqrt(2.0 / M_PI)))
    return std::nullopt;
  const int32_t f = g.sole_user(g.output(e));
  if (f < 0 || g.op(f) != "aten::tanh" || g.tensor_arg(f, 0) != g.output(e)) return std::nullopt;
  const int32_t h = g.sole_user(g.output(f));
  if (!is_scalar_op(g, h, {"aten::add.Tensor", "aten::add.Scalar"}, g.output(f), 1.0))
    return std::nullopt;
  const int32_t out = g.sole_user(g.output(h));
  if (!is_product(g, out, g.output(a), g.output(h)) || g.sole_user(g.output(a)) != out)
    return std::nullopt;
  return Match{Activation::kGeluTanh, {a, b, c, d, e, f, h, out}};
}

/// The core IR's silu: x * sigmoid(x).
std::optional<Match> match_silu(const Graph& g, int32_t x) {
  const auto& users = g.uses(x);
  if (users.size() != 2) return std::nullopt;
  for (int32_t s : users) {
    if (g.op(s) != "aten::sigmoid" || g.tensor_arg(s, 0) != x) continue;
    const int32_t mul = g.sole_user(g.output(s));
    if (is_product(g, mul, x, g.output(s)) &&
        std::find(users.begin(), users.end(), mul) != users.end())
      return Match{Activation::kSilu, {s, mul}};
  }
  return std::nullopt;
}

/// The core IR's decompositions: hardsigmoid = relu6(x + 3) / 6 and
/// hardswish = x * relu6(x + 3) / 6.
std::optional<Match> match_hard(const Graph& g, int32_t x) {
  const auto& users = g.uses(x);
  int32_t add = -1, mul = -1;
  for (int32_t u : users) {
    if (is_scalar_op(g, u, {"aten::add.Tensor", "aten::add.Scalar"}, x, 3.0)) add = u;
    if (g.op(u) == "aten::mul.Tensor") mul = u;
  }
  if (add < 0 || users.size() != (mul >= 0 ? 2u : 1u)) return std::nullopt;
  Match m;
  m.nodes.push_back(add);
  const int32_t r6 = match_relu6(g, g.output(add), m.nodes);
  if (r6 < 0) return std::nullopt;
  int32_t v = r6;
  m.activation = Activation::kHardsigmoid;
  if (mul >= 0) {
    if (!is_product(g, mul, x, r6) || g.sole_user(r6) != mul) return std::nullopt;
    m.nodes.push_back(mul);
    v = g.output(mul);
    m.activation = Activation::kHardswish;
  }
  const int32_t div = g.sole_user(v);
  if (!is_scalar_op(g, div, {"aten::div.Tensor", "aten::div.Scalar"}, v, 6.0) ||
      !g.none_arg(div, 2))
    return std::nullopt;
  m.nodes.push_back(div);
  return m;
}

/// Every value the group computes, but its result, is used only inside the group and is
/// not a method output; every tensor the group's nodes read (but the producer's) comes
/// from inside; all are float32.
bool self_contained(const Graph& g, const std::vector<int32_t>& group) {
  auto inside = [&](int32_t node) {
    return std::find(group.begin(), group.end(), node) != group.end();
  };
  std::vector<int32_t> made;
  for (size_t k = 0; k < group.size(); ++k) {
    const int32_t v = g.output(group[k]);
    if (v < 0 || !g.is_f32_tensor(v)) return false;
    if (k > 0)
      for (int32_t in : g.tensor_inputs(group[k]))
        if (std::find(made.begin(), made.end(), in) == made.end()) return false;
    made.push_back(v);
    if (k + 1 == group.size()) break;
    if (g.pinned(v)) return false;
    for (int32_t u : g.uses(v))
      if (!inside(u)) return false;
  }
  return true;
}

}  // namespace

std::vector<FusedGroup> fusion_find_groups(const fb::Method& method,
                                           const std::function<bool(int32_t)>& accepts) {
  std::vector<FusedGroup> groups;
  const Graph g(method);
  for (int32_t p = 0; p < int32_t(g.num_nodes()); ++p) {
    if (!is_any(g.op(p),
                {kProducers[0], kProducers[1], kProducers[2], kProducers[3], kProducers[4]}))
      continue;
    int32_t x = g.output(p);
    if (x < 0 || !g.is_f32_tensor(x)) continue;
    std::vector<int32_t> group{p};
    // Reshapes of the contiguous GEMM output (GPT-2's Conv1D: addmm, then view to 3-D).
    for (int32_t r = g.sole_user(x); r >= 0 && g.tensor_arg(r, 0) == x &&
                                     is_any(g.op(r), {kReshapes[0], kReshapes[1], kReshapes[2]});
         r = g.sole_user(x)) {
      group.push_back(r);
      x = g.output(r);
      if (x < 0) break;
    }
    if (x < 0) continue;
    std::optional<Match> m = match_single(g, x);
    if (!m) m = match_new_gelu(g, x);
    if (!m) m = match_hard(g, x);
    if (!m) m = match_silu(g, x);
    if (!m) continue;
    group.insert(group.end(), m->nodes.begin(), m->nodes.end());
    // Nodes in topological order: the result is computed by the group's last node.
    std::sort(group.begin() + 1, group.end());
    if (group.back() != m->nodes.back() || !self_contained(g, group) || !accepts(p)) continue;
    groups.push_back({p, m->activation, g.output(group.back()), {group.begin() + 1, group.end()}});
  }
  return groups;
}

}  // namespace tir
