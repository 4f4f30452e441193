// Binding a WeightSet to a model: the checks (every model weight present with its dtype and
// shape, no tensor the model does not know) and the per-value data pointers an executor uses.
// Checking is separate from resolving so Session::swap_weights validates once, up front, and
// each execution context then only re-resolves pointers.
#pragma once

#include <vector>

#include "ir/model.h"
#include "core/status.h"
#include "runtime/weight_set.h"

namespace tir {

/// OK when `weights` can serve `model`: a set written for this model (equal, non-zero
/// signature) passes at once; any other set (safetensors, overlays of other files) is checked
/// tensor by tensor. The error names the set's file and the first offending tensor.
Status check_weights(const ir::ModelView& model, const WeightSet& weights);

/// Data pointer of every value of `method`: weights from `weights` (looked up by name),
/// constants from the model, nullptr for everything else.
Result<std::vector<void*>> resolve_fixed_data(const ir::ModelView& model,
                                              const ir::fb::Method& method,
                                              const WeightSet& weights);

}  // namespace tir
