// Layer profile (`tirrun --profile-layers prof.csv --depth D`): a Profiler's per-node events
// rolled up by module path cut to depth D, with the IR's byte counts of each module
// (tooling/partition/layer_profile_csv.h describes the columns). Feeds `tirc partition --profile`.
#pragma once

#include "ir/model.h"
#include "runtime/exec/profiler.h"
#include "tooling/partition/layer_profile_csv.h"

namespace tir::tools {

/// Rolls `profiler`'s events (every profiled run of `method`) up to `depth`. Rows are in the
/// order of each module's first node.
Result<LayerProfileTable> layer_profile_build(const ir::ModelView& model,
                                              const ir::fb::Method& method,
                                              const Profiler& profiler, int depth);

}  // namespace tir::tools
