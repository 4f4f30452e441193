// Shared test helpers: fixture paths, the fixture manifest, temp dirs, tolerant compare.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tir::testing {

inline std::string test_data_dir() {
  const char* d = std::getenv("TIR_TEST_DATA");
  return d ? d : "tests/data";
}
inline std::string fixture_dir() { return test_data_dir() + "/fixtures"; }

inline nlohmann::json manifest() {
  std::ifstream f(fixture_dir() + "/manifest.json");
  return nlohmann::json::parse(f);
}

/// Manifest entries of every fixture that is expected to run (not the unsupported-op one).
/// Also those of tests/data/fixtures/aten/manifest.json (gen_aten.py) and
/// tests/data/fixtures/legacy/manifest.json (archives of older torch releases), whose "dir"
/// is made relative to the fixture root.
inline std::vector<nlohmann::json> runnable_fixtures() {
  std::vector<nlohmann::json> out;
  const nlohmann::json m = manifest();
  for (const auto& f : m["fixtures"])
    if (!f.contains("unsupported_ops")) out.push_back(f);
  // fixtures/aten/ (tests/data/gen_aten.py): the architectures and ops of issue 15.
  std::ifstream aten(fixture_dir() + "/aten/manifest.json");
  if (aten) {
    const nlohmann::json am = nlohmann::json::parse(aten);
    for (nlohmann::json f : am["fixtures"]) {
      f["dir"] = "aten/" + f["dir"].get<std::string>();
      f["model"] = "aten_" + f["model"].get<std::string>();
      out.push_back(f);
    }
  }
  std::ifstream legacy(fixture_dir() + "/legacy/manifest.json");
  if (legacy) {
    const nlohmann::json lm = nlohmann::json::parse(legacy);
    for (nlohmann::json f : lm["fixtures"]) {
      f["dir"] = "legacy/" + f["dir"].get<std::string>();
      f["model"] = "legacy_" + f.value("torch_version", std::string("old")) + "_" +
                   f["model"].get<std::string>();
      out.push_back(f);
    }
  }
  return out;
}

/// gtest parameter name of a fixture entry: "<model>_<dialect>".
struct FixtureName {
  template <typename Info>
  std::string operator()(const Info& info) const {
    std::string name = info.param["model"].template get<std::string>() + "_" +
                       info.param["dialect"].template get<std::string>();
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
  }
};

/// A fresh empty directory under the system temp dir, removed on destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tir_test_XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  size_t num_entries() const {
    size_t n = 0;
    for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(path_)) ++n;
    return n;
  }

 private:
  std::string path_;
};

/// Checks |a - b| <= atol + rtol * |b| elementwise (float32), reporting the worst element.
inline ::testing::AssertionResult all_close(const Tensor& a, const Tensor& b, double rtol,
                                            double atol) {
  if (a.dtype != b.dtype || !a.same_shape(b))
    return ::testing::AssertionFailure()
           << "dtype/shape differ: " << dtype_name(a.dtype) << shape_str(a.shape()) << " vs "
           << dtype_name(b.dtype) << shape_str(b.shape());
  if (a.dtype != DType::kFloat32)
    return std::memcmp(a.data, b.data, a.nbytes()) == 0
               ? ::testing::AssertionSuccess()
               : ::testing::AssertionFailure() << "non-float data differs";
  const float* x = a.data_as<float>();
  const float* y = b.data_as<float>();
  double worst = 0;
  int64_t worst_i = -1;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double err = std::fabs(double(x[i]) - y[i]) - (atol + rtol * std::fabs(double(y[i])));
    if (!(err <= 0) && (worst_i < 0 || err > worst)) {
      worst = err;
      worst_i = i;
    }
  }
  if (worst_i < 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "element " << worst_i << ": " << x[worst_i] << " vs " << y[worst_i] << " (rtol " << rtol
         << ", atol " << atol << ")";
}

}  // namespace tir::testing
