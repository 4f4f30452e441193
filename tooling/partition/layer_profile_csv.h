// The layer-profile CSV (`tirrun --profile-layers`): one row per module path cut to a depth,
//
//   module,depth,nodes,median_ms,param_bytes,input_bytes,output_bytes,peak_activation_bytes
//
// module: the nn_module_stack path cut to `depth` parts, "(top level)" for ops outside any
// module; nodes: the method's nodes in it; median_ms: median over the profiled runs of the
// summed kernel time of its nodes; param_bytes: distinct weights they read; input_bytes /
// output_bytes: activations entering from / leaving to other modules (or the caller);
// peak_activation_bytes: the most activation bytes live while one of its nodes runs.
// Written by tooling/run/layer_profile.h, read by `tirc partition --profile`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace tir::tools {

inline constexpr const char* kLayerProfileHeader =
    "module,depth,nodes,median_ms,param_bytes,input_bytes,output_bytes,peak_activation_bytes";
inline constexpr const char* kTopLevelModule = "(top level)";

struct LayerProfileRow {
  std::string module;  // "" for ops outside any module
  int64_t nodes = 0;
  double median_ms = 0;
  uint64_t param_bytes = 0, input_bytes = 0, output_bytes = 0, peak_activation_bytes = 0;
};

struct LayerProfileTable {
  int depth = 0;
  std::vector<LayerProfileRow> rows;
};

/// Writes the table atomically.
Status layer_profile_write(const std::string& path, const LayerProfileTable& table);
/// Reads a table; a malformed line is an error naming the file and line.
Result<LayerProfileTable> layer_profile_read(const std::string& path);

}  // namespace tir::tools
