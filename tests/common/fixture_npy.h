// A fixture's tensors (.npy files a manifest entry lists), for suites that link the runtime or
// only libtir.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/weights/host_tensor.h"
#include "runtime/weights/npy.h"

namespace tir::testing {

/// The fixture's tensors listed in `list` (manifest "inputs" or "outputs").
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
