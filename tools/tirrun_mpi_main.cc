// tirrun-mpi: a partitioned model's stages across MPI ranks (tooling/mpi/mpi_pipeline.h).
//   mpirun -n N tirrun-mpi staged.tir --weights w.bin [-i NAME=FILE.npy ...] [FILE.npy ...]
//          [-o OUTDIR] [--microbatches M] [--threads T] [--repeat R] [--timeout S] [--json]
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "tooling/cli/number_flags.h"
#include "tooling/cli/parse_command_line.h"
#include "tooling/mpi/mpi_pipeline.h"

namespace {

int tool_main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  tir::tools::MpiRunOptions mo;
  tir::tools::RunModuleOptions& o = mo.run;
  CLI::App app{
      "tirrun-mpi: run a partitioned tir model (tirc partition) with one MPI rank per "
      "stage"};
  app.add_option("model", o.model_path, "Staged model written by `tirc partition`")->required();
  app.add_option("inputs", o.positional_inputs, "Inputs as .npy, in signature order (rank 0)");
  app.add_option("--weights,-w", o.weights_path, "Weight file (every rank binds its share)")
      ->required();
  app.add_option("-i,--input", o.named_inputs, "Named input NAME=FILE.npy (repeatable)");
  app.add_option("-o,--output-dir", o.output_dir, "Last rank writes DIR/output_<k>.npy");
  app.add_option("--microbatches", o.microbatches, "Micro-batches split along dim 0")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--repeat,-r", o.repeat, "Extra timed runs after the first")
      ->check(tir::tools::whole_number(0, INT32_MAX));
  app.add_option("--threads,-t", o.threads, "CPU threads per rank (0: library default)")
      ->check(tir::tools::whole_number(0, INT32_MAX));
  app.add_option("--timeout", mo.timeout_s,
                 "Seconds a rank waits for a message before stopping the job")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--json", o.json, "Print the summary as JSON (last rank)");
  int code = 0;
  if (auto parsed = tir::tools::parse_command_line(app, argc, argv, "tirrun-mpi", rank == 0))
    code = *parsed;
  else
    code = tir::tools::mpi_pipeline_main(mo, std::cout, std::cerr);
  MPI_Finalize();
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  return tir::tools::guarded_main("tirrun-mpi", [&] { return tool_main(argc, argv); });
}
