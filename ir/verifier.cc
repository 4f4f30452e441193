#include "ir/verifier.h"

#include <vector>

#include "ir/model.h"
#include "ir/sym_expr.h"
#include "runtime/core/tensor.h"

namespace tir::ir {
namespace {

class MethodVerifier {
 public:
  MethodVerifier(const fb::Model& model, const fb::Method& m, std::string_view file)
      : model_(model), m_(m), file_(file) {}

  Status run() {
    num_values_ = m_.values() ? m_.values()->size() : 0;
    num_symbols_ = m_.symbols() ? m_.symbols()->size() : 0;
    defined_.assign(num_values_, false);
    TIR_RETURN_IF_ERROR(check_symbols());
    TIR_RETURN_IF_ERROR(check_values());
    TIR_RETURN_IF_ERROR(check_nodes());
    TIR_RETURN_IF_ERROR(check_io());
    return ok_status();
  }

 private:
  template <typename... P>
  Status fail(const P&... parts) const {
    return make_error(StatusCode::kCorrupt, "'", file_, "' method '", str(m_.name()),
                      "': ", parts...);
  }

  Status check_symbols() {
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
      switch (v->source()) {
        case fb::ValueSource::Weight:
          if (v->index() < 0 || size_t(v->index()) >= nweights)
            return fail(where, " references weight ", v->index(), " of ", nweights);
          defined_[i] = true;
          break;
        case fb::ValueSource::Constant:
          if (v->index() < 0 || size_t(v->index()) >= nconsts)
            return fail(where, " references constant ", v->index(), " of ", nconsts);
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
    switch (a->value_type()) {
      case fb::ArgValue::NONE:
        return fail(where, " has no value");
      case fb::ArgValue::TensorArg:
        return check_use(a->value_as_TensorArg()->value(), node, false);
      case fb::ArgValue::TensorsArg: {
        const fb::TensorsArg* t = a->value_as_TensorsArg();
        if (t->values())
          for (int32_t idx : *t->values()) TIR_RETURN_IF_ERROR(check_use(idx, node, t->optional()));
        return ok_status();
      }
      case fb::ArgValue::SymIntArg:
        return check_expr(a->value_as_SymIntArg()->value(), where);
      case fb::ArgValue::SymIntsArg: {
        const fb::SymIntsArg* s = a->value_as_SymIntsArg();
        if (s->values())
          for (const fb::SymExpr* e : *s->values()) TIR_RETURN_IF_ERROR(check_expr(e, where));
        return ok_status();
      }
      case fb::ArgValue::DTypeArg:
        if (!dtype_valid(int(a->value_as_DTypeArg()->value()))) return fail(where, " bad dtype");
        return ok_status();
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
    }
    return ok_status();
  }

  Status check_io() {
    if (m_.inputs())
      for (int32_t idx : *m_.inputs()) {
        if (idx < 0 || size_t(idx) >= num_values_) return fail("input index out of range");
        if (m_.values()->Get(idx)->source() != fb::ValueSource::UserInput)
          return fail("input '", str(m_.values()->Get(idx)->name()), "' is not a user input");
      }
    if (m_.outputs())
      for (int32_t idx : *m_.outputs()) TIR_RETURN_IF_ERROR(check_use(idx, "<outputs>", false));
    if (m_.mutations())
      for (const fb::BufferMutation* mu : *m_.mutations())
        TIR_RETURN_IF_ERROR(check_use(mu->value(), "<mutations>", false));
    return ok_status();
  }

  const fb::Model& model_;
  const fb::Method& m_;
  std::string_view file_;
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
    }
  }
  if (model.constants()) {
    for (const fb::Constant* c : *model.constants()) {
      int64_t numel = 1;
      if (c->shape())
        for (int64_t d : *c->shape()) numel *= d;
      const size_t bytes = c->data() ? c->data()->size() : 0;
      if (!dtype_valid(int(c->dtype())) || numel < 0 ||
          bytes != size_t(numel) * dtype_size(to_dtype(c->dtype())))
        return make_error(StatusCode::kCorrupt, "'", file, "': constant '", str(c->name()),
                          "' has ", bytes, " bytes, which does not match its dtype and shape");
    }
  }
  for (const fb::Method* m : *model.methods())
    TIR_RETURN_IF_ERROR(MethodVerifier(model, *m, file).run());
  return ok_status();
}

}  // namespace tir::ir
