#include "ir/sym_expr.h"

#include <algorithm>
#include <vector>

#include "ir/model.h"

namespace tir::ir {
namespace {

int arity(fb::ExprOp op) {
  switch (op) {
    case fb::ExprOp::Const:
    case fb::ExprOp::Sym:
      return 0;
    case fb::ExprOp::Neg:
    case fb::ExprOp::Not:
      return 1;
    default:
      return 2;
  }
}

/// The deepest stack eval_sym_expr keeps; the verifier rejects deeper programs.
constexpr int kMaxExprDepth = 64;

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

Status check_sym_expr(const fb::SymExpr& expr, size_t num_symbols) {
  if (!expr.terms() || expr.terms()->size() == 0)
    return make_error(StatusCode::kCorrupt, "empty symbolic expression");
  if (!elements_aligned(expr.terms()))
    return make_error(StatusCode::kCorrupt, "misaligned symbolic expression");
  int depth = 0;
  for (const fb::ExprTerm* t : *expr.terms()) {
    if (t->op() > fb::ExprOp::MAX)
      return make_error(StatusCode::kCorrupt, "unknown expression op ", int(t->op()));
    if (t->op() == fb::ExprOp::Sym && (t->value() < 0 || size_t(t->value()) >= num_symbols))
      return make_error(StatusCode::kCorrupt, "expression uses symbol ", t->value(), " of ",
                        num_symbols);
    const int n = arity(t->op());
    if (depth < n) return make_error(StatusCode::kCorrupt, "malformed symbolic expression");
    depth = depth - n + 1;
    if (depth > kMaxExprDepth)
      return make_error(StatusCode::kCorrupt, "symbolic expression nests deeper than ",
                        kMaxExprDepth);
  }
  if (depth != 1) return make_error(StatusCode::kCorrupt, "malformed symbolic expression");
  return ok_status();
}

Result<int64_t> eval_sym_expr(const fb::SymExpr& expr, std::span<const int64_t> symbols) {
  auto text = [&] { return expr.text() ? expr.text()->str() : std::string("expression"); };
  auto overflow = [&] {
    return make_error(StatusCode::kInvalidArgument, "integer overflow in ", text());
  };
  if (!expr.terms() || expr.terms()->size() == 0)
    return make_error(StatusCode::kCorrupt, "empty symbolic expression");
  int64_t stack[kMaxExprDepth];
  int sp = 0;
  for (const fb::ExprTerm* t : *expr.terms()) {
    const fb::ExprOp op = t->op();
    const int n = arity(op);
    if (sp < n || (n == 0 && sp == kMaxExprDepth))
      return make_error(StatusCode::kCorrupt, "malformed symbolic expression ", text());
    if (op == fb::ExprOp::Const) {
      stack[sp++] = t->value();
      continue;
    }
    if (op == fb::ExprOp::Sym) {
      if (t->value() < 0 || size_t(t->value()) >= symbols.size())
        return make_error(StatusCode::kCorrupt, "expression uses symbol ", t->value(), " of ",
                          symbols.size());
      stack[sp++] = symbols[t->value()];
      continue;
    }
    if (n == 1) {
      int64_t& x = stack[sp - 1];
      if (op == fb::ExprOp::Neg) {
        if (x == INT64_MIN) return overflow();
        x = -x;
      } else {
        x = !x;
      }
      continue;
    }
    const int64_t b = stack[--sp];
    const int64_t a = stack[sp - 1];
    int64_t r = 0;
    switch (op) {
      case fb::ExprOp::Add:
        if (__builtin_add_overflow(a, b, &r)) return overflow();
        break;
      case fb::ExprOp::Sub:
        if (__builtin_sub_overflow(a, b, &r)) return overflow();
        break;
      case fb::ExprOp::Mul:
        if (__builtin_mul_overflow(a, b, &r)) return overflow();
        break;
      case fb::ExprOp::FloorDiv:
      case fb::ExprOp::Mod:
      case fb::ExprOp::CeilDiv:
        if (b == 0) return make_error(StatusCode::kInvalidArgument, "division by zero in ", text());
        if (op == fb::ExprOp::Mod) {
          r = b == -1 ? 0 : a % b;  // INT64_MIN % -1 traps on x86
          if (r != 0 && ((r < 0) != (b < 0))) r += b;
        } else if (b == -1) {  // floor and ceil are both -a
          if (a == INT64_MIN) return overflow();
          r = -a;
        } else if (op == fb::ExprOp::FloorDiv) {
          r = floor_div(a, b);
        } else {  // ceil(a / b) = -floor(-a / b); a / b rounds toward zero
          r = a / b + ((a % b != 0) && ((a < 0) == (b < 0)) ? 1 : 0);
        }
        break;
      case fb::ExprOp::Max:
        r = std::max(a, b);
        break;
      case fb::ExprOp::Min:
        r = std::min(a, b);
        break;
      case fb::ExprOp::Eq:
        r = a == b;
        break;
      case fb::ExprOp::Ne:
        r = a != b;
        break;
      case fb::ExprOp::Lt:
        r = a < b;
        break;
      case fb::ExprOp::Le:
        r = a <= b;
        break;
      case fb::ExprOp::Gt:
        r = a > b;
        break;
      case fb::ExprOp::Ge:
        r = a >= b;
        break;
      case fb::ExprOp::And:
        r = a && b;
        break;
      case fb::ExprOp::Or:
        r = a || b;
        break;
      default:
        return make_error(StatusCode::kCorrupt, "bad expression op");
    }
    stack[sp - 1] = r;
  }
  if (sp != 1) return make_error(StatusCode::kCorrupt, "malformed symbolic expression ", text());
  return stack[0];
}

std::string format_sym_expr(const fb::SymExpr& expr,
                            const flatbuffers::Vector<flatbuffers::Offset<fb::Symbol>>* symbols) {
  struct Part {
    std::string text;
    int prec;  // 0 comparison/logic, 1 additive, 2 multiplicative, 3 unary, 4 atom
  };
  std::vector<Part> st;
  auto wrap = [](const Part& p, int prec) { return p.prec < prec ? "(" + p.text + ")" : p.text; };
  for (const fb::ExprTerm* t : *expr.terms()) {
    const fb::ExprOp op = t->op();
    if (op == fb::ExprOp::Const) {
      st.push_back({std::to_string(t->value()), t->value() < 0 ? 3 : 4});
      continue;
    }
    if (op == fb::ExprOp::Sym) {
      const bool named = symbols && t->value() >= 0 && size_t(t->value()) < symbols->size() &&
                         symbols->Get(t->value())->name();
      st.push_back(
          {named ? symbols->Get(t->value())->name()->str() : "s?" + std::to_string(t->value()), 4});
      continue;
    }
    if (st.size() < size_t(arity(op))) return "<malformed expression>";
    if (arity(op) == 1) {
      Part a = st.back();
      st.pop_back();
      st.push_back(op == fb::ExprOp::Neg ? Part{"-" + wrap(a, 3), 3}
                                         : Part{"not " + wrap(a, 1), 0});
      continue;
    }
    Part b = st.back();
    st.pop_back();
    Part a = st.back();
    st.pop_back();
    auto infix = [&](const char* sym, int prec) {
      // Left-associative: the right side needs parens at equal precedence.
      return Part{wrap(a, prec) + sym + (b.prec <= prec ? "(" + b.text + ")" : b.text), prec};
    };
    switch (op) {
      case fb::ExprOp::Add:
        st.push_back(infix(" + ", 1));
        break;
      case fb::ExprOp::Sub:
        st.push_back(infix(" - ", 1));
        break;
      case fb::ExprOp::Mul:
        st.push_back(infix("*", 2));
        break;
      case fb::ExprOp::FloorDiv:
        st.push_back(infix("//", 2));
        break;
      case fb::ExprOp::Mod:
        st.push_back(infix("%", 2));
        break;
      case fb::ExprOp::Max:
        st.push_back({"max(" + a.text + ", " + b.text + ")", 4});
        break;
      case fb::ExprOp::Min:
        st.push_back({"min(" + a.text + ", " + b.text + ")", 4});
        break;
      case fb::ExprOp::CeilDiv:
        st.push_back({"ceildiv(" + a.text + ", " + b.text + ")", 4});
        break;
      case fb::ExprOp::Eq:
        st.push_back(infix(" == ", 0));
        break;
      case fb::ExprOp::Ne:
        st.push_back(infix(" != ", 0));
        break;
      case fb::ExprOp::Lt:
        st.push_back(infix(" < ", 0));
        break;
      case fb::ExprOp::Le:
        st.push_back(infix(" <= ", 0));
        break;
      case fb::ExprOp::Gt:
        st.push_back(infix(" > ", 0));
        break;
      case fb::ExprOp::Ge:
        st.push_back(infix(" >= ", 0));
        break;
      case fb::ExprOp::And:
        st.push_back(infix(" and ", 0));
        break;
      case fb::ExprOp::Or:
        st.push_back(infix(" or ", 0));
        break;
      default:
        st.push_back({"?", 4});
        break;
    }
  }
  return st.empty() ? std::string() : st.back().text;
}

Result<int64_t> eval_dim(const fb::Dim& dim, std::span<const int64_t> symbols) {
  if (!dim.expr()) return dim.value();
  return eval_sym_expr(*dim.expr(), symbols);
}

}  // namespace tir::ir
