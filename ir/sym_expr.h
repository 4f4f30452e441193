// Evaluation of symbolic integer expressions (postfix programs, see SymExpr in tir.fbs).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/status.h"
#include "ir/tir_generated.h"

namespace tir::ir {

/// Checks that `expr` is a well-formed program (stack never underflows, ends with one
/// value, symbol indices < num_symbols). Run by the verifier.
Status check_sym_expr(const fb::SymExpr& expr, size_t num_symbols);

/// Evaluates a verified expression with `symbols[i]` the value of symbol i. Division or
/// modulo by zero is an error.
Result<int64_t> eval_sym_expr(const fb::SymExpr& expr, std::span<const int64_t> symbols);

/// Infix text of a verified expression with symbols named from `symbols` (e.g.
/// "8*s0", "(s0 + 1)//2"), for messages and `tirc inspect`.
std::string format_sym_expr(const fb::SymExpr& expr,
                            const flatbuffers::Vector<flatbuffers::Offset<fb::Symbol>>* symbols);

/// The value of a dim: its static value, or its expression evaluated.
Result<int64_t> eval_dim(const fb::Dim& dim, std::span<const int64_t> symbols);

}  // namespace tir::ir
