#include "importer/sym_parse.h"

#include <cctype>
#include <charconv>
#include <string>

namespace tir::importer {
namespace {

using fb::ExprOp;

enum class Tok { kEnd, kInt, kIdent, kString, kPunct };

struct Token {
  Tok kind = Tok::kEnd;
  std::string_view text;
  int64_t value = 0;
};

class Parser {
 public:
  Parser(std::string_view text, const SymbolIndexFn& symbol_index)
      : text_(text), symbol_index_(symbol_index) {}

  Result<std::vector<SymTerm>> run() {
    TIR_RETURN_IF_ERROR(advance());
    TIR_RETURN_IF_ERROR(parse_or());
    if (tok_.kind != Tok::kEnd) return fail("unexpected '" + std::string(tok_.text) + "'");
    return std::move(out_);
  }

 private:
  Status fail(const std::string& why) const {
    return make_error(StatusCode::kUnsupported, "symbolic expression '", text_,
                      "' is not supported (", why, ")");
  }

  Status advance() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    tok_ = Token{};
    if (pos_ >= text_.size()) return ok_status();
    const size_t start = pos_;
    const char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      tok_.kind = Tok::kInt;
      tok_.text = text_.substr(start, pos_ - start);
      auto [p, ec] =
          std::from_chars(tok_.text.data(), tok_.text.data() + tok_.text.size(), tok_.value);
      if (ec != std::errc()) return fail("integer out of range");
      return ok_status();
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      tok_.kind = Tok::kIdent;
      tok_.text = text_.substr(start, pos_ - start);
      return ok_status();
    }
    if (c == '\'' || c == '"') {
      const size_t close = text_.find(c, pos_ + 1);
      if (close == std::string_view::npos) return fail("unterminated string");
      tok_.kind = Tok::kString;
      tok_.text = text_.substr(pos_ + 1, close - pos_ - 1);
      pos_ = close + 1;
      return ok_status();
    }
    static constexpr std::string_view kTwo[] = {"//", "**", "<=", ">=", "==", "!="};
    for (std::string_view two : kTwo)
      if (text_.substr(pos_, 2) == two) {
        tok_ = {Tok::kPunct, text_.substr(pos_, 2), 0};
        pos_ += 2;
        return ok_status();
      }
    if (std::string_view("()+-*%<>,=&|~/").find(c) == std::string_view::npos)
      return fail(std::string("unexpected character '") + c + "'");
    tok_ = {Tok::kPunct, text_.substr(pos_, 1), 0};
    ++pos_;
    return ok_status();
  }

  bool is(std::string_view punct) const { return tok_.kind == Tok::kPunct && tok_.text == punct; }
  Status expect(std::string_view punct) {
    if (!is(punct)) return fail("expected '" + std::string(punct) + "'");
    return advance();
  }
  void emit(ExprOp op, int64_t v = 0) { out_.push_back({op, v}); }

  Status parse_or() {
    if (depth_ >= kMaxDepth) return fail("nested too deeply");
    ++depth_;
    Status s = parse_or_inner();
    --depth_;
    return s;
  }
  Status parse_or_inner() {
    TIR_RETURN_IF_ERROR(parse_and());
    while (is("|")) {
      TIR_RETURN_IF_ERROR(advance());
      TIR_RETURN_IF_ERROR(parse_and());
      emit(ExprOp::Or);
    }
    return ok_status();
  }
  Status parse_and() {
    TIR_RETURN_IF_ERROR(parse_not());
    while (is("&")) {
      TIR_RETURN_IF_ERROR(advance());
      TIR_RETURN_IF_ERROR(parse_not());
      emit(ExprOp::And);
    }
    return ok_status();
  }
  Status parse_not() {
    int nots = 0;
    for (; is("~"); ++nots) TIR_RETURN_IF_ERROR(advance());
    TIR_RETURN_IF_ERROR(parse_cmp());
    for (int i = 0; i < nots; ++i) emit(ExprOp::Not);
    return ok_status();
  }
  Status parse_cmp() {
    TIR_RETURN_IF_ERROR(parse_add());
    static constexpr std::pair<std::string_view, ExprOp> kCmp[] = {
        {"==", ExprOp::Eq}, {"!=", ExprOp::Ne}, {"<", ExprOp::Lt},
        {"<=", ExprOp::Le}, {">", ExprOp::Gt},  {">=", ExprOp::Ge}};
    for (auto [text, op] : kCmp)
      if (is(text)) {
        TIR_RETURN_IF_ERROR(advance());
        TIR_RETURN_IF_ERROR(parse_add());
        emit(op);
        break;
      }
    return ok_status();
  }
  Status parse_add() {
    TIR_RETURN_IF_ERROR(parse_mul());
    while (is("+") || is("-")) {
      const ExprOp op = is("+") ? ExprOp::Add : ExprOp::Sub;
      TIR_RETURN_IF_ERROR(advance());
      TIR_RETURN_IF_ERROR(parse_mul());
      emit(op);
    }
    return ok_status();
  }
  Status parse_mul() {
    TIR_RETURN_IF_ERROR(parse_pow());
    while (is("*") || is("//") || is("%") || is("/")) {
      if (is("/")) return fail("true division");
      const ExprOp op = is("*") ? ExprOp::Mul : is("//") ? ExprOp::FloorDiv : ExprOp::Mod;
      TIR_RETURN_IF_ERROR(advance());
      TIR_RETURN_IF_ERROR(parse_pow());
      emit(op);
    }
    return ok_status();
  }
  Status parse_pow() {
    const size_t base_start = out_.size();
    TIR_RETURN_IF_ERROR(parse_unary());
    if (!is("**")) return ok_status();
    TIR_RETURN_IF_ERROR(advance());
    if (tok_.kind != Tok::kInt) return fail("non-constant exponent");
    const int64_t k = tok_.value;
    TIR_RETURN_IF_ERROR(advance());
    return emit_pow(base_start, k);
  }
  // Replaces the base program at [base_start, end) by base*base*...*base (k times). Powers of
  // powers multiply the program's length, so the result is bounded by kMaxTerms.
  Status emit_pow(size_t base_start, int64_t k) {
    if (k < 0 || k > 64) return fail("exponent out of range");
    const size_t base_terms = out_.size() - base_start;
    if (base_start + base_terms * size_t(k) + size_t(k) > kMaxTerms)
      return fail("power expands to more than " + std::to_string(kMaxTerms) + " terms");
    const std::vector<SymTerm> base(out_.begin() + base_start, out_.end());
    out_.resize(base_start);
    if (k == 0) {
      emit(ExprOp::Const, 1);
      return ok_status();
    }
    out_.insert(out_.end(), base.begin(), base.end());
    for (int64_t i = 1; i < k; ++i) {
      out_.insert(out_.end(), base.begin(), base.end());
      emit(ExprOp::Mul);
    }
    return ok_status();
  }
  Status parse_unary() {
    int negs = 0;
    for (; is("-"); ++negs) TIR_RETURN_IF_ERROR(advance());
    if (negs > 0 && tok_.kind == Tok::kInt) {  // a negative literal
      emit(ExprOp::Const, -tok_.value);
      TIR_RETURN_IF_ERROR(advance());
      --negs;
    } else {
      TIR_RETURN_IF_ERROR(parse_primary());
    }
    for (int i = 0; i < negs; ++i) emit(ExprOp::Neg);
    return ok_status();
  }
  Status parse_primary() {
    if (tok_.kind == Tok::kInt) {
      emit(ExprOp::Const, tok_.value);
      return advance();
    }
    if (is("(")) {
      TIR_RETURN_IF_ERROR(advance());
      TIR_RETURN_IF_ERROR(parse_or());
      return expect(")");
    }
    if (tok_.kind != Tok::kIdent) return fail("unexpected token");
    const std::string name(tok_.text);
    TIR_RETURN_IF_ERROR(advance());
    if (!is("(")) {
      if (name == "True" || name == "true")
        emit(ExprOp::Const, 1);
      else if (name == "False" || name == "false")
        emit(ExprOp::Const, 0);
      else
        emit(ExprOp::Sym, symbol_index_(name));
      return ok_status();
    }
    TIR_RETURN_IF_ERROR(advance());
    return parse_call(name);
  }

  // After "Name(": parses the arguments and the closing ")".
  Status parse_call(const std::string& name) {
    if (name == "Symbol") {
      if (tok_.kind != Tok::kString) return fail("Symbol without a name");
      emit(ExprOp::Sym, symbol_index_(tok_.text));
      TIR_RETURN_IF_ERROR(advance());
      return skip_keywords();
    }
    struct Fn {
      std::string_view name;
      ExprOp op;
      int arity;  // -1: n-ary fold, at least 1
    };
    static constexpr Fn kFns[] = {
        {"Add", ExprOp::Add, -1},
        {"Mul", ExprOp::Mul, -1},
        {"Max", ExprOp::Max, -1},
        {"Min", ExprOp::Min, -1},
        {"And", ExprOp::And, -1},
        {"Or", ExprOp::Or, -1},
        {"FloorDiv", ExprOp::FloorDiv, 2},
        {"CleanDiv", ExprOp::FloorDiv, 2},
        {"CeilDiv", ExprOp::CeilDiv, 2},
        {"Mod", ExprOp::Mod, 2},
        {"PythonMod", ExprOp::Mod, 2},
        {"Eq", ExprOp::Eq, 2},
        {"Ne", ExprOp::Ne, 2},
        {"Unequality", ExprOp::Ne, 2},
        {"Equality", ExprOp::Eq, 2},
        {"StrictLessThan", ExprOp::Lt, 2},
        {"LessThan", ExprOp::Le, 2},
        {"StrictGreaterThan", ExprOp::Gt, 2},
        {"GreaterThan", ExprOp::Ge, 2},
        {"Not", ExprOp::Not, 1},
        {"Integer", ExprOp::Const, 1},
        {"Identity", ExprOp::Const, 1},
    };
    if (name == "Piecewise") return parse_piecewise();
    if (name == "Pow" || name == "PowByNatural") {
      const size_t base_start = out_.size();
      TIR_RETURN_IF_ERROR(parse_or());
      TIR_RETURN_IF_ERROR(expect(","));
      const bool wrapped = tok_.kind == Tok::kIdent && tok_.text == "Integer";
      if (wrapped) {
        TIR_RETURN_IF_ERROR(advance());
        TIR_RETURN_IF_ERROR(expect("("));
      }
      if (tok_.kind != Tok::kInt) return fail("non-constant exponent");
      const int64_t k = tok_.value;
      TIR_RETURN_IF_ERROR(advance());
      if (wrapped) TIR_RETURN_IF_ERROR(expect(")"));
      TIR_RETURN_IF_ERROR(emit_pow(base_start, k));
      return expect(")");
    }
    for (const Fn& f : kFns) {
      if (f.name != name) continue;
      int count = 0;
      while (!is(")")) {
        if (count > 0) TIR_RETURN_IF_ERROR(expect(","));
        TIR_RETURN_IF_ERROR(parse_or());
        ++count;
        if (f.arity < 0 && count > 1) emit(f.op);
      }
      if (f.arity > 0 ? count != f.arity : count < 1)
        return fail(std::string(name) + " with " + std::to_string(count) + " arguments");
      if (f.arity > 0 && f.op != ExprOp::Const) emit(f.op);
      return advance();
    }
    return fail("unknown function " + name);
  }

  // After "Piecewise(": pairs `ExprCondPair(v, c)` (srepr) or `(v, c)` (str) up to ")". Torch
  // writes one for torch.sym_ite and for a bool `.item()` read as an int; its value is the
  // first v whose c holds. No select op in the program: the sum of v_i * (c_i and no earlier
  // c_j), in which each product has one factor 0 or 1 (a value is never multiplied out of
  // range), and each value and condition appears once.
  Status parse_piecewise() {
    std::vector<std::vector<SymTerm>> conds;
    const std::vector<SymTerm> before = std::move(out_);
    std::vector<SymTerm> result;
    while (!is(")")) {
      if (!conds.empty()) TIR_RETURN_IF_ERROR(expect(","));
      if (tok_.kind == Tok::kIdent && tok_.text == "ExprCondPair") TIR_RETURN_IF_ERROR(advance());
      TIR_RETURN_IF_ERROR(expect("("));
      out_.clear();
      TIR_RETURN_IF_ERROR(parse_or());
      std::vector<SymTerm> value = std::move(out_);
      TIR_RETURN_IF_ERROR(expect(","));
      out_.clear();
      TIR_RETURN_IF_ERROR(parse_or());
      std::vector<SymTerm> cond = std::move(out_);
      TIR_RETURN_IF_ERROR(expect(")"));
      out_ = std::move(value);
      out_.insert(out_.end(), cond.begin(), cond.end());
      emit(ExprOp::Not);
      emit(ExprOp::Not);  // 0 or 1
      for (const std::vector<SymTerm>& earlier : conds) {
        out_.insert(out_.end(), earlier.begin(), earlier.end());
        emit(ExprOp::Not);
        emit(ExprOp::And);
      }
      emit(ExprOp::Mul);
      const bool first = result.empty();
      result.insert(result.end(), out_.begin(), out_.end());
      if (!first) result.push_back({ExprOp::Add, 0});
      if (result.size() > kMaxTerms) return fail("Piecewise too long");
      conds.push_back(std::move(cond));
    }
    if (conds.empty()) return fail("Piecewise without a case");
    out_ = before;
    out_.insert(out_.end(), result.begin(), result.end());
    return advance();
  }

  // Skips ", key=value" pairs up to and including ")".
  Status skip_keywords() {
    while (is(",")) {
      TIR_RETURN_IF_ERROR(advance());
      if (tok_.kind != Tok::kIdent) return fail("bad Symbol keyword");
      TIR_RETURN_IF_ERROR(advance());
      TIR_RETURN_IF_ERROR(expect("="));
      if (tok_.kind == Tok::kEnd) return fail("truncated Symbol");
      TIR_RETURN_IF_ERROR(advance());
    }
    return expect(")");
  }

  static constexpr int kMaxDepth = 256;
  static constexpr size_t kMaxTerms = 65536;  // as many as the longest text could need
  std::string_view text_;
  const SymbolIndexFn& symbol_index_;
  int depth_ = 0;
  size_t pos_ = 0;
  Token tok_;
  std::vector<SymTerm> out_;
};

}  // namespace

Result<std::vector<SymTerm>> parse_sym_expr(std::string_view text,
                                            const SymbolIndexFn& symbol_index) {
  if (text.size() > 65536)
    return make_error(StatusCode::kUnsupported, "symbolic expression of ", text.size(),
                      " characters is too long");
  return Parser(text, symbol_index).run();
}

}  // namespace tir::importer
