// tirrun: run a tir model on .npy inputs. See `tirrun --help` and DESIGN.md's CLI contract.
#include <CLI/CLI.hpp>
#include <iostream>

#include "core/printable.h"
#include "tools/run_module.h"

int main(int argc, char** argv) {
  tir::tools::RunModuleOptions o;
  CLI::App app{"tirrun: run a tir model (.tir) with its weights on .npy inputs"};
  app.add_option("model", o.model_path, "Model file written by `tirc import`")->required();
  app.add_option("inputs", o.positional_inputs, "Inputs as .npy, in signature order");
  std::vector<std::string> weights;
  app.add_option("--weights,-w", weights,
                 "Weight file (w.bin or .safetensors); given again, each further file is a "
                 "partial set laid over the previous ones (later wins)")
      ->required()
      ->allow_extra_args(false);  // one file per --weights; the rest are inputs
  app.add_option("--method,-m", o.method, "Method to run")->capture_default_str();
  app.add_option("-i,--input", o.named_inputs, "Named input NAME=FILE.npy (repeatable)");
  app.add_option("-o,--output-dir", o.output_dir, "Write outputs as DIR/output_<k>.npy");
  app.add_option("--repeat,-r", o.repeat, "Extra timed runs after the first")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--threads,-t", o.threads, "CPU threads (0: library default)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--json", o.json, "Print the summary as JSON");
  app.add_option("--profile", o.profile_path,
                 "Write a Chrome trace JSON of the timed runs (per node) and print the top ops "
                 "and module paths by time");
  app.add_option("--profile-top", o.profile_top, "Rows per profile table")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("!--no-verify", o.verify_checksums, "Skip weight checksum verification");
  app.add_option("--dtype", o.dtype,
                 "What GEMM/matmul kernels compute in: f32, or bf16 (weights packed to bf16 "
                 "once, float32 accumulation and outputs; see README for its accuracy)")
      ->capture_default_str();
  app.add_flag("!--no-fuse", o.fuse,
               "Run every node on its own (no GEMM/conv + activation fusion)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "error: " << e.what() << " (see tirrun --help)\n";
    return 2;
  }
  o.weights_path = weights.front();
  o.overlay_paths.assign(weights.begin() + 1, weights.end());
  const tir::Status s = tir::tools::run_module(o, std::cout);
  if (!s.ok()) {
    std::cerr << "error: " << tir::printable(s.message()) << "\n";
    return 1;
  }
  return 0;
}
