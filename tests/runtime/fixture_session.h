// Test helpers shared by the runtime tests: import a real torch fixture with the importer
// library and open a Session on it; read a fixture's .npy tensors.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "importer/import_pt2.h"
#include "runtime/host_tensor.h"
#include "runtime/npy.h"
#include "runtime/session.h"
#include "tests/common/test_util.h"

namespace tir::testing {

/// Imports `<dir>/program.pt2` into tmp/m.tir + tmp/m.bin; false (with a gtest failure) if
/// the import fails.
inline bool import_fixture(const std::string& dir, const TempDir& tmp) {
  importer::ImportOptions o;
  o.input = dir + "/program.pt2";
  o.model_path = tmp.file("m.tir");
  o.weights_path = tmp.file("m.bin");
  const auto summary = importer::import_pt2(o);
  EXPECT_TRUE(summary.ok()) << summary.status().message();
  return summary.ok();
}

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

inline std::vector<Tensor> views(const std::vector<HostTensor>& hs) {
  std::vector<Tensor> v;
  for (const HostTensor& h : hs) v.push_back(h.view());
  return v;
}

/// Owned copies of a run's outputs (a session's views die with its next run).
inline std::vector<HostTensor> copies(std::span<const Tensor> ts) {
  std::vector<HostTensor> out;
  for (const Tensor& t : ts) out.push_back(HostTensor::copy_of(t));
  return out;
}

inline bool bitwise_equal(std::span<const Tensor> a, const std::vector<HostTensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (a[k].nbytes() != b[k].view().nbytes() ||
        std::memcmp(a[k].data, b[k].view().data, a[k].nbytes()) != 0)
      return false;
  return true;
}

}  // namespace tir::testing
