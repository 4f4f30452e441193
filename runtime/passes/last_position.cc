#include "runtime/passes/last_position.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "kernels/ops/catalogue.h"

namespace tir {
namespace {

using kernels::ArgKind;
namespace fb = ir::fb;

int rank_of(const ExecValue& v) { return v.ir->sizes() ? int(v.ir->sizes()->size()) : 0; }

const fb::Dim& dim_of(const ExecValue& v, int d) { return *v.ir->sizes()->Get(size_t(d)); }

bool static_one(const fb::Dim& d) { return !d.expr() && d.value() == 1; }

/// `d` in [0, rank) from a possibly negative dim argument; -1 when out of range.
int wrap(int64_t d, int rank) {
  if (d < 0) d += rank;
  return d >= 0 && d < rank ? int(d) : -1;
}

/// Which dim of each input slot holds output dim `d` of node `n` (-1: the slot is read whole,
/// a weight or a broadcast operand), or nullopt when a position of the output depends on
/// other positions of an input (or the op is not one this pass knows).
using SlotDims = std::vector<int>;

class PositionMap {
 public:
  PositionMap(const ExecGraph& g, const ExecNode& n, int d)
      : g_(g), n_(n), d_(d), slots_(n.inputs.size(), -1) {}

  std::optional<SlotDims> compute() {
    const std::string_view op = n_.op;
    if (n_.kind != StepKind::kKernel || n_.outputs.empty() || op.ends_with(".out"))
      return std::nullopt;
    if (elementwise(op)) return broadcast_all();
    if (same_dim_ops(op)) return self_at(d_);
    if (op == "aten::dropout")  // identity unless training
      return n_.args.size() > 2 && n_.args[2].kind == ArgKind::kBool && n_.args[2].i == 0
                 ? self_at(d_)
                 : std::nullopt;
    if (op == "aten::linear") return d_ < out_rank() - 1 ? self_at(d_) : std::nullopt;
    if (op == "aten::mm") return d_ == 0 ? self_at(0) : std::nullopt;
    if (op == "aten::addmm") return d_ == 0 && broadcast(0) && at(1, 0) ? done() : std::nullopt;
    if (op == "aten::matmul") return matmul();
    if (op == "aten::view" || op == "aten::reshape" || op == "aten::_unsafe_view")
      return sizes_arg_ok() && view_source() >= 0 ? self_at(view_source()) : std::nullopt;
    if (op == "aten::mean.dim" || op == "aten::sum.dim_IntList" || op == "aten::amax" ||
        op == "aten::amin" || op == "aten::logsumexp" || op == "aten::var.correction" ||
        op == "aten::var.dim" || op == "aten::std.correction" || op == "aten::std.dim")
      return reduction();
    if (op == "aten::softmax.int" || op == "aten::_softmax" || op == "aten::log_softmax.int" ||
        op == "aten::_log_softmax" || op == "aten::slice.Tensor")
      return int_arg(1) && wrap(*int_arg(1), out_rank()) != d_ ? self_at(d_) : std::nullopt;
    if (op == "aten::split.Tensor" || op == "aten::split_with_sizes" || op == "aten::chunk")
      return int_arg(2) && wrap(*int_arg(2), out_rank()) != d_ ? self_at(d_) : std::nullopt;
    if (op == "aten::layer_norm" || op == "aten::native_layer_norm" || op == "aten::rms_norm")
      return ints_arg(1) && d_ < out_rank() - int(ints_arg(1)->size()) ? self_at(d_) : std::nullopt;
    return movement(op);
  }

  /// The view's size list has an entry per output dim (rewritten to 1 at d_).
  bool sizes_arg_ok() const {
    if (n_.args.size() < 2 || n_.args[1].kind != ArgKind::kInts || !tensor(0)) return false;
    const ExecArg& a = n_.args[1];
    return int(a.syms.empty() ? a.ints.size() : a.syms.size()) == out_rank();
  }

  /// The view input's dim that holds output dim d_: the dims before it hold as many elements
  /// on both sides (static sizes) and the two dims are declared alike.
  int view_source() const {
    const ExecValue& out = output();
    const ExecValue& in = self();
    int64_t before = 1;
    for (int k = 0; k < d_; ++k) {
      if (dim_of(out, k).expr()) return -1;
      before *= dim_of(out, k).value();
    }
    int64_t in_before = 1;
    for (int e = 0; e < rank_of(in); ++e) {
      if (in_before == before && same_declared_dim(dim_of(in, e), dim_of(out, d_))) return e;
      if (dim_of(in, e).expr()) return -1;
      in_before *= dim_of(in, e).value();
      if (in_before > before) return -1;
    }
    return -1;
  }

 private:
  const ExecValue& output() const { return g_.values[size_t(n_.outputs[0])]; }
  int out_rank() const { return rank_of(output()); }
  /// The value of schema argument `a` when it is a tensor; nullptr otherwise.
  const ExecValue* tensor(size_t a) const {
    if (a >= n_.args.size() || n_.args[a].kind != ArgKind::kTensor) return nullptr;
    return &g_.values[size_t(n_.inputs[size_t(n_.args[a].i)])];
  }
  const ExecValue& self() const { return *tensor(0); }
  std::optional<int64_t> int_arg(size_t a) const {
    if (a >= n_.args.size() || n_.args[a].kind != ArgKind::kInt || n_.args[a].symbolic())
      return std::nullopt;
    return n_.args[a].i;
  }
  const std::vector<int64_t>* ints_arg(size_t a) const {
    if (a >= n_.args.size() || n_.args[a].kind != ArgKind::kInts || n_.args[a].symbolic())
      return nullptr;
    return &n_.args[a].ints;
  }
  std::optional<bool> bool_arg(std::string_view name) const {
    for (const ExecArg& a : n_.args)
      if (a.name == name)
        return a.kind == ArgKind::kBool ? std::optional<bool>(a.i != 0) : std::nullopt;
    return false;
  }

  /// Argument `a` (a tensor) holds output dim d_ in its dim `e`.
  bool at(size_t a, int e) {
    if (!tensor(a) || e < 0 || e >= rank_of(*tensor(a))) return false;
    slots_[size_t(n_.args[a].i)] = e;
    return true;
  }
  std::optional<SlotDims> self_at(int e) { return at(0, e) ? done() : std::nullopt; }
  std::optional<SlotDims> done() { return std::move(slots_); }

  /// Argument `a` broadcast against the output: read whole where it has no such dim or
  /// a static 1 there, the same position where it is declared like the output's dim.
  bool broadcast(size_t a) {
    const ExecValue* v = tensor(a);
    if (!v) return true;  // a number, None
    const int e = d_ - (out_rank() - rank_of(*v));
    if (e < 0 || static_one(dim_of(*v, e))) return true;
    return same_declared_dim(dim_of(*v, e), dim_of(output(), d_)) && at(a, e);
  }
  std::optional<SlotDims> broadcast_all() {
    for (size_t a = 0; a < n_.args.size(); ++a)
      if (n_.args[a].kind == ArgKind::kTensors || !broadcast(a)) return std::nullopt;
    return done();
  }

  std::optional<SlotDims> matmul() {
    const ExecValue* b = tensor(1);
    if (!tensor(0) || !b || rank_of(self()) < 2 || rank_of(*b) != 2 || d_ >= out_rank() - 1)
      return std::nullopt;
    return self_at(d_);
  }

  /// A reduction over dims other than d_ (all of them after d_ unless kept).
  std::optional<SlotDims> reduction() {
    const std::vector<int64_t>* dims = ints_arg(1);
    const std::optional<bool> keep = bool_arg("keepdim");
    if (!dims || dims->empty() || !keep) return std::nullopt;
    const int in_rank = rank_of(self());
    for (int64_t r : *dims) {
      const int w = wrap(r, in_rank);
      if (w < 0 || w == d_ || (!*keep && w < d_)) return std::nullopt;
    }
    return self_at(d_);
  }

  std::optional<SlotDims> movement(std::string_view op) {
    const int r = out_rank();
    if (op == "aten::unsqueeze") {
      const int k = int_arg(1) ? wrap(*int_arg(1), r) : -1;
      return k < 0 || k == d_ ? std::nullopt : self_at(d_ < k ? d_ : d_ - 1);
    }
    if (op == "aten::select.int") {
      const int k = int_arg(1) ? wrap(*int_arg(1), r + 1) : -1;
      return k < 0 ? std::nullopt : self_at(d_ < k ? d_ : d_ + 1);
    }
    if (op == "aten::permute") {
      const std::vector<int64_t>* perm = ints_arg(1);
      if (!perm || int(perm->size()) != r) return std::nullopt;
      return self_at(wrap((*perm)[size_t(d_)], r));
    }
    if (op == "aten::transpose.int") {
      const int a = int_arg(1) ? wrap(*int_arg(1), r) : -1;
      const int b = int_arg(2) ? wrap(*int_arg(2), r) : -1;
      if (a < 0 || b < 0) return std::nullopt;
      return self_at(d_ == a ? b : d_ == b ? a : d_);
    }
    if (op == "aten::t") return self_at(r == 2 ? 1 - d_ : d_);
    return std::nullopt;
  }

  /// Every position of the output from the same position of each operand.
  static bool elementwise(std::string_view op) {
    kernels::Family family{};
    if (!kernels::find_op_row(op, &family) || op_is_inplace(op)) return false;
    if (family == kernels::Family::kBinary) return true;
    if (family != kernels::Family::kUnary) return false;
    // Unary-family rows that look along a dim (glu, prelu's channels, tril/triu) or draw
    // random numbers.
    for (std::string_view other : {"aten::glu", "aten::prelu", "aten::tril", "aten::triu",
                                   "aten::dropout", "aten::dropout_", "aten::native_dropout"})
      if (op == other) return false;
    return true;
  }
  /// Copies and casts of `self` (other tensor arguments give a dtype only).
  static bool same_dim_ops(std::string_view op) {
    for (std::string_view same :
         {"aten::alias", "aten::clone", "aten::contiguous", "aten::_to_copy", "aten::to.dtype",
          "aten::to.dtype_layout", "aten::to.device", "aten::type_as", "aten::detach"})
      if (op == same) return true;
    return false;
  }

  const ExecGraph& g_;
  const ExecNode& n_;
  const int d_;
  SlotDims slots_;
};

/// A reader that wants only the last position of a value along `dim`: input `slot` of node
/// `node`, or method output `slot` when node is -1.
struct Demand {
  int32_t node = -1;
  int32_t slot = 0;
  int dim = 0;  // kAnyDim: a no-op check of dtype and sizes reads whichever it gets
};
constexpr int kAnyDim = -1;
constexpr int kWhole = -2;  // some reader reads the whole value

class LastPositionPass {
 public:
  explicit LastPositionPass(ExecGraph& g)
      : g_(g), du_(exec_graph_def_use(g)), demands_(g.values.size()) {}

  Status request(const LastPosition& want) {
    if (want.output < 0 || size_t(want.output) >= g_.outputs.size())
      return make_error(StatusCode::kInvalidArgument, "last position of output ", want.output,
                        ": the method has ", g_.outputs.size(), " outputs");
    const int32_t v = g_.outputs[size_t(want.output)];
    const ExecValue& val = g_.values[size_t(v)];
    const int d = val.is_tensor ? wrap(want.dim, rank_of(val)) : -1;
    if (d < 0)
      return make_error(StatusCode::kInvalidArgument, "last position of output ", want.output,
                        " ('", ir::str(val.ir->name()), "'): it has no dim ", want.dim);
    if (!static_one(dim_of(val, d))) demands_[size_t(v)].push_back({-1, want.output, d});
    return ok_status();
  }

  size_t run() {
    for (size_t i = g_.nodes.size(); i-- > 0;) {
      ExecNode& n = g_.nodes[i];
      if (n.dead) continue;
      if (n.op == "aten::_assert_tensor_metadata")  // a no-op (kernels/reference/assertion)
        for (size_t s = 0; s < n.inputs.size(); ++s)
          demands_[size_t(n.inputs[s])].push_back({int32_t(i), int32_t(s), kAnyDim});
      if (n.op == "aten::type_as" && n.args.size() > 1 && n.args[1].kind == ArgKind::kTensor)
        demands_[size_t(n.inputs[size_t(n.args[1].i)])].push_back(  // its dtype only
            {int32_t(i), int32_t(n.args[1].i), kAnyDim});
      if (std::all_of(n.outputs.begin(), n.outputs.end(),
                      [&](int32_t o) { return demands_[size_t(o)].empty(); }))
        continue;
      if (!narrow_node(int32_t(i))) slice_outputs(n);
    }
    for (size_t v = 0; v < du_.producer.size(); ++v)  // inputs, weights, constants
      if (du_.producer[v] < 0 && !demands_[v].empty()) insert_slices(int32_t(v));
    merge_inserts();
    return narrowed_;
  }

 private:
  /// The dim every reader of `v` wants the last position of; kWhole when some reader
  /// (another node, a method output, a buffer write-back) reads it whole or they disagree;
  /// kAnyDim when no reader cares.
  int wanted_dim(int32_t v) const {
    const auto& ds = demands_[size_t(v)];
    size_t readers = du_.users[size_t(v)].size();
    readers += size_t(std::count(g_.outputs.begin(), g_.outputs.end(), v));
    for (const auto& m : g_.mutations) readers += m.first == v;
    for (const auto& m : g_.input_mutations) readers += m.first == v;
    if (ds.size() != readers) return kWhole;
    int dim = kAnyDim;
    for (const Demand& d : ds) {
      if (d.dim == kAnyDim) continue;
      if (dim >= 0 && d.dim != dim) return kWhole;
      dim = d.dim;
    }
    return dim;
  }

  /// Node i computes only the last position when every reader of its outputs wants just
  /// that and each position comes from the same position of its inputs.
  bool narrow_node(int32_t i) {
    ExecNode& n = g_.nodes[size_t(i)];
    const int d = wanted_dim(n.outputs[0]);
    if (d < 0) return false;
    for (size_t k = 1; k < n.outputs.size(); ++k) {  // native_layer_norm's mean and rstd
      const int32_t o = n.outputs[k];
      const int w = wanted_dim(o);
      if ((w != d && w != kAnyDim) || !g_.values[size_t(o)].is_tensor ||
          rank_of(g_.values[size_t(o)]) <= d)
        return false;
    }
    PositionMap map(g_, n, d);
    std::optional<SlotDims> slots = map.compute();
    if (!slots) return false;
    if (n.op == "aten::view" || n.op == "aten::reshape" || n.op == "aten::_unsafe_view")
      set_size_arg_one(n.args[1], d);
    for (int32_t o : n.outputs) g_.values[size_t(o)].last_position_dim = int8_t(d);
    for (size_t s = 0; s < slots->size(); ++s)
      if ((*slots)[s] >= 0) demands_[size_t(n.inputs[s])].push_back({i, int32_t(s), (*slots)[s]});
    ++narrowed_;
    return true;
  }

  static void set_size_arg_one(ExecArg& sizes, int d) {
    if (!sizes.syms.empty()) {
      sizes.ints.resize(sizes.syms.size());
      sizes.syms[size_t(d)] = nullptr;  // bind_args reads ints[d] for a null entry
    }
    sizes.ints[size_t(d)] = 1;
  }

  void slice_outputs(const ExecNode& n) {
    for (int32_t o : n.outputs)
      if (!demands_[size_t(o)].empty()) insert_slices(o);
  }

  /// A slice of the last position of `v` for its readers that want one, right before the
  /// first of them (after any in-place write that comes before it), one per wanted dim.
  void insert_slices(int32_t v) {
    std::vector<Demand> ds = std::move(demands_[size_t(v)]);
    demands_[size_t(v)].clear();
    std::vector<int> dims;
    for (const Demand& d : ds)  // the no-op checks keep reading `v`
      if (d.dim != kAnyDim && std::find(dims.begin(), dims.end(), d.dim) == dims.end())
        dims.push_back(d.dim);
    for (int dim : dims) {
      const int32_t sliced = g_.add_value_like(v, g_.values[size_t(v)].device);
      demands_.emplace_back();
      g_.values[size_t(sliced)].last_position_dim = int8_t(dim);
      size_t before = g_.nodes.size();
      for (const Demand& d : ds) {
        if (d.dim != dim) continue;
        if (d.node < 0) {
          g_.outputs[size_t(d.slot)] = sliced;
        } else {
          g_.nodes[size_t(d.node)].inputs[size_t(d.slot)] = sliced;
          before = std::min(before, size_t(d.node));
        }
      }
      inserts_.emplace_back(before, slice_node(v, sliced, dim));
    }
  }

  ExecNode slice_node(int32_t from, int32_t to, int dim) const {
    ExecNode s;
    s.op = "aten::slice.Tensor";
    s.name = ir::str(g_.values[size_t(from)].ir->name());
    s.device = g_.values[size_t(from)].device;
    const auto arg = [](ArgKind kind, int64_t i, std::string_view name) {
      ExecArg a;
      a.kind = kind;
      a.i = i;
      a.name = name;
      return a;
    };
    s.args = {arg(ArgKind::kTensor, 0, "self"), arg(ArgKind::kInt, dim, "dim"),
              arg(ArgKind::kInt, -1, "start"), arg(ArgKind::kNone, 0, "end"),
              arg(ArgKind::kInt, 1, "step")};
    s.inputs = {from};
    s.outputs = {to};
    return s;
  }

  void merge_inserts() {
    if (inserts_.empty()) return;
    std::stable_sort(inserts_.begin(), inserts_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<ExecNode> nodes;
    nodes.reserve(g_.nodes.size() + inserts_.size());
    size_t next = 0;
    for (size_t i = 0; i <= g_.nodes.size(); ++i) {
      for (; next < inserts_.size() && inserts_[next].first == i; ++next)
        nodes.push_back(std::move(inserts_[next].second));
      if (i < g_.nodes.size()) nodes.push_back(std::move(g_.nodes[i]));
    }
    g_.nodes = std::move(nodes);
  }

  ExecGraph& g_;
  DefUse du_;
  std::vector<std::vector<Demand>> demands_;          // per value
  std::vector<std::pair<size_t, ExecNode>> inserts_;  // (before node index, slice)
  size_t narrowed_ = 0;
};

}  // namespace

Result<size_t> keep_last_position(ExecGraph& g, std::span<const LastPosition> outputs) {
  if (outputs.empty()) return size_t{0};
  LastPositionPass pass(g);
  for (const LastPosition& want : outputs) TIR_RETURN_IF_ERROR(pass.request(want));
  return pass.run();
}

}  // namespace tir
