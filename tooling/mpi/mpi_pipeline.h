// `tirrun-mpi`: a partitioned model (`tirc partition`, methods stage0..stageN-1) run across
// N MPI processes, rank k running stage k:
//
//   mpirun -n N tirrun-mpi staged.tir --weights w.bin -i x=x.npy -o out [--microbatches M]
//
// Rank k opens the weight file but binds and touches only stage k's tensors (the file is
// mapped; pages of other stages are never read, so a rank's resident memory is its share).
// Rank 0 reads the inputs and splits them into micro-batches along dim 0; each rank receives
// a micro-batch from rank k-1, runs, and sends to rank k+1 with non-blocking sends that
// overlap the next micro-batch; the last rank concatenates and writes the outputs.
//
// Messages from rank k to k+1, per micro-batch: a header (int64: tensor count, then per
// tensor dtype, rank and kMaxRank sizes), then each tensor's bytes, in order, one tag.
//
// Errors: each rank prints at most one `error:` line naming its rank. A rank count other
// than the stage count, or a rank that fails to load, makes every rank exit 1 (decided
// together, no rank left waiting). Later failures stop the job with MPI_Abort; a receive that
// sees nothing for `timeout_s` (the sender died or hangs) is such a failure.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "tooling/run/run_module.h"

namespace tir::tools {

struct MpiRunOptions {
  RunModuleOptions run;   // model, weights, inputs, output dir, threads, repeat, json
  double timeout_s = 60;  // longest wait for a message before giving up
};

/// Runs this process's rank of the pipeline. Call between MPI_Init and MPI_Finalize. Returns
/// the process exit code: 0, or 1 after printing `error: ...` to `err` (or aborting the job).
int mpi_pipeline_main(const MpiRunOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tir::tools
