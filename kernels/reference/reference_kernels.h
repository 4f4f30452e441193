// Run functions of the reference kernels (plain loops, double accumulation). They are the
// oracle of the kernel tests, and optimized kernels call them for cases they do not
// accelerate. Each takes the params its shared `*_prepare_*` function produced.
#pragma once

#include "kernels/kernel.h"
#include "kernels/kernel_util.h"
#include "kernels/shapes/binary/arithmetic.h"
#include "kernels/shapes/convolution/conv.h"
#include "kernels/shapes/linear_algebra/gemm.h"
#include "kernels/shapes/movement/view.h"
#include "kernels/shapes/normalization/batch_norm.h"
#include "kernels/shapes/pooling/pool.h"
#include "kernels/shapes/reduction/mean.h"

namespace tir::kernels {

void ref_gemm(const GemmParams& p, const KernelCall& call, void* scratch);
void ref_conv2d(const ConvParams& p, const KernelCall& call, void* scratch);
void ref_batch_norm(const BatchNormParams& p, const KernelCall& call, void* scratch);
/// Batch norm over the batch's own statistics (kernels/reference/normalization/norm_stats.cc).
void ref_batch_norm_no_stats(const BatchStatsParams& p, const KernelCall& call, void* scratch);
void ref_max_pool2d(const MaxPoolParams& p, const KernelCall& call, void* scratch);
void ref_adaptive_avg_pool2d(const AdaptivePoolParams& p, const KernelCall& call, void* scratch);
void ref_mean(const ReduceParams& p, const KernelCall& call, void* scratch);
void ref_binary(const BinaryParams& p, const KernelCall& call, void* scratch);
/// Copies for permute/t/clone; nothing for aliasing shape ops.
void ref_shape(const ViewParams& p, const KernelCall& call, void* scratch);

/// A batch-norm op in either mode: training=False through `Eval` (a kernel over running
/// statistics), training=True through `TrainPrepare` and `TrainRun` over the batch's own
/// statistics; `Training` reads the call's training flag.
template <typename Eval, Result<bool> (*Training)(const KernelCall&), typename TrainParams,
          Result<TrainParams> (*TrainPrepare)(const KernelCall&, PrepareInfo*),
          void (*TrainRun)(const TrainParams&, const KernelCall&, void*)>
class TrainingOrEval final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(training_, Training(call));
    if (!training_) return eval_.prepare(call, out_info);
    TIR_ASSIGN_OR_RETURN(train_, TrainPrepare(call, out_info));
    return ok_status();
  }
  Status run(const KernelCall& call, void* scratch) override {
    if (!training_) return eval_.run(call, scratch);
    TrainRun(train_, call, scratch);
    return ok_status();
  }

 private:
  bool training_ = false;
  Eval eval_;
  TrainParams train_;
};

/// aten::batch_norm: training=True without running statistics (NFNet's weight
/// standardisation, F.batch_norm(w, None, None, training=True)) over the batch's statistics.
template <typename Eval>
using BatchNormEitherMode =
    TrainingOrEval<Eval, batch_norm_training, BatchStatsParams, norm_prepare_batch_norm_training,
                   ref_batch_norm_no_stats>;

}  // namespace tir::kernels
