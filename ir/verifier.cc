#include "ir/verifier.h"

#include <vector>

#include "core/checked_size.h"
#include "core/read_limits.h"
#include "core/tensor.h"
#include "ir/model.h"
#include "ir/sym_expr.h"

namespace tir::ir {
namespace {

// Subgraphs nest (a cond inside a branch); deeper nesting than this is rejected.
constexpr int kMaxSubgraphDepth = 16;

class MethodVerifier {
 public:
  /// A top-level method; `parent` is null.
  MethodVerifier(const fb::Model& model, const fb::Method& m, std::string_view file)
      : model_(model), m_(m), file_(file), where_("method '" + std::string(str(m.name())) + "'") {}
  /// A subgraph of `parent`: it uses the top-level method's symbols.
  MethodVerifier(const MethodVerifier& parent, const fb::Method& sub)
      : model_(parent.model_),
        m_(sub),
        file_(parent.file_),
        where_(parent.where_ + " subgraph '" + std::string(str(sub.name())) + "'"),
        depth_(parent.depth_ + 1),
        num_symbols_(parent.num_symbols_) {}

  Status run() {
    num_values_ = m_.values() ? m_.values()->size() : 0;
    if (depth_ == 0) num_symbols_ = m_.symbols() ? m_.symbols()->size() : 0;
    if (const uint64_t n = m_.nodes() ? m_.nodes()->size() : 0; n > read_limits().max_nodes)
      return fail("has ", n, " nodes, more than the limit of ", read_limits().max_nodes,
                  " (--max-nodes)");
    defined_.assign(num_values_, false);
    TIR_RETURN_IF_ERROR(check_symbols());
    TIR_RETURN_IF_ERROR(check_values());
    TIR_RETURN_IF_ERROR(check_subgraphs());
    TIR_RETURN_IF_ERROR(check_nodes());
    TIR_RETURN_IF_ERROR(check_io());
    return ok_status();
  }

 private:
  template <typename... P>
  Status fail(const P&... parts) const {
    return make_error(StatusCode::kCorrupt, "'", file_, "' ", where_, ": ", parts...);
  }

  Status check_subgraphs() {
    if (!m_.subgraphs()) return ok_status();
    if (depth_ >= kMaxSubgraphDepth)
      return fail("subgraphs nest deeper than ", kMaxSubgraphDepth, " levels");
    for (const fb::Method* sub : *m_.subgraphs()) {
      if ((sub->symbols() && sub->symbols()->size() > 0) ||
          (sub->mutations() && sub->mutations()->size() > 0) ||
          (sub->input_mutations() && sub->input_mutations()->size() > 0))
        return fail("subgraph '", str(sub->name()), "' has symbols or mutations of its own");
      TIR_RETURN_IF_ERROR(MethodVerifier(*this, *sub).run());
    }
    return ok_status();
  }

  const fb::Value& value(const fb::Method& m, int32_t v) const { return *m.values()->Get(v); }
  static size_t rank(const fb::Value& v) { return v.sizes() ? v.sizes()->size() : 0; }

  /// Checks that `a` (a value of this method) and `b` (of subgraph `sub`) agree in kind,
  /// dtype and rank.
  /// `rank_delta`: `b`'s rank is `a`'s plus this (-1: a slice of `a`, 1: `a` stacks `b`).
  Status check_same_type(int32_t a, const fb::Method& sub, int32_t b, std::string_view what,
                         int rank_delta = 0) {
    const fb::Value& va = value(m_, a);
    const fb::Value& vb = value(sub, b);
    if (va.kind() != vb.kind() || va.dtype() != vb.dtype() ||
        int64_t(rank(va)) + rank_delta != int64_t(rank(vb)))
      return fail(what, ": '", str(va.name()), "' is ", dtype_name(to_dtype(va.dtype())),
                  " of rank ", rank(va), ", subgraph '", str(sub.name()), "' has '", str(vb.name()),
                  "' ", dtype_name(to_dtype(vb.dtype())), " of rank ", rank(vb));
    return ok_status();
  }

  /// higher_order::cond: (pred, true_graph, false_graph, operands); each branch takes the
  /// operands as its inputs and returns the node's outputs, with the same dtypes and ranks.
  Status check_cond(const fb::Node& n, std::string_view name) {
    const size_t nargs = n.args() ? n.args()->size() : 0;
    if (nargs != 4)
      return fail("node '", name, "' (", kCondOp, ") has ", nargs,
                  " arguments, expected 4 (pred, true_graph, false_graph, operands)");
    const fb::ArgValue pred = n.args()->Get(0)->value_type();
    if (pred != fb::ArgValue::TensorArg && pred != fb::ArgValue::SymIntArg &&
        pred != fb::ArgValue::BoolArg)
      return fail("node '", name, "' has a predicate of kind ", fb::EnumNameArgValue(pred),
                  ", expected a tensor or a symbolic bool");
    const fb::TensorsArg* operands = n.args()->Get(3)->value_as_TensorsArg();
    if (!operands || operands->optional())
      return fail("node '", name, "' argument 3 is not a list of operand tensors");
    const size_t noperands = operands->values() ? operands->values()->size() : 0;
    const size_t nout = n.outputs() ? n.outputs()->size() : 0;
    for (int b = 1; b <= 2; ++b) {
      const fb::GraphArg* g = n.args()->Get(b)->value_as_GraphArg();
      if (!g) return fail("node '", name, "' argument ", b, " is not a subgraph");
      const fb::Method& sub = *m_.subgraphs()->Get(g->index());  // range checked in check_arg
      const size_t nin = sub.inputs() ? sub.inputs()->size() : 0;
      const size_t nres = sub.outputs() ? sub.outputs()->size() : 0;
      if (nin != noperands)
        return fail("node '", name, "' passes ", noperands, " operands to subgraph '",
                    str(sub.name()), "', which has ", nin, " inputs");
      if (nres != nout)
        return fail("node '", name, "' has ", nout, " outputs, subgraph '", str(sub.name()),
                    "' returns ", nres);
      for (size_t i = 0; i < nin; ++i)
        TIR_RETURN_IF_ERROR(
            check_same_type(operands->values()->Get(i), sub, sub.inputs()->Get(i),
                            "node '" + std::string(name) + "' operand " + std::to_string(i)));
      for (size_t k = 0; k < nout; ++k)
        TIR_RETURN_IF_ERROR(
            check_same_type(n.outputs()->Get(k), sub, sub.outputs()->Get(k),
                            "node '" + std::string(name) + "' output " + std::to_string(k)));
    }
    return ok_status();
  }

  /// The loops (ir/model.h kWhileLoopOp, kScanOp, kMapOp): leading subgraphs, then operand
  /// lists; each subgraph takes every list in order (scan's and map's xs sliced on dim 0).
  Status check_loop(const fb::Node& n, std::string_view name, std::string_view op) {
    const bool is_while = op == kWhileLoopOp, is_scan = op == kScanOp;
    const size_t ngraphs = is_while ? 2 : 1, nlists = is_scan ? 3 : 2;
    const size_t nargs = n.args() ? n.args()->size() : 0;
    if (nargs != ngraphs + nlists)
      return fail("node '", name, "' (", op, ") has ", nargs, " arguments, expected ",
                  ngraphs + nlists);
    std::vector<int32_t> operands;
    std::vector<int> deltas;  // rank change from operand to subgraph input
    size_t first_list_size = 0;
    for (size_t k = 0; k < nlists; ++k) {
      const fb::TensorsArg* t = n.args()->Get(ngraphs + k)->value_as_TensorsArg();
      if (!t || t->optional())
        return fail("node '", name, "' argument ", ngraphs + k, " is not a list of tensors");
      const bool sliced = (is_scan && k == 1) || (op == kMapOp && k == 0);
      if (t->values())
        for (int32_t v : *t->values()) {
          operands.push_back(v);
          deltas.push_back(sliced ? -1 : 0);
        }
      if (k == 0) first_list_size = operands.size();
    }
    const size_t nout = n.outputs() ? n.outputs()->size() : 0;
    for (size_t g = 0; g < ngraphs; ++g) {
      const fb::GraphArg* ga = n.args()->Get(g)->value_as_GraphArg();
      if (!ga) return fail("node '", name, "' argument ", g, " is not a subgraph");
      const fb::Method& sub = *m_.subgraphs()->Get(ga->index());  // range checked in check_arg
      const std::string what = "node '" + std::string(name) + "'";
      const size_t nin = sub.inputs() ? sub.inputs()->size() : 0;
      const size_t nres = sub.outputs() ? sub.outputs()->size() : 0;
      if (nin != operands.size())
        return fail(what, " passes ", operands.size(), " operands to subgraph '", str(sub.name()),
                    "', which has ", nin, " inputs");
      for (size_t i = 0; i < nin; ++i)
        TIR_RETURN_IF_ERROR(check_same_type(operands[i], sub, sub.inputs()->Get(i),
                                            what + " operand " + std::to_string(i), deltas[i]));
      if (is_while && g == 0) {
        if (nres != 1) return fail(what, " has a cond_fn returning ", nres, " values, not 1");
        continue;
      }
      if (nres != nout || (is_while && nres != first_list_size) ||
          (is_scan && nres < first_list_size))
        return fail(what, " has ", nout, " outputs, subgraph '", str(sub.name()), "' returns ",
                    nres);
      for (size_t k = 0; k < nout; ++k) {  // carried state keeps its type; the rest stacks
        const bool carried = (is_while || is_scan) && k < first_list_size;
        TIR_RETURN_IF_ERROR(check_same_type(n.outputs()->Get(k), sub, sub.outputs()->Get(k),
                                            what + " output " + std::to_string(k),
                                            carried ? 0 : -1));
        if (carried)
          TIR_RETURN_IF_ERROR(check_same_type(operands[k], sub, sub.outputs()->Get(k),
                                              what + " carried value " + std::to_string(k)));
      }
    }
    return ok_status();
  }

  Status check_symbols() {
    if (depth_ > 0) return ok_status();  // a subgraph's are the top-level method's
    for (size_t i = 0; i < num_symbols_; ++i) {
      const fb::Symbol* s = m_.symbols()->Get(i);
      if (s->min() > s->max()) return fail("symbol '", str(s->name()), "' has min > max");
    }
    return ok_status();
  }

  Status check_expr(const fb::SymExpr* e, std::string_view where) {
    if (!e) return ok_status();
    Status s = check_sym_expr(*e, num_symbols_);
    return s.ok() ? s : fail(where, ": ", s.message());
  }

  /// A weight or constant value has the dtype and static shape of the data it is bound to
  /// (kernels size their reads from the value: a mismatch read past the data; found by the
  /// tir fuzzer). `T` is fb::WeightRef or fb::Constant (shapes checked by the model pass).
  template <typename T>
  Status check_matches(const fb::Value& v, const T& data, const std::string& where) const {
    const size_t rank = v.sizes() ? v.sizes()->size() : 0;
    bool same = v.kind() == fb::ValueKind::Tensor && v.dtype() == data.dtype() &&
                rank == (data.shape() ? data.shape()->size() : 0);
    for (size_t k = 0; same && k < rank; ++k) {
      const fb::Dim* d = v.sizes()->Get(k);
      same = !d->expr() && d->value() == data.shape()->Get(k);
    }
    if (!same)
      return fail(where, " does not match the dtype and shape of '", str(data.name()), "'");
    return ok_status();
  }

  Status check_values() {
    const size_t nweights = model_.weights() ? model_.weights()->size() : 0;
    const size_t nconsts = model_.constants() ? model_.constants()->size() : 0;
    for (size_t i = 0; i < num_values_; ++i) {
      const fb::Value* v = m_.values()->Get(i);
      const std::string where = "value '" + std::string(str(v->name())) + "'";
      if (v->kind() > fb::ValueKind::MAX) return fail(where, " has an unknown kind");
      if (v->kind() == fb::ValueKind::Tensor && !dtype_valid(int(v->dtype())))
        return fail(where, " has an unknown dtype ", int(v->dtype()));
      if (v->sizes()) {
        if (v->sizes()->size() > size_t(kMaxRank)) return fail(where, " has rank > ", kMaxRank);
        for (const fb::Dim* d : *v->sizes()) {
          if (!d->expr() && d->value() < 0) return fail(where, " has a negative dim");
          TIR_RETURN_IF_ERROR(check_expr(d->expr(), where));
        }
      }
      TIR_RETURN_IF_ERROR(check_expr(v->expr(), where));
      switch (v->source()) {
        case fb::ValueSource::Weight:
          if (v->index() < 0 || size_t(v->index()) >= nweights)
            return fail(where, " references weight ", v->index(), " of ", nweights);
          TIR_RETURN_IF_ERROR(check_matches(*v, *model_.weights()->Get(v->index()), where));
          defined_[i] = true;
          break;
        case fb::ValueSource::Constant:
          if (v->index() < 0 || size_t(v->index()) >= nconsts)
            return fail(where, " references constant ", v->index(), " of ", nconsts);
          TIR_RETURN_IF_ERROR(check_matches(*v, *model_.constants()->Get(v->index()), where));
          defined_[i] = true;
          break;
        case fb::ValueSource::UserInput:
          defined_[i] = true;
          break;
        case fb::ValueSource::Activation:
          break;
        default:
          return fail(where, " has an unknown source");
      }
      if (v->kind() == fb::ValueKind::None) defined_[i] = true;
    }
    return ok_status();
  }

  Status check_use(int32_t idx, std::string_view node, bool allow_none) {
    if (allow_none && idx == -1) return ok_status();
    if (idx < 0 || size_t(idx) >= num_values_)
      return fail("node '", node, "' uses value ", idx, " of ", num_values_);
    if (!defined_[idx])
      return fail("node '", node, "' uses value '", str(m_.values()->Get(idx)->name()),
                  "' before it is defined");
    return ok_status();
  }

  Status check_arg(const fb::Argument* a, std::string_view node) {
    const std::string where =
        "node '" + std::string(node) + "' arg '" + std::string(str(a->name())) + "'";
    // The FlatBuffers verifier accepts a union whose type is set but whose table is absent.
    if (a->value_type() == fb::ArgValue::NONE || !a->value()) return fail(where, " has no value");
    switch (a->value_type()) {
      case fb::ArgValue::TensorArg:
        return check_use(a->value_as_TensorArg()->value(), node, false);
      case fb::ArgValue::TensorsArg: {
        const fb::TensorsArg* t = a->value_as_TensorsArg();
        if (t->values())
          for (int32_t idx : *t->values()) TIR_RETURN_IF_ERROR(check_use(idx, node, t->optional()));
        return ok_status();
      }
      case fb::ArgValue::SymIntArg:
        if (!a->value_as_SymIntArg()->value()) return fail(where, " has no expression");
        return check_expr(a->value_as_SymIntArg()->value(), where);
      case fb::ArgValue::SymIntsArg: {
        const fb::SymIntsArg* s = a->value_as_SymIntsArg();
        if (s->values())
          for (const fb::SymExpr* e : *s->values()) TIR_RETURN_IF_ERROR(check_expr(e, where));
        return ok_status();
      }
      // Read in place as int64 / double: the verifier above checks 4-byte alignment only.
      case fb::ArgValue::IntsArg:
        if (!elements_aligned(a->value_as_IntsArg()->values()))
          return fail(where, " has misaligned values");
        return ok_status();
      case fb::ArgValue::FloatsArg:
        if (!elements_aligned(a->value_as_FloatsArg()->values()))
          return fail(where, " has misaligned values");
        return ok_status();
      case fb::ArgValue::DTypeArg:
        if (!dtype_valid(int(a->value_as_DTypeArg()->value()))) return fail(where, " bad dtype");
        return ok_status();
      case fb::ArgValue::GraphArg: {
        const int32_t g = a->value_as_GraphArg()->index();
        const size_t nsub = m_.subgraphs() ? m_.subgraphs()->size() : 0;
        if (g < 0 || size_t(g) >= nsub)
          return fail(where, " references subgraph ", g, " of ", nsub);
        return ok_status();
      }
      default:
        if (a->value_type() > fb::ArgValue::MAX) return fail(where, " has an unknown type");
        return ok_status();
    }
  }

  Status check_nodes() {
    if (!m_.nodes()) return ok_status();
    for (const fb::Node* n : *m_.nodes()) {
      const std::string_view name = str(n->name());
      if (!n->op() || n->op()->size() == 0) return fail("node '", name, "' has no op");
      if (n->args())
        for (const fb::Argument* a : *n->args()) TIR_RETURN_IF_ERROR(check_arg(a, name));
      if (n->outputs()) {
        for (int32_t idx : *n->outputs()) {
          if (idx < 0 || size_t(idx) >= num_values_)
            return fail("node '", name, "' writes value ", idx, " of ", num_values_);
          if (defined_[idx])
            return fail("node '", name, "' redefines value '", str(m_.values()->Get(idx)->name()),
                        "'");
          if (m_.values()->Get(idx)->source() != fb::ValueSource::Activation)
            return fail("node '", name, "' writes a non-activation value");
          defined_[idx] = true;
        }
      }
      if (str(n->op()) == kCondOp) {
        TIR_RETURN_IF_ERROR(check_cond(*n, name));
      } else if (is_loop_op(str(n->op()))) {
        TIR_RETURN_IF_ERROR(check_loop(*n, name, str(n->op())));
      } else if (n->args()) {
        for (const fb::Argument* a : *n->args())
          if (a->value_type() == fb::ArgValue::GraphArg)
            return fail("node '", name, "' (", str(n->op()),
                        ") passes a subgraph; only control-flow ops run subgraphs");
      }
    }
    return ok_status();
  }

  Status check_io() {
    std::vector<bool> listed(num_values_, false);
    if (m_.inputs())
      for (int32_t idx : *m_.inputs()) {
        if (idx < 0 || size_t(idx) >= num_values_) return fail("input index out of range");
        if (m_.values()->Get(idx)->source() != fb::ValueSource::UserInput)
          return fail("input '", str(m_.values()->Get(idx)->name()), "' is not a user input");
        listed[idx] = true;
      }
    // A user input missing from the inputs would be read without ever being bound (a null
    // tensor in a kernel; found by the tir fuzzer).
    for (size_t v = 0; v < num_values_; ++v)
      if (!listed[v] && m_.values()->Get(v)->source() == fb::ValueSource::UserInput)
        return fail("value '", str(m_.values()->Get(v)->name()),
                    "' is a user input but not among the inputs");
    if (m_.outputs())
      for (int32_t idx : *m_.outputs()) TIR_RETURN_IF_ERROR(check_use(idx, "<outputs>", false));
    if (m_.mutations())
      for (const fb::BufferMutation* mu : *m_.mutations())
        TIR_RETURN_IF_ERROR(check_use(mu->value(), "<mutations>", false));
    if (m_.input_mutations()) {
      const size_t inputs = m_.inputs() ? m_.inputs()->size() : 0;
      std::vector<bool> written(inputs);
      for (const fb::InputMutation* mu : *m_.input_mutations()) {
        TIR_RETURN_IF_ERROR(check_use(mu->value(), "<input_mutations>", false));
        if (mu->input() < 0 || size_t(mu->input()) >= inputs || written[size_t(mu->input())])
          return fail("input mutation writes input ", mu->input(), ", which is not one of the ",
                      inputs, " inputs or is written twice");
        written[size_t(mu->input())] = true;
        const fb::Value* in = m_.values()->Get(m_.inputs()->Get(mu->input()));
        const fb::Value* val = m_.values()->Get(mu->value());
        if (in->kind() != fb::ValueKind::Tensor || val->kind() != fb::ValueKind::Tensor ||
            in->dtype() != val->dtype())
          return fail("input mutation of '", str(in->name()), "' writes value '", str(val->name()),
                      "', which is not a tensor of its dtype");
      }
    }
    return ok_status();
  }

  const fb::Model& model_;
  const fb::Method& m_;
  std::string_view file_;
  std::string where_;  // "method 'forward'" or "method 'forward' subgraph 'cond.true_graph_0'"
  int depth_ = 0;
  size_t num_values_ = 0, num_symbols_ = 0;
  std::vector<bool> defined_;
};

}  // namespace

Status verify_model_semantics(const fb::Model& model, std::string_view file) {
  if (model.version() / 100 != kModelVersion / 100)
    return make_error(StatusCode::kUnsupported, "'", file, "': model version ", model.version(),
                      " is not supported (this tir reads ", kModelVersion / 100, ".x)");
  if (!model.methods() || model.methods()->size() == 0)
    return make_error(StatusCode::kCorrupt, "'", file, "': model has no methods");
  if (model.weights()) {
    for (const fb::WeightRef* w : *model.weights()) {
      if (!dtype_valid(int(w->dtype())))
        return make_error(StatusCode::kCorrupt, "'", file, "': weight '", str(w->name()),
                          "' has an unknown dtype");
      const std::string what =
          "'" + std::string(file) + "': weight '" + std::string(str(w->name())) + "' shape";
      if (!elements_aligned(w->shape()))
        return make_error(StatusCode::kCorrupt, what, " is misaligned");
      if (w->shape() && w->shape()->size() > size_t(kMaxRank))
        return make_error(StatusCode::kCorrupt, what, " has rank > ", kMaxRank);
      const std::span<const int64_t> shape =
          w->shape() ? std::span<const int64_t>(w->shape()->data(), w->shape()->size())
                     : std::span<const int64_t>();
      TIR_ASSIGN_OR_RETURN(const uint64_t want,
                           checked_nbytes(shape, dtype_size(to_dtype(w->dtype())), what));
      if (w->byte_size() != want)
        return make_error(StatusCode::kCorrupt, "'", file, "': weight '", str(w->name()),
                          "' has byte_size ", w->byte_size(), ", its dtype and shape need ", want);
    }
  }
  if (model.constants()) {
    for (const fb::Constant* c : *model.constants()) {
      const std::string what =
          "'" + std::string(file) + "': constant '" + std::string(str(c->name())) + "' shape";
      if (!elements_aligned(c->shape()))
        return make_error(StatusCode::kCorrupt, what, " is misaligned");
      if (c->shape() && c->shape()->size() > size_t(kMaxRank))
        return make_error(StatusCode::kCorrupt, what, " has rank > ", kMaxRank);
      const std::span<const int64_t> shape =
          c->shape() ? std::span<const int64_t>(c->shape()->data(), c->shape()->size())
                     : std::span<const int64_t>();
      if (!dtype_valid(int(c->dtype())))
        return make_error(StatusCode::kCorrupt, "'", file, "': constant '", str(c->name()),
                          "' has an unknown dtype");
      TIR_ASSIGN_OR_RETURN(const uint64_t want,
                           checked_nbytes(shape, dtype_size(to_dtype(c->dtype())), what));
      const size_t bytes = c->data() ? c->data()->size() : 0;
      if (bytes != want)
        return make_error(StatusCode::kCorrupt, "'", file, "': constant '", str(c->name()),
                          "' has ", bytes, " bytes, which does not match its dtype and shape");
    }
  }
  for (const fb::Method* m : *model.methods())
    TIR_RETURN_IF_ERROR(MethodVerifier(model, *m, file).run());
  return ok_status();
}

}  // namespace tir::ir
