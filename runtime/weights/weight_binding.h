// Binding a WeightSet to a model: the checks (every model weight present with its dtype and
// shape, no tensor the model does not know). Checking is separate from binding
// (runtime/weights/weight_source.h ResidentWeights) so Session::swap_weights validates once, up
// front, and each execution context then only re-resolves pointers.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "ir/model.h"
#include "runtime/weights/weight_set.h"

namespace tir {

/// OK when `weights` can serve `model`: a set written for this model (equal, non-zero
/// signature) passes at once; any other set (safetensors, overlays of other files) is checked
/// tensor by tensor. The error names the set's file and the first offending tensor.
Status check_weights(const ir::ModelView& model, const WeightSet& weights);

/// How many times check_weights has run in this process, all threads together (tests show
/// with it that a session checks a weight set once, whatever the number of threads running it).
uint64_t check_weights_count();

}  // namespace tir
