// Parser for torch's symbolic-shape expressions into tir's postfix SymExpr programs
// (ir/tir.fbs ExprTerm). Both spellings torch has written are accepted:
//   str():   "s0", "2*s0", "s0 + 1", "((s0 + 1)//2)", "Max(1, s0)", "Eq(s0, 4)", "s0 >= 2"
//   srepr(): "Symbol('s0', integer=True, positive=True)", "Mul(Integer(2), Symbol('s0'))",
//            "FloorDiv(Add(...), Integer(2))", "StrictLessThan(...)", ...
// Supported: integers, symbols, + - * // % **(small constant exponent), Max, Min, FloorDiv,
// CleanDiv, CeilDiv, Mod/PythonMod, comparisons, And/Or/Not. Anything else is kUnsupported.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "ir/tir_generated.h"

namespace tir::importer {

struct SymTerm {
  fb::ExprOp op;
  int64_t value = 0;
};

/// Maps a symbol name to its index in Method.symbols (adding it when new).
using SymbolIndexFn = std::function<int64_t(std::string_view name)>;

/// Parses `text` into a postfix program; symbols are resolved through `symbol_index`.
Result<std::vector<SymTerm>> parse_sym_expr(std::string_view text,
                                            const SymbolIndexFn& symbol_index);

}  // namespace tir::importer
