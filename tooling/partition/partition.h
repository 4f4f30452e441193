// Pipeline partitioning (`tirc partition`): cut a method's topological order into N contiguous
// stages that minimise the slowest stage's cost under a per-stage weight-memory cap, and write
// one model whose methods stage0..stageN-1 run them in turn over the same weight file.
//
// Cost of a stage = its nodes' compute time + the bytes it receives / bandwidth. Compute
// comes from a layer profile (`tirrun --profile-layers`, tooling/run/layer_profile.h: each module's
// measured median time shared among its nodes in proportion to their estimates) or, without
// one, from the FLOP and byte estimate of tooling/partition/graph_cost.h. The cut points come from
// a dynamic program over the O(nodes^2) contiguous ranges. A cut is allowed only where every value
// crossing it is a tensor (symbolic ints and None stay inside a stage) and no group the runtime
// fuses into one kernel call (runtime/passes/fusion.h) straddles it.
//
// Stage k's inputs are the tensors live across its first cut (stage 0: the method's inputs),
// its outputs those live across its last cut (the last stage: the method's outputs), sorted
// by value index. A tensor read by a later stage is forwarded: an output of each stage it
// passes through. Each stage's values hold only the weights its nodes read, so a session of
// one stage binds (and touches) only those.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/status.h"
#include "tooling/partition/graph_cost.h"

namespace tir::tools {

struct PartitionOptions {
  std::string model_path;
  std::string output_path;
  std::string method = "forward";
  int stages = 2;
  std::string profile_path;       // CSV from `tirrun --profile-layers`; empty: estimate
  double bandwidth_gbps = 10;     // boundary transfer rate, GB/s (1e9 bytes per second)
  uint64_t memory_cap_bytes = 0;  // per-stage weight bytes; 0: no cap
  /// Node ranges [first, last] that run as one kernel call (runtime/passes/fusion.h): no cut falls
  /// inside one, so each stage fuses exactly as the whole method does and gives the same bits.
  std::vector<std::pair<size_t, size_t>> fused_spans;
};

struct StageInfo {
  size_t first_node = 0, end_node = 0;   // [first, end) of the method's nodes
  uint64_t weight_bytes = 0;             // distinct weights its nodes read
  double compute_ms = 0;                 // predicted
  uint64_t in_bytes = 0, out_bytes = 0;  // boundary tensors received and sent
  double predicted_ms = 0;               // compute + in_bytes / bandwidth
  std::vector<int32_t> inputs, outputs;  // value indices in the source method
};

struct PartitionPlan {
  std::vector<StageInfo> stages;
  bool from_profile = false;
};

/// The fused groups of `method` as node ranges (for PartitionOptions::fused_spans).
Result<std::vector<std::pair<size_t, size_t>>> partition_fused_spans(const ir::ModelView& model,
                                                                     const ir::fb::Method& method);

/// Per-node compute seconds: from the profile when `profile_path` is set, else estimates.
Result<std::vector<double>> partition_node_seconds(const GraphCost& g,
                                                   const std::string& profile_path);

/// Chooses the cut points. Errors: more stages than nodes (or than allowed cuts + 1), a cap
/// no partition can meet.
Result<PartitionPlan> partition_plan(const GraphCost& g, const std::vector<double>& node_seconds,
                                     const PartitionOptions& options);

/// The whole job: read, plan, write `output_path` atomically, print the per-stage table.
Result<PartitionPlan> partition_model(const PartitionOptions& options, std::ostream& out);

}  // namespace tir::tools
