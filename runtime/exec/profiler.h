// Profiler: per-node wall time and output bytes of Session runs, written as a Chrome trace
// (chrome://tracing, ui.perfetto.dev) and summarised as top-N tables by op and by module path.
//
//   tir::Profiler profiler;
//   session->set_profiler(&profiler);       // every later run records one event per node
//   session->run(inputs);
//   profiler.print_tables(std::cout, 15);
//   profiler.write_chrome_trace("trace.json");
//
// The executor calls `record` only while a profiler is set (one predictable branch per node
// otherwise). Not thread-safe: one Session's runs at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace tir {

/// One kernel run of one node. The string views point into the model, so events are valid
/// while the Session that recorded them is alive.
struct ProfileEvent {
  std::string_view node;         // FX node name
  std::string_view op;           // ATen op with overload, "aten::linear"
  std::string_view module_path;  // nn_module_stack path, "" for ops outside any module
  int32_t node_index = 0;
  int32_t run = 0;            // which profiled run, from 0
  double start_us = 0;        // since the start of the first profiled run
  double dur_us = 0;          // wall time of the kernel's run
  Tensor output;              // dtype and shape of the first output (no data)
  uint64_t output_bytes = 0;  // all outputs together
};

/// A row of a summary table: an op or a module path with its summed node time.
struct ProfileRow {
  std::string key;
  double total_ms = 0;
  int64_t calls = 0;
};

class Profiler {
 public:
  using Clock = std::chrono::steady_clock;

  /// Drops every event and run.
  void clear();

  std::span<const ProfileEvent> events() const { return events_; }
  int num_runs() const { return num_runs_; }
  /// Wall time of all profiled runs together (input checks and planning included), ms.
  double run_ms() const { return run_ms_; }
  /// Sum of all node durations, ms.
  double node_ms() const;

  /// Totals per op (event `op`) and per module path (`(top level)` for ""), largest first.
  std::vector<ProfileRow> by_op() const;
  std::vector<ProfileRow> by_module() const;

  /// The trace as Chrome trace-event JSON: one complete ("X") event per node run with
  /// name = node, cat = op, args = module path, output shape, dtype and bytes.
  std::string chrome_trace() const;
  /// Writes chrome_trace() atomically (no partial file on error).
  Status write_chrome_trace(const std::string& path) const;
  /// Prints the `top_n` largest rows by op and by module path: total ms, % of the run
  /// wall time, calls.
  void print_tables(std::ostream& out, size_t top_n) const;

  /// Called as each node is recorded, with the IR index of its node and its kernel call's
  /// input and output tensors, whose data is valid only during the call (`tir-calibrate`
  /// reads GEMM activations this way; run with SessionOptions::fuse off so every
  /// node is its own call). Unset: nothing more than the event.
  std::function<void(int32_t node_index, std::span<const Tensor> inputs,
                     std::span<const Tensor> outputs)>
      observer;

  // Called by the runtime while this profiler is set on a Session.
  void begin_run();
  void end_run();
  void record(std::string_view node, std::string_view op, std::string_view module_path,
              int32_t node_index, Clock::time_point start, Clock::time_point end,
              std::span<const Tensor> outputs, std::span<const Tensor> inputs = {});

 private:
  std::vector<ProfileEvent> events_;
  Clock::time_point origin_{}, run_start_{};
  int num_runs_ = 0;
  double run_ms_ = 0;
};

}  // namespace tir
