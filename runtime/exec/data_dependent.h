// Data-dependent ints: `n = x.item()` gives an unbacked symbol (u0) that later shapes,
// slices and torch._check assertions use (importer/scalar_binding.cc keeps it as a node
// `aten::_local_scalar_dense(x, u0)`); nonzero, masked_select, boolean mask indices
// (`x[mask]`) and repeat_interleave by a tensor name an output dim the same way
// (data_dependent_dim in runtime/passes/exec_graph.h). Before the executor plans a run it
// binds such symbols: it runs the probe, the part of the method that computes the `.item()`
// sources and what those sizes are counted from (their backward slice, planned and cached
// like any plan), reads each value or counts the elements, checks it against
// the symbol's range (what torch._check declared) and binds it; the method's plan for that
// binding then runs in full. The slice runs twice per run; it is usually an input or a small
// reduction. A source computed from another data-dependent size (JetMoE counts the tokens
// of rows another count selected) is read in a later stage: the probe is a chain of stages,
// each planned with the symbols the earlier ones bound.
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "ir/model.h"
#include "runtime/exec/plan.h"
#include "runtime/passes/exec_graph.h"

namespace tir {

struct DataDependentProbe {
  ExecGraph graph;  // the method's nodes that compute the sources; outputs: the sources
  struct Bind {
    enum class Kind : uint8_t { kItem, kNonzero, kMaskedSelect, kRepeats, kUnique, kBincount };
    Kind kind = Kind::kItem;
    int32_t value = -1;   // the source: item's one element, DataDependentDim::source
    int32_t symbol = -1;  // the method's symbol it binds
    std::string_view node;
    int32_t self = -1;      // kMaskedSelect: self, whose declared shape the mask broadcasts to;
                            // kRepeats: self (repeat_interleave.self_Tensor) or -1
    int dim = -1;           // kRepeats: the repeated dim of self; -1: all of it (dim None)
    int64_t minlength = 0;  // kBincount
  };
  std::vector<Bind> binds;  // per graph output, in order
  /// The stage that reads sizes computed from this one's symbols, or null.
  std::unique_ptr<DataDependentProbe> next;
};

/// The probe of `g` (lowered, after the passes): its first stage, or null when no node binds a
/// symbol.
Result<std::unique_ptr<DataDependentProbe>> make_data_dependent_probe(const ExecGraph& g);

/// A data-dependent size an op derives from other data-dependent ints (`x[:n]` has u1 =
/// min(u0, len(x)) rows): each dim of `declared` that is one symbol not bound yet (negative:
/// an unbacked symbol has no hint) is bound to the size the kernel computed, `out`; but
/// `skip_dim`, which a pass narrowed to one position (ExecValue::last_position_dim).
void bind_derived_symbols(const ir::fb::Value& declared, const Tensor& out,
                          std::span<int64_t> symbols, int skip_dim = -1);

/// Binds every probe symbol in `symbols` from `probe_plan`'s run, checking each against the
/// range `method` declares for it.
Status bind_data_dependent(const DataDependentProbe& probe, const ir::fb::Method& method,
                           const Plan& probe_plan, std::span<int64_t> symbols);

}  // namespace tir
