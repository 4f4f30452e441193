// The library behind `tirrun`: load a model + weights, read .npy inputs given by name or
// position, run (optionally repeatedly, timing it), write outputs as .npy, summarise.
// Kept out of the main so tests drive it without a process.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace tir {
class HostTensor;
class Session;
}  // namespace tir

namespace tir::tools {

struct RunModuleOptions {
  std::string model_path;
  std::string weights_path;
  std::vector<std::string> overlay_paths;  // partial sets over weights_path, later wins
  std::string method = "forward";
  std::vector<std::string> named_inputs;       // "NAME=FILE.npy"
  std::vector<std::string> positional_inputs;  // "FILE.npy", in signature order
  std::string output_dir;                      // empty: do not write outputs
  int repeat = 0;                              // extra timed runs after the first
  int threads = 0;
  bool json = false;
  bool verify_checksums = true;
  bool layout_cache = true;  // WeightSetOptions::layout_cache (`--no-layout-cache`: false)
  uint64_t max_loop_iterations = 1'000'000;  // SessionOptions::max_loop_iterations
  bool fuse = true;           // SessionOptions::fuse (GEMM/conv + activation as one kernel call)
  std::string dtype = "f32";  // SessionOptions::precision by name: "f32", "bf16" or "int8"
  std::string profile_path;   // non-empty: write a Chrome trace of the timed runs here
  int profile_top = 15;       // rows per profile table
  std::string profile_layers_path;  // non-empty: write the layer profile CSV here
  int profile_depth = 2;            // module path parts the layer profile keeps
  bool pipeline = false;            // run methods stage0..stageN-1 as a threaded pipeline
  int microbatches = 1;             // --pipeline: micro-batches split along dim 0
  std::string weight_budget;        // "512M": SessionOptions::weight_budget (stream the weights)
  bool direct_io = true;            // SessionOptions::direct_io
  std::string device = "cpu";       // SessionOptions::device: "cpu", "cuda" or "cuda:N"
  int weight_io_threads = 4;        // SessionOptions::weight_io_threads
  std::optional<uint64_t> seed;     // SessionOptions::seed (random ops)
  /// Non-empty: a PEFT LoRA adapter (its folder or adapter_model.safetensors) every run uses
  /// (Session::load_adapter, runtime/weights/lora_adapter.h).
  std::string adapter;
  /// Non-empty: write the method's graph with the fused groups marked (tooling/run/session_graph.h)
  /// after loading; without inputs nothing runs then.
  std::string dot_path, svg_path;
};

/// Reads the inputs `options` names for session `s`, in signature order.
Status run_module_load_inputs(const RunModuleOptions& options, const Session& s,
                              std::vector<HostTensor>* out_inputs);

/// `--pipeline`: the stages of a partitioned model on one thread each (tooling/run/pipeline_run.h).
Status run_pipeline_module(const RunModuleOptions& options, std::ostream& out);

/// Runs the whole job, printing the summary to `out`. Errors name the file, input or node.
Status run_module(const RunModuleOptions& options, std::ostream& out);

}  // namespace tir::tools
