// tirc: the tir compiler tool. Thin main over importer/ and tools/ (DESIGN.md "Command line").
//   tirc import PROGRAM.pt2 [-o model.tir] [--weights w.bin]
//   tirc inspect model.tir [--json]
//   tirc ops [--json | --markdown]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "importer/import_pt2.h"
#include "tools/inspect_model.h"
#include "tools/op_coverage.h"

namespace {

int fail(const tir::Status& s) {
  std::fflush(stdout);
  std::fprintf(stderr, "error: %s\n", s.message().c_str());
  return 1;
}

int run_import(const std::vector<std::string>& programs, const std::string& out,
               const std::string& weights, bool skip_kernel_check) {
  if (programs.size() != 1)
    return fail(tir::Status(tir::StatusCode::kUnsupported,
                            "importing several programs into one model is not supported yet"));
  tir::importer::ImportOptions o;
  o.input = programs[0];
  o.model_path = out;
  o.weights_path = weights;
  o.check_kernels = !skip_kernel_check;
  o.progress = [](const std::string& line) { std::printf("%s\n", line.c_str()); };
  auto r = tir::importer::import_pt2(o);
  if (!r.ok()) return fail(r.status());
  const auto& s = *r;
  std::printf(
      "done: %zu nodes, %zu values, %zu weights (%llu bytes, %zu aliases), %zu constants "
      "(%llu bytes)\n  model:   %s\n  weights: %s\n",
      s.nodes, s.values, s.weights, static_cast<unsigned long long>(s.weight_bytes),
      s.weight_aliases, s.constants, static_cast<unsigned long long>(s.constant_bytes),
      s.model_path.c_str(), s.weights_path.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tirc: import torch.export programs into tir models"};
  app.require_subcommand(1);
  std::vector<std::string> programs;
  std::string out, weights;
  CLI::App* imp = app.add_subcommand("import", "PROGRAM.pt2 -> model.tir + weights.bin");
  imp->add_option("programs", programs, "the torch.export program (.pt2)")->required();
  imp->add_option("-o,--output", out, "model file (default: <stem>.tir beside the input)");
  imp->add_option("--weights", weights, "weight file (default: the model path with .bin)");
  bool skip_kernel_check = false;
  imp->add_flag("--skip-kernel-check", skip_kernel_check,
                "import ops that have no CPU kernel (for inspection; tirrun will reject them)");
  tir::tools::InspectOptions inspect;
  CLI::App* ins = app.add_subcommand("inspect", "show a model's methods, symbols, inputs and ops");
  ins->add_option("model", inspect.model_path, "model file (.tir)")->required();
  ins->add_flag("--json", inspect.json, "print JSON");
  bool ops_json = false, ops_markdown = false;
  CLI::App* ops = app.add_subcommand("ops", "list the ATen ops tir has kernels for");
  ops->add_flag("--json", ops_json, "print JSON");
  ops->add_flag("--markdown", ops_markdown, "print the coverage page (docs/ops.md)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  if (imp->parsed()) return run_import(programs, out, weights, skip_kernel_check);
  if (ins->parsed()) {
    const tir::Status s = tir::tools::inspect_model(inspect, std::cout);
    return s.ok() ? 0 : fail(s);
  }
  if (ops->parsed()) {
    const auto format = ops_json       ? tir::tools::OpListFormat::kJson
                        : ops_markdown ? tir::tools::OpListFormat::kMarkdown
                                       : tir::tools::OpListFormat::kText;
    const tir::Status s = tir::tools::list_ops(format, std::cout);
    return s.ok() ? 0 : fail(s);
  }
  return 1;
}
