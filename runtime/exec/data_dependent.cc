#include "runtime/exec/data_dependent.h"

#include "kernels/shapes/assertion/assertion.h"

namespace tir {
namespace {

constexpr std::string_view kLocalScalar = "aten::_local_scalar_dense";

/// The symbol a `_local_scalar_dense` node binds: its second argument, a bare symbol.
Result<int32_t> bound_symbol(const ExecNode& n) {
  const ir::fb::SymExpr* e = n.args.size() == 2 ? n.args[1].sym : nullptr;
  if (!e || !e->terms() || e->terms()->size() != 1 ||
      e->terms()->Get(0)->op() != ir::fb::ExprOp::Sym)
    return make_error(StatusCode::kUnsupported, "node '", n.name, "' (", kLocalScalar,
                      "): its value does not name one symbol of the program");
  return int32_t(e->terms()->Get(0)->value());
}

bool uses_symbol(const ExecNode& n, const std::vector<bool>& bound) {
  auto in = [&](const ir::fb::SymExpr* e) {
    if (e && e->terms())
      for (const ir::fb::ExprTerm* t : *e->terms())
        if (t->op() == ir::fb::ExprOp::Sym && t->value() < bound.size() && bound[t->value()])
          return true;
    return false;
  };
  for (const ExecArg& a : n.args) {
    if (in(a.sym)) return true;
    for (const ir::fb::SymExpr* e : a.syms)
      if (in(e)) return true;
  }
  return false;
}

}  // namespace

Result<std::unique_ptr<DataDependentProbe>> make_data_dependent_probe(const ExecGraph& g) {
  auto probe = std::make_unique<DataDependentProbe>();
  std::vector<bool> needed(g.values.size(), false), bound;
  for (const ExecNode& n : g.nodes) {
    if (n.op != kLocalScalar) continue;
    TIR_ASSIGN_OR_RETURN(const int32_t sym, bound_symbol(n));
    if (n.inputs.empty())
      return make_error(StatusCode::kInternal, "node '", n.name, "' reads nothing");
    probe->binds.push_back({n.inputs[0], sym, n.name});
    needed[n.inputs[0]] = true;
    if (bound.size() <= size_t(sym)) bound.resize(sym + 1, false);
    bound[sym] = true;
  }
  if (probe->binds.empty()) return std::unique_ptr<DataDependentProbe>();
  std::vector<bool> keep(g.nodes.size(), false);
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const ExecNode& n = g.nodes[i];
    bool feeds = false;
    for (int32_t v : n.outputs) feeds = feeds || needed[v];
    if (!feeds) continue;
    if (uses_symbol(n, bound))
      return make_error(StatusCode::kUnsupported, "node '", n.name,
                        "' computes the source of a .item() from another .item(), not "
                        "supported yet");
    keep[i] = true;
    for (int32_t v : n.inputs) needed[v] = true;
  }
  probe->graph = g;
  probe->graph.nodes.clear();
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (keep[i]) probe->graph.nodes.push_back(g.nodes[i]);
  probe->graph.outputs.clear();
  for (const auto& b : probe->binds) probe->graph.outputs.push_back(b.value);
  probe->graph.mutations.clear();
  return probe;
}

void bind_derived_symbols(const ir::fb::Value& declared, const Tensor& out,
                          std::span<int64_t> symbols) {
  if (!declared.sizes() || declared.sizes()->size() != size_t(out.rank)) return;
  for (size_t d = 0; d < declared.sizes()->size(); ++d) {
    const ir::fb::SymExpr* e = declared.sizes()->Get(d)->expr();
    if (!e || !e->terms() || e->terms()->size() != 1) continue;
    const ir::fb::ExprTerm* t = e->terms()->Get(0);
    if (t->op() != ir::fb::ExprOp::Sym || t->value() >= symbols.size()) continue;
    if (symbols[t->value()] < 0) symbols[t->value()] = out.size(int(d));
  }
}

Status bind_data_dependent(const DataDependentProbe& probe, const ir::fb::Method& method,
                           const Plan& probe_plan, std::span<int64_t> symbols) {
  for (const auto& b : probe.binds) {
    Tensor t = probe_plan.values[b.value];
    t.data = probe_plan.value_data[b.value];
    auto v = kernels::local_scalar_value(t);
    if (!v.ok())
      return make_error(v.status().code(), "node '", b.node, "' (", kLocalScalar,
                        "): ", v.status().message());
    const ir::fb::Symbol& s = *method.symbols()->Get(b.symbol);
    if (*v < s.min() || *v > s.max())
      return make_error(StatusCode::kInvalidArgument, "node '", b.node, "': .item() is ", *v,
                        ", outside the range [", s.min(), ", ", s.max(),
                        "] the program declares for ", ir::str(s.name()),
                        " (torch._check / constrain_as_size)");
    symbols[b.symbol] = *v;
  }
  return ok_status();
}

}  // namespace tir
