// tirc: the tir compiler tool. Thin main over importer/ (see DESIGN.md "Command line").
//   tirc import PROGRAM.pt2 [-o model.tir] [--weights w.bin]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "importer/import_pt2.h"

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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  if (imp->parsed()) return run_import(programs, out, weights, skip_kernel_check);
  return 1;
}
