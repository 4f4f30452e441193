// tir-calibrate: calibrated int8 weight files (SmoothQuant, tooling/calibrate/calibrate.h).
//   tir-calibrate SRC.bin -o w.int8.bin --model model.tir --inputs DIR [--smooth-alpha 0.5]
//                 [--keep-f32 NAME,...] [--method forward] [-q]
// Runs the float32 model on the input sets in DIR, then writes what `tirc weights pack
// --dtype int8 --model model.tir` writes, with every calibrated GEMM weight smoothed. Its own
// tool because it runs the model: tirc links no kernels.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "core/printable.h"
#include "tooling/calibrate/calibrate.h"
#include "tooling/cli/parse_command_line.h"
#include "tooling/weights/weights_tool.h"

namespace {

int fail(const tir::Status& s) {
  std::fflush(stdout);
  std::fprintf(stderr, "error: %s\n", tir::printable(s.message()).c_str());
  return 1;
}

}  // namespace

namespace {

int tool_main(int argc, char** argv) {
  CLI::App app{"float32 weights -> int8 weights smoothed by activations measured on real inputs"};
  app.footer("Guide: docs/guide/low-precision.md (calibrated int8)");
  tir::tools::PackOptions pack;
  tir::tools::CalibrateOptions cal;
  app.add_option("source", pack.source, "float32 tir weight file or .safetensors")->required();
  app.add_option("-o,--output", pack.output, "int8 weight file to write")->required();
  app.add_option("--model", pack.model, "the model (.tir) the weights belong to")->required();
  app.add_option("--inputs", cal.inputs,
                 "DIR: one subdirectory per input set, each one NAME.npy per model input (or "
                 "DIR itself one set)")
      ->required();
  app.add_option("--method,-m", cal.method, "method to run")->capture_default_str();
  app.add_option("--smooth-alpha", pack.smooth_alpha, "s = max|x|^alpha / max|w|^(1 - alpha)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--keep-f32", pack.keep_f32, "GEMM weights to keep float32 (NAME,...)")
      ->delimiter(',');
  app.add_flag("-q,--quiet", pack.quiet, "no progress lines (the summary lines stay)");
  if (auto code = tir::tools::parse_command_line(app, argc, argv, "tir-calibrate")) return *code;
  pack.narrow = tir::DType::kInt8;
  cal.model = pack.model;
  cal.weights = pack.source;
  auto c = tir::tools::calibrate_gemm_inputs(cal);
  if (!c.ok()) return fail(c.status());
  pack.activation_max = &c->activation_max;
  std::cout << "calibrated " << c->gemms << " GEMMs on " << c->sets << " input sets from '"
            << cal.inputs << "'\n";
  const tir::Status s = tir::tools::weights_pack(pack, std::cout);
  return s.ok() ? 0 : fail(s);
}

}  // namespace

int main(int argc, char** argv) {
  return tir::tools::guarded_main("tir-calibrate", [&] { return tool_main(argc, argv); });
}
