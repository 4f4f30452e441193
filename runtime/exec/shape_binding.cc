#include "runtime/exec/shape_binding.h"

#include <algorithm>
#include <optional>
#include <string>

#include "core/checked_size.h"
#include "ir/model.h"
#include "ir/sym_expr.h"

namespace tir {
namespace {

constexpr int64_t kUnbound = INT64_MIN;

std::string range_str(const ir::fb::Symbol& s) {
  std::string r = std::string(ir::str(s.name())) + " in [" + std::to_string(s.min()) + ", ";
  r += s.max() == INT64_MAX ? std::string("inf") : std::to_string(s.max());
  return r + "]";
}

/// For an expression over exactly one symbol that is affine in it (a*s + b, a != 0),
/// returns {symbol, a, b}; otherwise nullopt. Affinity is checked at three points.
struct Affine {
  int64_t symbol, a, b;
};
std::optional<Affine> affine_form(const ir::fb::SymExpr& e, size_t nsym) {
  int64_t sym = -1;
  for (const ir::fb::ExprTerm* t : *e.terms()) {
    if (t->op() != ir::fb::ExprOp::Sym) continue;
    if (sym >= 0 && sym != t->value()) return std::nullopt;
    sym = t->value();
  }
  if (sym < 0) return std::nullopt;
  std::vector<int64_t> v(nsym, 0);
  int64_t f[3];
  for (int x = 0; x < 3; ++x) {
    v[sym] = x + 1;  // 1, 2, 3: symbols are positive
    auto r = ir::eval_sym_expr(e, v);
    if (!r.ok()) return std::nullopt;
    f[x] = *r;
  }
  const int64_t a = f[1] - f[0];
  if (a == 0 || f[2] - f[1] != a) return std::nullopt;
  return Affine{sym, a, f[0] - a};
}

class Binder {
 public:
  Binder(const ir::fb::Method& m, std::span<const Tensor> inputs)
      : m_(m),
        inputs_(inputs),
        nsym_(m.symbols() ? m.symbols()->size() : 0),
        symbols_(nsym_, kUnbound),
        bound_by_(nsym_) {}

  Result<std::vector<int64_t>> run() {
    const size_t ninputs = m_.inputs() ? m_.inputs()->size() : 0;
    if (inputs_.size() != ninputs)
      return make_error(StatusCode::kInvalidArgument, "expected ", ninputs, " inputs, got ",
                        inputs_.size());
    for (size_t k = 0; k < ninputs; ++k) TIR_RETURN_IF_ERROR(check_kind(k));
    for (size_t k = 0; k < ninputs; ++k) TIR_RETURN_IF_ERROR(bind_affine(k));
    for (size_t k = 0; k < ninputs; ++k) TIR_RETURN_IF_ERROR(check_rest(k));
    for (size_t i = 0; i < nsym_; ++i)
      if (symbols_[i] == kUnbound) symbols_[i] = m_.symbols()->Get(i)->hint();
    return symbols_;
  }

 private:
  const ir::fb::Value& value(size_t k) const { return *m_.values()->Get(m_.inputs()->Get(k)); }
  bool is_sym_int(size_t k) const { return value(k).kind() == ir::fb::ValueKind::SymInt; }

  /// One bindable integer of input k: dim d of a tensor, or (d = -1) a SymInt input's value.
  struct Slot {
    const ir::fb::SymExpr* expr;
    int64_t actual;
    int d;
  };
  std::vector<Slot> slots(size_t k) const {
    const ir::fb::Value& v = value(k);
    if (is_sym_int(k)) return {{v.expr(), *static_cast<const int64_t*>(inputs_[k].data), -1}};
    std::vector<Slot> out;
    for (size_t d = 0; v.sizes() && d < v.sizes()->size(); ++d)
      if (const ir::fb::SymExpr* e = v.sizes()->Get(d)->expr())
        out.push_back({e, inputs_[k].sizes[d], int(d)});
    return out;
  }
  std::string binder(size_t k, int d) const {
    const std::string in = "input '" + std::string(ir::str(value(k).name())) + "'";
    return d < 0 ? in : in + " dim " + std::to_string(d);
  }
  std::string where(size_t k, int d) const {
    return binder(k, d) + " = " +
           std::to_string(d < 0 ? *static_cast<const int64_t*>(inputs_[k].data)
                                : inputs_[k].sizes[d]);
  }

  /// A SymInt user input comes as a 0-dim int64 tensor holding its value.
  Status check_sym_int(size_t k) {
    const ir::fb::Value& v = value(k);
    const Tensor& t = inputs_[k];
    if (t.dtype != DType::kInt64 || t.rank != 0 || !t.data)
      return make_error(StatusCode::kInvalidArgument, "input '", ir::str(v.name()),
                        "' is an integer (SymInt): expected a 0-dim int64 tensor, got ",
                        dtype_name(t.dtype), shape_str(t.shape()));
    if (!v.expr())
      return make_error(StatusCode::kUnsupported, "input '", ir::str(v.name()),
                        "' is an integer (SymInt) without an expression in the model (imported "
                        "by an older tirc: import it again)");
    return ok_status();
  }

  Status check_kind(size_t k) {
    if (is_sym_int(k)) return check_sym_int(k);
    const ir::fb::Value& v = value(k);
    const Tensor& t = inputs_[k];
    const size_t rank = v.sizes() ? v.sizes()->size() : 0;
    if (t.dtype != ir::to_dtype(v.dtype()))
      return make_error(StatusCode::kInvalidArgument, "input '", ir::str(v.name()), "' has dtype ",
                        dtype_name(t.dtype), ", expected ", dtype_name(ir::to_dtype(v.dtype())));
    if (size_t(t.rank) != rank)
      return make_error(StatusCode::kInvalidArgument, "input '", ir::str(v.name()), "' has rank ",
                        t.rank, " (shape ", shape_str(t.shape()), "), expected rank ", rank);
    for (size_t d = 0; d < rank; ++d) {
      const ir::fb::Dim& dim = *v.sizes()->Get(d);
      if (!dim.expr() && t.sizes[d] != dim.value())
        return make_error(StatusCode::kInvalidArgument, where(k, int(d)), ": expected ",
                          dim.value(), " (input shape ", shape_str(t.shape()), ")");
    }
    return ok_status();
  }

  /// Binds every symbol that appears alone (affinely) in some input dim or SymInt input,
  /// checking its divisibility, range, and agreement with inputs bound earlier.
  Status bind_affine(size_t k) {
    for (const auto& [e, actual, d] : slots(k)) {
      const std::optional<Affine> f = affine_form(*e, nsym_);
      if (!f) continue;
      const ir::fb::Symbol& s = *m_.symbols()->Get(f->symbol);
      const bool plain = f->a == 1 && f->b == 0;
      const std::string rule =
          plain ? range_str(s) : ir::format_sym_expr(*e, m_.symbols()) + " with " + range_str(s);
      const int64_t num = actual - f->b;
      if (num % f->a != 0)
        return make_error(StatusCode::kInvalidArgument, where(k, d), ": expected ", rule,
                          f->b == 0 ? " (not a multiple of " : " (not congruent modulo ", f->a,
                          ")");
      const int64_t value = num / f->a;
      if (value < s.min() || value > s.max())
        return make_error(
            StatusCode::kInvalidArgument, where(k, d), ": expected ", rule, " (",
            plain ? "" : std::string(ir::str(s.name())) + " = " + std::to_string(value) + " is ",
            value < s.min() ? "below the minimum)" : "above the maximum)");
      int64_t& slot = symbols_[f->symbol];
      if (slot != kUnbound && slot != value)
        return make_error(StatusCode::kInvalidArgument, where(k, d), ": expected ",
                          ir::format_sym_expr(*e, m_.symbols()), " with ", ir::str(s.name()), " = ",
                          slot, " as bound by ", bound_by_[f->symbol], " (inputs disagree on ",
                          ir::str(s.name()), ")");
      if (slot == kUnbound) bound_by_[f->symbol] = binder(k, d);
      slot = value;
    }
    return ok_status();
  }

  /// Checks the dims whose expressions involve several symbols, once all are bound.
  Status check_rest(size_t k) {
    for (const auto& [e, actual, d] : slots(k)) {
      for (const ir::fb::ExprTerm* t : *e->terms())
        if (t->op() == ir::fb::ExprOp::Sym && symbols_[t->value()] == kUnbound)
          return make_error(StatusCode::kUnsupported, where(k, d), ": cannot bind a symbol from '",
                            ir::format_sym_expr(*e, m_.symbols()), "'");
      TIR_ASSIGN_OR_RETURN(int64_t want, ir::eval_sym_expr(*e, symbols_));
      if (want != actual)
        return make_error(StatusCode::kInvalidArgument, where(k, d), ": expected ",
                          ir::format_sym_expr(*e, m_.symbols()), " = ", want);
    }
    return ok_status();
  }

  const ir::fb::Method& m_;
  std::span<const Tensor> inputs_;
  size_t nsym_;
  std::vector<int64_t> symbols_;
  std::vector<std::string> bound_by_;
};

}  // namespace

Result<std::vector<int64_t>> bind_symbols(const ir::fb::Method& method,
                                          std::span<const Tensor> inputs) {
  return Binder(method, inputs).run();
}

Result<std::vector<int64_t>> value_sizes(const ir::fb::Value& v, std::span<const int64_t> symbols) {
  std::vector<int64_t> sizes;
  if (!v.sizes()) return sizes;
  for (const ir::fb::Dim* d : *v.sizes()) {
    TIR_ASSIGN_OR_RETURN(int64_t s, ir::eval_dim(*d, symbols));
    sizes.push_back(s);
  }
  // A verified file may still declare a shape whose elements overflow int64 (Tensor::numel,
  // strides) once its symbols are bound: an error naming the value, found by the tir fuzzer.
  if (sizes.size() > static_cast<size_t>(kMaxRank))
    return make_error(StatusCode::kCorrupt, "value '", ir::str(v.name()), "' has rank ",
                      sizes.size(), ", more than ", kMaxRank);
  const uint64_t item = std::max<uint64_t>(1, dtype_size(ir::to_dtype(v.dtype())));
  TIR_RETURN_IF_ERROR(
      checked_nbytes(sizes, item, "value '" + std::string(ir::str(v.name())) + "' shape").status());
  return sizes;
}

}  // namespace tir
