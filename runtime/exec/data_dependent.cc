#include "runtime/exec/data_dependent.h"

#include <optional>

#include "kernels/shapes/assertion/assertion.h"
#include "kernels/shapes/indexing/data_dependent.h"
#include "runtime/exec/shape_binding.h"

namespace tir {
namespace {

constexpr std::string_view kLocalScalar = "aten::_local_scalar_dense";

using Bind = DataDependentProbe::Bind;

/// The one symbol `e` is, or -1.
int32_t bare_symbol(const ir::fb::SymExpr* e) {
  if (!e || !e->terms() || e->terms()->size() != 1) return -1;
  const ir::fb::ExprTerm* t = e->terms()->Get(0);
  return t->op() == ir::fb::ExprOp::Sym ? int32_t(t->value()) : -1;
}

/// The data-dependent size node `n` binds, if any: `x.item()`'s value (its second argument
/// names the symbol), or the output dim data_dependent_dim names (nonzero's and
/// masked_select's rows, a boolean mask index's count, repeat_interleave's repeated size).
Result<std::optional<Bind>> bind_of(const ExecGraph& g, const ExecNode& n) {
  const bool item = n.op == kLocalScalar;
  const DataDependentDim dd = item ? DataDependentDim{} : data_dependent_dim(g, n);
  if (!item && dd.dim < 0) return std::optional<Bind>();
  const ir::fb::SymExpr* e = nullptr;
  if (item) {
    e = n.args.size() == 2 ? n.args[1].sym : nullptr;
  } else {
    const ir::fb::Value* out = g.values[n.outputs[0]].ir;
    if (!out->sizes() || out->sizes()->size() <= size_t(dd.dim) ||
        !out->sizes()->Get(dd.dim)->expr())
      return std::optional<Bind>();  // a size torch knew: nothing to bind
    e = out->sizes()->Get(dd.dim)->expr();
  }
  const int32_t sym = bare_symbol(e);
  if (sym < 0 || n.inputs.empty())
    return make_error(StatusCode::kUnsupported, "node '", n.name, "' (", n.op,
                      "): its data-dependent size does not name one symbol of the program");
  Bind b;
  b.value = item ? n.inputs[0] : dd.source;
  b.symbol = sym;
  b.node = n.name;
  if (item) {
    b.kind = Bind::Kind::kItem;
  } else if (n.op == "aten::masked_select") {
    b.kind = Bind::Kind::kMaskedSelect;
    b.self = n.inputs[0];
  } else if (n.op == "aten::_unique2") {
    b.kind = Bind::Kind::kUnique;
  } else if (n.op.starts_with("aten::repeat_interleave")) {
    b.kind = Bind::Kind::kRepeats;
    const bool self_tensor = n.op == "aten::repeat_interleave.self_Tensor";
    b.self = self_tensor ? n.inputs[0] : -1;
    b.dim =
        self_tensor && n.args.size() > 2 && n.args[2].kind == kernels::ArgKind::kInt ? dd.dim : -1;
  } else {
    b.kind = Bind::Kind::kNonzero;
  }
  return std::optional<Bind>(b);
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

/// The size bind `b` reads from its source `t` (with data).
Result<int64_t> read_size(const Bind& b, const Tensor& t, const Plan& probe_plan,
                          std::span<const int64_t> symbols) {
  switch (b.kind) {
    case Bind::Kind::kItem: {
      auto v = kernels::local_scalar_value(t);
      if (!v.ok())
        return make_error(v.status().code(), "node '", b.node, "' (", kLocalScalar,
                          "): ", v.status().message());
      return *v;
    }
    case Bind::Kind::kNonzero:
      return kernels::count_nonzero(t);
    case Bind::Kind::kUnique:
      return kernels::count_unique(t);
    case Bind::Kind::kMaskedSelect: {
      TIR_ASSIGN_OR_RETURN(auto self, value_sizes(*probe_plan.graph->values[b.self].ir, symbols));
      return kernels::count_masked(t, self);
    }
    case Bind::Kind::kRepeats: {  // one repeats value repeats each of the dim's `size` slices
      int64_t size = 1;
      if (b.self >= 0) {
        TIR_ASSIGN_OR_RETURN(auto self, value_sizes(*probe_plan.graph->values[b.self].ir, symbols));
        size = 1;
        if (b.dim >= 0 && size_t(b.dim) < self.size()) size = self[b.dim];
        if (b.dim < 0)
          for (int64_t s : self) size *= s;
      }
      auto n = kernels::count_repeats(t, size);
      if (!n.ok())
        return make_error(n.status().code(), "node '", b.node, "': ", n.status().message());
      return *n;
    }
  }
  return int64_t{0};
}

}  // namespace

Result<std::unique_ptr<DataDependentProbe>> make_data_dependent_probe(const ExecGraph& g) {
  auto probe = std::make_unique<DataDependentProbe>();
  std::vector<bool> needed(g.values.size(), false), bound;
  for (const ExecNode& n : g.nodes) {
    TIR_ASSIGN_OR_RETURN(const std::optional<Bind> b, bind_of(g, n));
    if (!b) continue;
    probe->binds.push_back(*b);
    needed[b->value] = true;
    if (bound.size() <= size_t(b->symbol)) bound.resize(b->symbol + 1, false);
    bound[b->symbol] = true;
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
                        "' computes what a data-dependent size is read from out of another "
                        "data-dependent size, not supported yet");
    keep[i] = true;
    for (int32_t v : n.inputs) needed[v] = true;
  }
  probe->graph = g;
  probe->graph.nodes.clear();
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (keep[i]) probe->graph.nodes.push_back(g.nodes[i]);
  probe->graph.outputs.clear();
  for (const Bind& b : probe->binds) probe->graph.outputs.push_back(b.value);
  probe->graph.mutations.clear();
  return probe;
}

void bind_derived_symbols(const ir::fb::Value& declared, const Tensor& out,
                          std::span<int64_t> symbols, int skip_dim) {
  if (!declared.sizes() || declared.sizes()->size() != size_t(out.rank)) return;
  for (size_t d = 0; d < declared.sizes()->size(); ++d) {
    if (int(d) == skip_dim) continue;
    const int32_t s = bare_symbol(declared.sizes()->Get(d)->expr());
    if (s >= 0 && size_t(s) < symbols.size() && symbols[s] < 0) symbols[s] = out.size(int(d));
  }
}

Status bind_data_dependent(const DataDependentProbe& probe, const ir::fb::Method& method,
                           const Plan& probe_plan, std::span<int64_t> symbols) {
  for (const Bind& b : probe.binds) {
    Tensor t = probe_plan.values[b.value];
    t.data = probe_plan.value_data[b.value];
    TIR_ASSIGN_OR_RETURN(const int64_t v, read_size(b, t, probe_plan, symbols));
    const ir::fb::Symbol& s = *method.symbols()->Get(b.symbol);
    const bool item = b.kind == Bind::Kind::kItem;
    if (v < s.min() || v > s.max())
      return make_error(StatusCode::kInvalidArgument, "node '", b.node,
                        "': ", item ? ".item() is " : "the output has ", v, item ? "" : " rows",
                        ", outside the range [", s.min(), ", ", s.max(),
                        "] the program declares for ", ir::str(s.name()),
                        " (torch._check / constrain_as_size)");
    symbols[b.symbol] = v;
  }
  return ok_status();
}

}  // namespace tir
