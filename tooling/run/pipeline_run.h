// A staged model (`tirc partition`, methods stage0..stageN-1) run as a pipeline in one process
// (`tirrun staged.tir --pipeline --microbatches M`): one thread per stage, each with its own
// Session over the shared weight set, joined by bounded queues. The inputs are split into M
// micro-batches along dim 0; stage k runs micro-batch m while stage k+1 runs m-1. Outputs are
// the last stage's, concatenated along dim 0 again.
#pragma once

#include <iosfwd>
#include <memory>
#include <vector>

#include "core/status.h"
#include "runtime/exec/session.h"
#include "runtime/weights/host_tensor.h"

namespace tir::tools {

/// The stage sessions of a staged model, in order.
struct StagedModel {
  std::vector<std::unique_ptr<Session>> stages;
};

/// Opens one session per method stage0, stage1, ... of the model in `model` (an error when it
/// has no stage0).
Result<StagedModel> staged_model_open(std::shared_ptr<const DataSource> model,
                                      std::shared_ptr<const WeightSet> weights,
                                      const SessionOptions& options);

/// Number of methods stage0..stageK-1 in the model at `bytes` (0 when none).
Result<int> staged_model_count(std::span<const uint8_t> bytes, const std::string& file);

/// Splits each input along dim 0 into `m` equal micro-batches; an error names the input whose
/// dim 0 `m` does not divide.
Result<std::vector<std::vector<HostTensor>>> split_microbatches(std::span<const HostTensor> inputs,
                                                                std::span<const IoSpec> specs,
                                                                int m);

/// Concatenates per-micro-batch outputs along dim 0.
Result<std::vector<HostTensor>> concat_microbatches(
    const std::vector<std::vector<HostTensor>>& parts);

/// A contiguous copy of any tensor view.
HostTensor host_copy(const Tensor& t);

struct PipelineStats {
  double wall_ms = 0;
  std::vector<double> busy_ms;  // per stage: time inside Session::run
};

/// One worker thread per stage, started once and kept, so each stage's session context
/// (plans, prepared kernels) is built on the first run only. Stages are joined by queues of
/// `queue_depth` micro-batches. One run() at a time: calls from other threads wait their turn.
class ThreadPipeline {
 public:
  ThreadPipeline(StagedModel model, size_t queue_depth, int threads_per_stage);
  ~ThreadPipeline();
  ThreadPipeline(const ThreadPipeline&) = delete;
  ThreadPipeline& operator=(const ThreadPipeline&) = delete;

  size_t num_stages() const;
  const Session& stage(size_t k) const;

  /// Runs every micro-batch through all stages; returns the last stage's outputs per
  /// micro-batch. A stage's error is returned naming the stage (the other micro-batches
  /// still drain, so the pipeline stays usable).
  Result<std::vector<std::vector<HostTensor>>> run(
      const std::vector<std::vector<HostTensor>>& microbatches, PipelineStats* out_stats);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tir::tools
