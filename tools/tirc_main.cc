// tirc: the tir compiler tool. Thin main over importer/ and tools/ (DESIGN.md "Command line").
//   tirc import PROGRAM.pt2 [MORE.pt2 | NAME=FILE.pt2 ...] [-o model.tir] [--weights w.bin]
//   tirc inspect model.tir [--json] [--dot graph.dot] [--svg graph.svg] [--method NAME]
//   tirc ops [--json | --markdown | --missing]
//   tirc weights pack SRC -o w.bin|out.safetensors [--dtype bf16|fp16|int8|int4] [--model M.tir]
//                     [--keep-f32 NAME,...]   (calibrated int8: tir-calibrate)
//                     [--compress zstd] [-q]
//   tirc weights diff A B
//   tirc weights extract PROGRAM.pt2 -o w.bin
//   tirc partition model.tir --stages N [--profile prof.csv] [--bandwidth GB/s]
//                  [--memory-cap BYTES] -o staged.tir
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "core/printable.h"
#include "core/quantize_int4.h"
#include "importer/import_pt2.h"
#include "importer/op_check.h"
#include "tooling/cli/parse_command_line.h"
#include "tooling/cli/progress_bar.h"
#include "tooling/cli/read_limit_flags.h"
#include "tooling/inspect/inspect_model.h"
#include "tooling/inspect/op_coverage.h"
#include "tooling/partition/partition.h"
#include "tooling/weights/native_layouts.h"
#include "tooling/weights/weights_tool.h"

namespace {

int fail(const tir::Status& s) {
  std::fflush(stdout);
  std::fprintf(stderr, "error: %s\n", tir::printable(s.message()).c_str());
  return 1;
}

/// `tirc weights pack`: re-encodes the weights into pack.output, then with `layouts_too`
/// writes the layout cache of pack.output (or, without an output, of the source).
int run_weights_pack(tir::tools::PackOptions pack, bool layouts_too,
                     tir::tools::NativeLayoutOptions layouts) {
  if (layouts_too && pack.model.empty())
    return fail(tir::Status(tir::StatusCode::kInvalidArgument,
                            "weights pack --layout native needs --model (the model it runs)"));
  if (pack.output.empty() && !layouts_too)
    return fail(tir::Status(tir::StatusCode::kInvalidArgument,
                            "weights pack needs --output (or --layout native, to write only "
                            "the source's layout cache)"));
  if (!pack.output.empty()) {
    const bool draw = tir::tools::progress_bar_wanted(pack.quiet);
    pack.quiet = pack.quiet || draw;  // on a terminal the bar replaces the tensor-count lines
    tir::tools::ProgressBar bar("packing", draw);
    pack.progress = [&bar](uint64_t done, uint64_t total) { bar.update(done, total); };
    const tir::Status s = tir::tools::weights_pack(pack, std::cout);
    bar.finish();
    if (!s.ok()) return fail(s);
  }
  if (!layouts_too) return 0;
  layouts.model = pack.model;
  layouts.weights = pack.output.empty() ? pack.source : pack.output;
  const tir::Status s = tir::tools::pack_native_layouts(layouts);
  return s.ok() ? 0 : s.message().empty() ? 1 : fail(s);  // empty: tirrun printed the error
}

int run_import(const std::vector<std::string>& programs, const std::string& out,
               const std::string& weights, bool skip_kernel_check, bool quiet,
               const std::vector<std::string>& custom_ops,
               const std::vector<std::string>& custom_op_lists) {
  tir::importer::ImportOptions o;
  o.custom_ops = custom_ops;
  for (const std::string& list : custom_op_lists)
    if (tir::Status st = tir::importer::read_custom_op_list(list, &o.custom_ops); !st.ok())
      return fail(st);
  // NAME=FILE.pt2 names the method; otherwise one program is "forward" and several are
  // named after their file stems.
  for (const std::string& p : programs) {
    const size_t eq = p.find('=');
    const bool named =
        eq != std::string::npos && eq > 0 && std::all_of(p.begin(), p.begin() + eq, [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        });
    if (named)
      o.methods.push_back({p.substr(0, eq), p.substr(eq + 1)});
    else
      o.methods.push_back(
          {programs.size() == 1 ? "forward" : std::filesystem::path(p).stem().string(), p});
  }
  o.model_path = out;
  o.weights_path = weights;
  o.check_kernels = !skip_kernel_check;
  tir::tools::ProgressBar bar("weights", tir::tools::progress_bar_wanted(quiet));
  if (!quiet)
    o.progress = [&bar](const std::string& line) {
      bar.finish();
      std::printf("%s\n", tir::printable(line).c_str());
      std::fflush(stdout);
    };
  o.weight_progress = [&bar](uint64_t done, uint64_t total) { bar.update(done, total); };
  auto r = tir::importer::import_pt2(o);
  bar.finish();
  if (!r.ok()) return fail(r.status());
  const auto& s = *r;
  std::printf(
      "done: %zu method(s), %zu nodes, %zu values, %zu weights (%llu bytes, %zu aliases, %zu "
      "shared by several methods), %zu constants (%llu bytes)\n  model:   %s\n  weights: %s\n",
      s.methods.size(), s.nodes, s.values, s.weights,
      static_cast<unsigned long long>(s.weight_bytes), s.weight_aliases, s.shared_weights,
      s.constants, static_cast<unsigned long long>(s.constant_bytes), s.model_path.c_str(),
      s.weights_path.c_str());
  return 0;
}

}  // namespace

namespace {

int tool_main(int argc, char** argv) {
  CLI::App app{"tirc: import torch.export programs into tir models"};
  app.require_subcommand(1);
  app.footer(
      "`tirc SUBCOMMAND --help` for its flags. Guides: docs/guide/run.md (import, inspect, ops),\n"
      "docs/guide/weights.md (weights pack/diff/extract), docs/guide/pipeline.md (partition);\n"
      "every flag of every tool: docs/reference/cli.md");
  std::vector<std::string> programs;
  std::string out, weights;
  CLI::App* imp = app.add_subcommand("import", "PROGRAM.pt2 -> model.tir + weights.bin");
  imp->add_option("programs", programs,
                  "torch.export programs (.pt2), one method each: FILE.pt2 or NAME=FILE.pt2 "
                  "(several share one weight file)")
      ->required();
  imp->add_option("-o,--output", out, "model file (default: <stem>.tir beside the input)");
  imp->add_option("--weights", weights, "weight file (default: the model path with .bin)");
  bool skip_kernel_check = false;
  bool quiet = false;
  imp->add_flag("-q,--quiet", quiet,
                "no progress (phase lines, the byte progress bar drawn on a terminal)");
  tir::ReadLimits limits;
  tir::tools::add_read_limit_flags(imp, &limits);
  imp->add_flag("--skip-kernel-check", skip_kernel_check,
                "import ops that have no CPU kernel (for inspection; tirrun will reject them)");
  std::vector<std::string> custom_ops, custom_op_lists;
  imp->add_option("--custom-op", custom_ops,
                  "keep the nodes of this custom op (a torch.library op such as "
                  "mylib::scaled_add), whose kernel the application registers; repeatable")
      ->allow_extra_args(false);
  imp->add_option("--custom-ops", custom_op_lists,
                  "a file listing custom ops to keep, one per line (# comments)")
      ->allow_extra_args(false);
  tir::tools::InspectOptions inspect;
  CLI::App* ins = app.add_subcommand("inspect", "show a model's methods, symbols, inputs and ops");
  ins->add_option("model", inspect.model_path, "model file (.tir)")->required();
  ins->add_flag("--json", inspect.json, "print JSON");
  ins->add_option("--dot", inspect.dot_path,
                  "write the graph of a method as Graphviz DOT (module-path clusters)");
  ins->add_option("--svg", inspect.svg_path,
                  "render that graph as SVG with Graphviz `dot` (the DOT goes beside it "
                  "unless --dot names it)");
  ins->add_option("--method", inspect.method, "method to draw (default: the first)");
  bool ops_json = false, ops_markdown = false, ops_missing = false;
  CLI::App* ops = app.add_subcommand("ops", "list the ATen ops tir has kernels for");
  ops->add_flag("--json", ops_json, "print JSON");
  ops->add_flag("--markdown", ops_markdown, "print the coverage page (docs/reference/ops.md)");
  ops->add_flag("--missing", ops_missing, "list the core ATen ops that have no CPU kernel");
  CLI::App* wts = app.add_subcommand("weights", "pack, compare or extract weight files");
  wts->require_subcommand(1);
  tir::tools::PackOptions pack;
  std::string pack_dtype, pack_compress;
  CLI::App* wpack =
      wts->add_subcommand("pack",
                          "re-encode a tir weight file or safetensors as a tir weight file, or as "
                          "safetensors when the output ends in .safetensors");
  wpack->add_option("source", pack.source, "tir weight file or .safetensors")->required();
  wpack->add_option("-o,--output", pack.output,
                    "weight file to write (required unless --layout only writes the source's "
                    "layout cache)");
  wpack
      ->add_option("--dtype", pack_dtype,
                   "store float32 tensors as bf16 or fp16 (widened back to float32 at load), or "
                   "the model's GEMM weights as int8 with per-channel scales (needs --model; "
                   "their GEMMs then run in int8), or int4: linear weights as 4-bit codes with "
                   "group-wise scales, embeddings and the last GEMM (lm_head) int8")
      ->check(CLI::IsMember({"bf16", "fp16", "int8", "int4"}));
  int64_t group_size = 32;
  CLI::Option* group_opt =
      wpack->add_option("--group-size", group_size,
                        "with --dtype int4: values per scale along a row, 32 or 128 (default 32)");
  wpack->add_flag("--asymmetric", pack.int4_asymmetric,
                  "with --dtype int4: a scale and an offset per group (default: symmetric, "
                  "a scale only)");
  wpack->add_option("--compress", pack_compress, "compress each tensor (checked at load)")
      ->check(CLI::IsMember({"zstd"}));
  wpack->add_option("--model", pack.model,
                    "the model the weights belong to: write the tensors in the order its "
                    "methods first read them (sequential reads for tirrun --weight-budget); "
                    "with --dtype int8, which tensors are GEMM weights");
  wpack
      ->add_option("--keep-f32", pack.keep_f32,
                   "with --dtype int8: GEMM weights to keep float32 (NAME,...)")
      ->delimiter(',');
  wpack->add_flag("-q,--quiet", pack.quiet,
                  "no progress (tensor counts, the byte progress bar drawn on a terminal)");
  wpack->add_option("--level", pack.zstd_level, "zstd level")
      ->check(CLI::Range(1, 19))
      ->capture_default_str();
  std::string pack_layout;
  tir::tools::NativeLayoutOptions layouts;
  wpack
      ->add_option("--layout", pack_layout,
                   "native: also write the weight file's layout cache (WEIGHTS.layout: the GEMM "
                   "weights packed into the layouts this CPU's kernels read, mapped by tirrun "
                   "instead of packed; needs --model; runs `tirrun pack-layouts` on zero inputs)")
      ->check(CLI::IsMember({"native"}));
  wpack->add_option("--dim", layouts.dims,
                    "with --layout: a symbol's value for those runs, NAME=VALUE (repeatable)");
  std::string diff_a, diff_b;
  CLI::App* wdiff = wts->add_subcommand(
      "diff", "names only in A / only in B, dtype/shape changes, max abs difference per tensor");
  wdiff->add_option("a", diff_a, "weight file or .safetensors (A)")->required();
  wdiff->add_option("b", diff_b, "weight file or .safetensors (B)")->required();
  double diff_tolerance = 0;
  wdiff
      ->add_option("--tolerance", diff_tolerance,
                   "count tensors whose max abs difference is at most this as equal")
      ->check(CLI::NonNegativeNumber);
  wdiff->footer(
      "Exit status: 0 when A and B hold the same tensors, 1 when they differ, 2 on "
      "error (like diff and cmp).");
  std::string extract_in, extract_out;
  CLI::App* wext = wts->add_subcommand(
      "extract",
      "write the weights of a .pt2 program as a tir weight file (same signature "
      "as `tirc import`)");
  wext->add_option("program", extract_in, "the torch.export program (.pt2)")->required();
  wext->add_option("-o,--output", extract_out, "weight file to write")->required();
  tir::tools::PartitionOptions part;
  CLI::App* prt = app.add_subcommand(
      "partition", "cut a method into pipeline stages (methods stage0..stageN-1)");
  prt->add_option("model", part.model_path, "model file (.tir)")->required();
  prt->add_option("-o,--output", part.output_path, "staged model to write")->required();
  prt->add_option("--stages,-n", part.stages, "number of stages")->required();
  prt->add_option("--method,-m", part.method, "method to cut")->capture_default_str();
  prt->add_option("--profile", part.profile_path,
                  "layer profile CSV from `tirrun --profile-layers` (default: FLOP/byte "
                  "estimate)");
  prt->add_option("--bandwidth", part.bandwidth_gbps, "boundary transfer rate, GB/s")
      ->capture_default_str();
  prt->add_option("--memory-cap", part.memory_cap_bytes, "most weight bytes per stage");
  if (auto code = tir::tools::parse_command_line(app, argc, argv, "tirc")) return *code;
  tir::set_read_limits(limits);
  if (imp->parsed())
    return run_import(programs, out, weights, skip_kernel_check, quiet, custom_ops,
                      custom_op_lists);
  if (ins->parsed()) {
    if (!inspect.svg_path.empty() && inspect.dot_path.empty())
      inspect.dot_path = std::filesystem::path(inspect.svg_path).replace_extension(".dot").string();
    const tir::Status s = tir::tools::inspect_model(inspect, std::cout);
    return s.ok() ? 0 : fail(s);
  }
  if (wpack->parsed()) {
    pack.narrow = pack_dtype == "bf16"                           ? tir::DType::kBFloat16
                  : pack_dtype == "fp16"                         ? tir::DType::kFloat16
                  : pack_dtype == "int8" || pack_dtype == "int4" ? tir::DType::kInt8
                                                                 : tir::DType::kUndefined;
    if (pack_dtype == "int4") {
      pack.int4_group = group_size;
      if (!tir::int4_group_valid(group_size))
        return fail(
            tir::Status(tir::StatusCode::kInvalidArgument,
                        "--group-size must be 32 or 128, got " + std::to_string(group_size)));
    }
    if (pack_dtype != "int4" && group_opt->count() > 0)
      return fail(
          tir::Status(tir::StatusCode::kInvalidArgument, "--group-size applies to --dtype int4"));
    pack.zstd = pack_compress == "zstd";
    return run_weights_pack(pack, pack_layout == "native", layouts);
  }
  if (wdiff->parsed()) {
    const auto same = tir::tools::weights_diff(diff_a, diff_b, diff_tolerance, std::cout);
    if (!same.ok()) {
      fail(same.status());
      return 2;
    }
    return *same ? 0 : 1;
  }
  if (wext->parsed()) {
    const tir::Status s = tir::tools::weights_extract(extract_in, extract_out, std::cout);
    return s.ok() ? 0 : fail(s);
  }
  if (prt->parsed()) {
    const auto plan = tir::tools::partition_model(part, std::cout);
    return plan.ok() ? 0 : fail(plan.status());
  }
  if (ops->parsed()) {
    const auto format = ops_json       ? tir::tools::OpListFormat::kJson
                        : ops_markdown ? tir::tools::OpListFormat::kMarkdown
                        : ops_missing  ? tir::tools::OpListFormat::kMissing
                                       : tir::tools::OpListFormat::kText;
    const tir::Status s = tir::tools::list_ops(format, std::cout);
    return s.ok() ? 0 : fail(s);
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  return tir::tools::guarded_main("tirc", [&] { return tool_main(argc, argv); });
}
