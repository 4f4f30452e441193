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
