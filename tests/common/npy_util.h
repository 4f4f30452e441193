// Reading .npy files in a test: a failed read fails the test (and gives an empty tensor).
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "runtime/weights/host_tensor.h"
#include "runtime/weights/npy.h"

namespace tir::testing {

inline HostTensor read_npy(const std::string& path) {
  auto t = npy_read(path);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? std::move(t).value() : HostTensor();
}

/// A fixture's tensors listed in `list` (manifest "inputs" or "outputs"), from `dir`.
inline std::vector<HostTensor> read_all(const std::string& dir, const nlohmann::json& list) {
  std::vector<HostTensor> out;
  for (const auto& e : list) {
    auto t = npy_read(dir + "/" + e["file"].get<std::string>());
    EXPECT_TRUE(t.ok()) << t.status().message();
    if (t.ok()) out.push_back(std::move(t).value());
  }
  return out;
}

}  // namespace tir::testing
