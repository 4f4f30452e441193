// Semantic checks of a .tir model beyond the FlatBuffers verifier: versions, index ranges,
// arities, dtypes, sizes, topological order, well-formed symbolic expressions.
#pragma once

#include <string_view>

#include "core/status.h"
#include "ir/tir_generated.h"

namespace tir::ir {

/// Returns the first problem found, naming the method, node or value; `file` prefixes it.
Status verify_model_semantics(const fb::Model& model, std::string_view file);

}  // namespace tir::ir
