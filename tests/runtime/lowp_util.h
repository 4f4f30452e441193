// Helpers shared by the low-precision tests (bf16_test.cc, int8_test.cc): a fixture's manifest
// entry and the error of one float32 output against another.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "tests/runtime/fixture_session.h"

namespace tir::testing {

/// int8 runs (int8_test.cc, int8_calibrate_test.cc, docs/guide/low-precision.md): max |int8 -
/// torch| / max |torch| over each output, measured on these fixtures (docs/performance.md, "Low
/// precision"): 5.7e-3 (mlp), 3.4e-2 (gpt2 logits), 3.0e-2 (bert hidden states), 8.3e-2 (bert
/// pooler output, tanh of a linear of the first token); about 2x headroom.
inline constexpr double kInt8Tolerance = 0.15;

/// The manifest entry of the fixture in `dir` ("gpt2/training").
inline nlohmann::json find_fixture(const std::string& dir) {
  const nlohmann::json manifest = testing::manifest();  // the loop must not outlive it
  for (const auto& f : manifest["fixtures"])
    if (f["dir"] == dir) return f;
  ADD_FAILURE() << "no fixture " << dir;
  return {};
}

/// max |a - b| and max |b| over two float32 tensors of one shape.
inline std::pair<double, double> max_abs_diff(const Tensor& a, const Tensor& b) {
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double y = b.data_as<float>()[i];
    diff = std::max(diff, std::fabs(double(a.data_as<float>()[i]) - y));
    scale = std::max(scale, std::fabs(y));
  }
  return {diff, scale};
}

}  // namespace tir::testing
