#include "runtime/exec/data_dependent.h"

#include <optional>

#include "kernels/shapes/assertion/assertion.h"
#include "kernels/shapes/indexing/bincount.h"
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
  } else if (n.op == "aten::bincount") {
    b.kind = Bind::Kind::kBincount;
    if (n.args.size() > 2 && n.args[2].kind == kernels::ArgKind::kInt) b.minlength = n.args[2].i;
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

/// Marks in `used` the symbols of `bound` that node `n`'s arguments name.
void mark_used_symbols(const ExecNode& n, const std::vector<bool>& bound, std::vector<bool>& used) {
  auto in = [&](const ir::fb::SymExpr* e) {
    if (e && e->terms())
      for (const ir::fb::ExprTerm* t : *e->terms())
        if (t->op() == ir::fb::ExprOp::Sym && t->value() >= 0 &&
            size_t(t->value()) < bound.size() && bound[t->value()])
          used[t->value()] = true;
  };
  for (const ExecArg& a : n.args) {
    in(a.sym);
    for (const ir::fb::SymExpr* e : a.syms) in(e);
  }
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
    case Bind::Kind::kBincount: {
      auto n = kernels::bincount_size(t, b.minlength);
      if (!n.ok())
        return make_error(n.status().code(), "node '", b.node, "': ", n.status().message());
      return *n;
    }
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
  std::vector<Bind> binds;
  std::vector<bool> bound;  // per symbol: some node binds it
  for (const ExecNode& n : g.nodes) {
    TIR_ASSIGN_OR_RETURN(const std::optional<Bind> b, bind_of(g, n));
    if (!b) continue;
    binds.push_back(*b);
    if (bound.size() <= size_t(b->symbol)) bound.resize(b->symbol + 1, false);
    bound[b->symbol] = true;
  }
  if (binds.empty()) return std::unique_ptr<DataDependentProbe>();
  // Each bind's backward slice, and the data-dependent symbols that slice uses (JetMoE reads a
  // size from rows that another size selected): a bind runs in the stage after the last of
  // those symbols is bound.
  std::vector<std::vector<bool>> slices;
  std::vector<std::vector<int32_t>> uses;  // per bind: the binds whose symbols its slice uses
  for (const Bind& b : binds) {
    std::vector<bool> needed(g.values.size(), false), keep(g.nodes.size(), false);
    std::vector<bool> used(bound.size(), false);
    needed[b.value] = true;
    for (size_t i = g.nodes.size(); i-- > 0;) {
      const ExecNode& n = g.nodes[i];
      bool feeds = false;
      for (int32_t v : n.outputs) feeds = feeds || needed[v];
      if (!feeds) continue;
      keep[i] = true;
      for (int32_t v : n.inputs) needed[v] = true;
      mark_used_symbols(n, bound, used);
    }
    std::vector<int32_t> deps;
    for (size_t k = 0; k < binds.size(); ++k)
      if (used[binds[k].symbol]) deps.push_back(int32_t(k));
    slices.push_back(std::move(keep));
    uses.push_back(std::move(deps));
  }
  std::vector<int> stage(binds.size(), -1);
  int stages = 0;
  for (size_t placed = 0; placed < binds.size(); ++stages) {
    std::vector<size_t> now;
    for (size_t k = 0; k < binds.size(); ++k) {
      if (stage[k] >= 0) continue;
      bool ready = true;
      for (int32_t d : uses[k]) ready = ready && stage[d] >= 0 && stage[d] < stages;
      if (ready) now.push_back(k);
    }
    if (now.empty()) {
      for (size_t k = 0; k < binds.size(); ++k)
        if (stage[k] < 0)
          return make_error(StatusCode::kUnsupported, "node '", binds[k].node,
                            "': its data-dependent size is computed from itself");
    }
    for (size_t k : now) stage[k] = stages;
    placed += now.size();
  }
  std::unique_ptr<DataDependentProbe> first;
  DataDependentProbe* last = nullptr;
  for (int st = 0; st < stages; ++st) {
    auto probe = std::make_unique<DataDependentProbe>();
    std::vector<bool> keep(g.nodes.size(), false);
    for (size_t k = 0; k < binds.size(); ++k) {
      if (stage[k] != st) continue;
      probe->binds.push_back(binds[k]);
      for (size_t i = 0; i < keep.size(); ++i) keep[i] = keep[i] || slices[k][i];
    }
    probe->graph = g;
    probe->graph.nodes.clear();
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (keep[i]) probe->graph.nodes.push_back(g.nodes[i]);
    probe->graph.outputs.clear();
    for (const Bind& b : probe->binds) probe->graph.outputs.push_back(b.value);
    probe->graph.mutations.clear();
    probe->graph.input_mutations.clear();
    DataDependentProbe* raw = probe.get();
    if (last)
      last->next = std::move(probe);
    else
      first = std::move(probe);
    last = raw;
  }
  return first;
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
