#include "runtime/shape_binding.h"

#include <string>

#include "ir/model.h"
#include "ir/sym_expr.h"

namespace tir {
namespace {

constexpr int64_t kUnbound = INT64_MIN;

std::string symbol_rule(const ir::fb::Symbol& s) {
  std::string r = std::string(ir::str(s.name())) + " in [" + std::to_string(s.min()) + ", ";
  r += s.max() == INT64_MAX ? std::string("inf") : std::to_string(s.max());
  return r + "]";
}

/// The symbol index if `expr` is exactly one symbol, else -1.
int64_t plain_symbol(const ir::fb::SymExpr& expr) {
  if (expr.terms()->size() == 1 && expr.terms()->Get(0)->op() == ir::fb::ExprOp::Sym)
    return expr.terms()->Get(0)->value();
  return -1;
}

}  // namespace

Result<std::vector<int64_t>> bind_symbols(const ir::fb::Method& method,
                                          std::span<const Tensor> inputs) {
  const size_t nsym = method.symbols() ? method.symbols()->size() : 0;
  std::vector<int64_t> symbols(nsym, kUnbound);
  const size_t ninputs = method.inputs() ? method.inputs()->size() : 0;
  if (inputs.size() != ninputs)
    return make_error(StatusCode::kInvalidArgument, "expected ", ninputs, " inputs, got ",
                      inputs.size());
  // Pass 1: plain symbols bind directly; pass 2: every dim is checked.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t k = 0; k < ninputs; ++k) {
      const ir::fb::Value& v = *method.values()->Get(method.inputs()->Get(k));
      const std::string_view name = ir::str(v.name());
      const Tensor& t = inputs[k];
      const size_t rank = v.sizes() ? v.sizes()->size() : 0;
      if (pass == 0) {
        if (t.dtype != ir::to_dtype(v.dtype()))
          return make_error(StatusCode::kInvalidArgument, "input '", name, "' has dtype ",
                            dtype_name(t.dtype), ", expected ",
                            dtype_name(ir::to_dtype(v.dtype())));
        if (size_t(t.rank) != rank)
          return make_error(StatusCode::kInvalidArgument, "input '", name, "' has rank ", t.rank,
                            " (shape ", shape_str(t.shape()), "), expected rank ", rank);
      }
      for (size_t d = 0; d < rank; ++d) {
        const ir::fb::Dim& dim = *v.sizes()->Get(d);
        const int64_t actual = t.sizes[d];
        if (!dim.expr()) {
          if (actual != dim.value())
            return make_error(StatusCode::kInvalidArgument, "input '", name, "' dim ", d, " = ",
                              actual, ": expected ", dim.value(), " (input shape ",
                              shape_str(t.shape()), ")");
          continue;
        }
        const int64_t sym = plain_symbol(*dim.expr());
        if (pass == 0 && sym >= 0) {
          const ir::fb::Symbol& s = *method.symbols()->Get(sym);
          if (symbols[sym] != kUnbound && symbols[sym] != actual)
            return make_error(StatusCode::kInvalidArgument, "input '", name, "' dim ", d, " = ",
                              actual, ": ", ir::str(s.name()), " is already ", symbols[sym],
                              " from another input");
          if (actual < s.min() || actual > s.max())
            return make_error(StatusCode::kInvalidArgument, "input '", name, "' dim ", d, " = ",
                              actual, ": expected ", symbol_rule(s));
          symbols[sym] = actual;
        } else if (pass == 1 && sym < 0) {
          const ir::fb::SymExpr& e = *dim.expr();
          for (const ir::fb::ExprTerm* term : *e.terms())
            if (term->op() == ir::fb::ExprOp::Sym && symbols[term->value()] == kUnbound)
              return make_error(StatusCode::kUnsupported, "input '", name, "' dim ", d,
                                ": cannot bind a symbol from '", ir::str(e.text()), "'");
          TIR_ASSIGN_OR_RETURN(int64_t want, ir::eval_sym_expr(e, symbols));
          if (want != actual)
            return make_error(StatusCode::kInvalidArgument, "input '", name, "' dim ", d, " = ",
                              actual, ": expected ", ir::str(e.text()), " = ", want);
        }
      }
    }
  }
  for (size_t i = 0; i < nsym; ++i) {
    if (symbols[i] == kUnbound) symbols[i] = method.symbols()->Get(i)->hint();
  }
  return symbols;
}

Result<std::vector<int64_t>> value_sizes(const ir::fb::Value& v, std::span<const int64_t> symbols) {
  std::vector<int64_t> sizes;
  if (!v.sizes()) return sizes;
  for (const ir::fb::Dim* d : *v.sizes()) {
    TIR_ASSIGN_OR_RETURN(int64_t s, ir::eval_dim(*d, symbols));
    sizes.push_back(s);
  }
  return sizes;
}

}  // namespace tir
