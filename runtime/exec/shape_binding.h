// Binding symbols from actual input shapes and checking them against the method's
// declared input shapes and symbol ranges, before any kernel runs.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/model.h"

namespace tir {

/// Returns the value of every symbol of `method`, bound from `inputs` (signature order).
/// Errors name the input, the dim and the rule, e.g.
/// "input 'x' dim 1 = 13: expected 16".
Result<std::vector<int64_t>> bind_symbols(const ir::fb::Method& method,
                                          std::span<const Tensor> inputs);

/// Evaluates the declared sizes of value `v` under `symbols`.
Result<std::vector<int64_t>> value_sizes(const ir::fb::Value& v, std::span<const int64_t> symbols);

}  // namespace tir
