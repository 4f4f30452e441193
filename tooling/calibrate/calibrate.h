// Calibration for `tir-calibrate` (calibrated int8 weight files, SmoothQuant): runs the
// float32 model on a set of real inputs and records, for every GEMM whose weight pack stores
// as int8 (tooling/weights/int8_plan.h), the largest |activation| of each input channel of its A
// operand. The packer turns them into smoothing factors (core/quantize.h smooth_factor).
//
// DIR holds one input set per subdirectory (read in name order), or is itself one set: each
// set is one `NAME.npy` per user input of the method (the names `tirc inspect` prints, the
// ones `tirrun -i NAME=FILE.npy` takes). A set without a file for an input, a file that names
// no input, or an input of the wrong dtype or shape fails with one line naming the set and the
// input.
//
// It runs the model, so it links the runtime and its kernels: tir-calibrate uses it, tirc
// (which links no kernels) does not.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace tir::tools {

struct CalibrateOptions {
  std::string model;    // .tir
  std::string weights;  // the float32 weights the model runs with
  std::string inputs;   // DIR (above)
  std::string method = "forward";
};

struct Calibration {
  /// Weight name (and each alias) -> max |A[..., k]| over every set and every GEMM that
  /// reads it as B, k over its input channels.
  std::map<std::string, std::vector<float>> activation_max;
  size_t sets = 0;   // input sets run
  size_t gemms = 0;  // GEMM nodes observed
};

Result<Calibration> calibrate_gemm_inputs(const CalibrateOptions& options);

}  // namespace tir::tools
