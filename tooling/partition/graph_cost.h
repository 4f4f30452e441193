// What a method's nodes read, write and cost, from the IR alone (no kernels run): the facts
// that layer profiles (tooling/run/layer_profile.h) and pipeline partitioning
// (tooling/partition/partition.h) share. Sizes come from the IR's dims (a symbolic dim counts at
// its export-time hint).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/model.h"

namespace tir::tools {

/// Cost of one node by the estimate: floating-point operations and bytes moved.
struct NodeEstimate {
  double flops = 0;
  double bytes = 0;    // activations read and written (0 for views)
  double seconds = 0;  // flops / kEstimateFlops + bytes / kEstimateBytesPerSecond
};

/// The rates the estimate assumes (one core of a recent x86 CPU running oneDNN kernels).
/// Only the ratio between nodes matters for balancing stages; a measured profile replaces it.
inline constexpr double kEstimateFlops = 50e9;
inline constexpr double kEstimateBytesPerSecond = 10e9;

struct GraphCost {
  const ir::fb::Method* method = nullptr;
  size_t num_nodes = 0;
  std::vector<uint64_t> value_bytes;          // per value; 0 for non-tensors
  std::vector<int32_t> producer;              // per value: node index, -1 for others
  std::vector<int32_t> last_use;              // per value: last reading node, num_nodes if a
                                              // user output, -1 if never read
  std::vector<std::vector<int32_t>> reads;    // per node: distinct values read
  std::vector<std::vector<int32_t>> weights;  // per node: Model.weights indices it binds
                                              // (cond branches' weights included)
  std::vector<NodeEstimate> estimate;         // per node
  std::vector<uint64_t> weight_bytes;         // per Model.weights index
};

/// Analyses `method` of `model`. Errors name the method.
Result<GraphCost> graph_cost(const ir::ModelView& model, const ir::fb::Method& method);

/// `path` cut to its first `depth` dot-separated parts ("h.0.attn", 2 -> "h.0"); "" stays
/// "" (ops outside any module). depth <= 0 keeps the whole path.
std::string module_prefix(std::string_view path, int depth);

/// Bytes of a value from its dtype and (hinted) dims.
uint64_t value_nbytes(const ir::fb::Value& v);

}  // namespace tir::tools
