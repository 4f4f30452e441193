// tirrun: run a tir model on .npy inputs (`tirrun generate ...`: text from an LLM; `tirrun
// pack-layouts ...`: a layout cache written ahead). See `tirrun --help`, `tirrun generate
// --help` and DESIGN.md's CLI contract.
#include <CLI/CLI.hpp>
#include <iostream>

#include "core/printable.h"
#include "runtime/weights/mapped_fault.h"
#include "tooling/cli/number_flags.h"
#include "tooling/cli/parse_command_line.h"
#include "tooling/cli/read_limit_flags.h"
#include "tooling/generate/generate_command.h"
#include "tooling/layouts/layout_pack.h"
#include "tooling/run/run_module.h"

namespace {

int tool_main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "generate")
    return tir::tools::generate_main(argc - 1, argv + 1);
  if (argc > 1 && std::string_view(argv[1]) == "pack-layouts")
    return tir::tools::pack_layouts_main(argc - 1, argv + 1);
  tir::tools::RunModuleOptions o;
  CLI::App app{
      "tirrun: run a tir model (.tir) with its weights on .npy inputs\n"
      "SUBCOMMANDS (each with --help):\n"
      "  generate       text from an LLM (prefill, decode, sampling)\n"
      "  pack-layouts   a weight file's layout cache written ahead of time"};
  app.footer(
      "Guides: docs/guide/run.md, dynamic-shapes.md, weights.md, generate.md, low-precision.md,\n"
      "large-models.md, gpu.md, pipeline.md; every flag: docs/reference/cli.md");
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
  app.add_option(
      "-o,--output-dir", o.output_dir,
      "Write outputs as DIR/output_<k>.npy (and inputs the program writes as DIR/input_<k>.npy)");
  app.add_option("--repeat,-r", o.repeat, "Extra timed runs after the first")
      ->check(tir::tools::whole_number(0, INT32_MAX));
  app.add_option("--threads,-t", o.threads, "CPU threads (0: library default)")
      ->check(tir::tools::whole_number(0, INT32_MAX));
  app.add_flag("--json", o.json, "Print the summary as JSON");
  app.add_option("--profile", o.profile_path,
                 "Write a Chrome trace JSON of the timed runs (per node) and print the top ops "
                 "and module paths by time");
  app.add_option("--profile-top", o.profile_top, "Rows per profile table")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--profile-layers", o.profile_layers_path,
                 "Write a CSV per module path (cut to --depth): median time over the timed runs, "
                 "parameter, input, output and peak activation bytes (for tirc partition)");
  app.add_option("--depth", o.profile_depth, "Module path parts --profile-layers keeps")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_flag("--pipeline", o.pipeline,
               "Run a partitioned model's methods stage0..stageN-1 as a pipeline, one thread "
               "group per stage (tirc partition)");
  app.add_option("--microbatches", o.microbatches,
                 "--pipeline: split the inputs along dim 0 into this many micro-batches")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("!--no-verify", o.verify_checksums, "Skip weight checksum verification");
  app.add_flag("!--no-layout-cache", o.layout_cache,
               "Neither read nor write the layout cache beside the weight file (WEIGHTS.layout: "
               "GEMM weights packed for this CPU by an earlier run, mapped instead of packed)");
  app.add_option("--dtype", o.dtype,
                 "What GEMM/matmul kernels compute in: f32; bf16 (weights packed to bf16 "
                 "once, float32 accumulation and outputs; float32 on a CPU without native "
                 "bf16); int8 (linear/addmm/mm and convolutions on int8 weights, activations "
                 "quantized per run). docs/guide/low-precision.md gives the accuracy")
      ->capture_default_str();
  app.add_option("--device", o.device,
                 "Where the model runs: cpu; cuda or cuda:N (GPU N runs every op it has a "
                 "kernel for, the CPU the rest; the summary lists which ops stayed on the CPU)")
      ->capture_default_str();
  app.add_option("--weight-budget", o.weight_budget,
                 "Stream the weights from disk keeping at most this many bytes of them in "
                 "memory (512M, 2G), read ahead in execution order; checksums are verified "
                 "per tensor as it is read");
  app.add_flag("!--no-direct-io", o.direct_io,
               "With --weight-budget: read through the page cache (pread + fadvise DONTNEED) "
               "instead of O_DIRECT");
  app.add_option("--weight-io-threads", o.weight_io_threads,
                 "With --weight-budget: threads reading weights ahead")
      ->check(CLI::Range(1, 16))
      ->capture_default_str();
  app.add_option("--dot", o.dot_path,
                 "Write the method's graph as Graphviz DOT, fused groups marked (runs nothing "
                 "without inputs)");
  app.add_option("--svg", o.svg_path, "Render that graph as SVG with Graphviz `dot`");
  app.add_option("--seed", o.seed,
                 "Seed of the random ops (rand, randn, randperm: Philox4x32-10, "
                 "kernels/random.h); the same seed draws the same values. Default: a fresh one "
                 "per run")
      ->check(tir::tools::whole_number(0, UINT64_MAX));
  app.add_option("--adapter", o.adapter,
                 "A PEFT LoRA adapter every run applies: its folder (adapter_config.json + "
                 "adapter_model.safetensors) or that .safetensors file; mapped onto the "
                 "model's weights by module name (docs/guide/weights.md)");
  app.add_flag("!--no-fuse", o.fuse,
               "Run every node on its own (no GEMM/conv + activation fusion)");
  app.add_option("--max-loop-iterations", o.max_loop_iterations,
                 "A while_loop whose condition still holds after this many iterations fails")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  tir::ReadLimits limits;
  tir::tools::add_read_limit_flags(&app, &limits);
  if (auto code = tir::tools::parse_command_line(app, argc, argv, "tirrun")) return *code;
  if (!o.svg_path.empty() && o.dot_path.empty())
    o.dot_path = o.svg_path.substr(0, o.svg_path.rfind('.')) + ".dot";
  tir::set_read_limits(limits);
  tir::report_truncated_mapped_files();  // a file cut during a run: one error line, not SIGBUS
  o.weights_path = weights.front();
  o.overlay_paths.assign(weights.begin() + 1, weights.end());
  const tir::Status s = tir::tools::run_module(o, std::cout);
  if (!s.ok()) {
    std::cerr << "error: " << tir::printable(s.message()) << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return tir::tools::guarded_main("tirrun", [&] { return tool_main(argc, argv); });
}
