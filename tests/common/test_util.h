// Shared test helpers: fixture paths, the fixture manifest, temp dirs, tolerant compare.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/float16.h"
#include "core/tensor.h"

namespace tir::testing {

inline std::string test_data_dir() {
  const char* d = std::getenv("TIR_TEST_DATA");
  return d ? d : "tests/data";
}
inline std::string fixture_dir() { return test_data_dir() + "/fixtures"; }

/// A fixture path ("resnet_small/core") as a gtest parameter name ("resnet_small_core").
inline std::string fixture_test_name(std::string path) {
  for (char& c : path)
    if (c == '/') c = '_';
  return path;
}

/// The whole file at `path`; empty when it cannot be read.
inline std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

inline nlohmann::json manifest() {
  std::ifstream f(fixture_dir() + "/manifest.json");
  return nlohmann::json::parse(f);
}

/// Appends the entries of fixtures/<sub>/manifest.json (if there is one), their "dir" made
/// relative to the fixture root and their "model" prefixed with "<sub>_" (and, for archives
/// of older torch releases, that release).
inline void append_sub_manifest(const std::string& sub, std::vector<nlohmann::json>* out) {
  std::ifstream in(fixture_dir() + "/" + sub + "/manifest.json");
  if (!in) return;
  const nlohmann::json m = nlohmann::json::parse(in);
  for (nlohmann::json f : m["fixtures"]) {
    f["dir"] = sub + "/" + f["dir"].get<std::string>();
    const std::string release =
        f.contains("torch_version") ? f["torch_version"].get<std::string>() + "_" : "";
    f["model"] = sub + "_" + release + f["model"].get<std::string>();
    out->push_back(f);
  }
}

/// The fixture sub-folders named arch_* (gen_arch_*.py: architectures that once returned
/// wrong numbers), sorted.
/// The entries of fixtures/<sub>/manifest.json alone (append_sub_manifest).
inline std::vector<nlohmann::json> sub_manifest(const std::string& sub) {
  std::vector<nlohmann::json> out;
  append_sub_manifest(sub, &out);
  return out;
}

inline std::vector<std::string> arch_fixture_dirs() {
  std::vector<std::string> out;
  std::error_code ec;  // no fixture folder: none (the manifest's reader reports it)
  for (const auto& e : std::filesystem::directory_iterator(fixture_dir(), ec))
    if (e.is_directory() && e.path().filename().string().starts_with("arch_"))
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// Manifest entries of every fixture that is expected to run (not the unsupported-op one).
/// Also those of fixtures/aten/ (gen_aten.py: more architectures and ops), fixtures/half/
/// (gen_half.py: the model families as float16/bfloat16 programs), fixtures/legacy/
/// (archives of older torch releases) and fixtures/arch_*/ (arch_fixture_dirs).
inline std::vector<nlohmann::json> runnable_fixtures() {
  std::vector<nlohmann::json> out;
  const nlohmann::json m = manifest();
  for (const auto& f : m["fixtures"])
    if (!f.contains("unsupported_ops")) out.push_back(f);
  for (const char* sub : {"aten", "half", "legacy"}) append_sub_manifest(sub, &out);
  for (const std::string& sub : arch_fixture_dirs()) append_sub_manifest(sub, &out);
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
/// Sets an environment variable for its lifetime, then puts back what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    had_ = std::getenv(name) != nullptr;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_.c_str(), old_.c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_, old_;
  bool had_ = false;
};

/// GEMM weights packed into whatever layout oneDNN prefers, plain ones too (TIR_GEMM_PACK=all,
/// kernels/cpu/onednn/gemm_onednn.cc): on AVX2 oneDNN prefers no blocked layout, so by default
/// nothing packs there; tests of the packed-copy machinery (shared copies, the layout cache)
/// use this to exercise it on every CPU.
inline ScopedEnv pack_every_gemm_weight() { return ScopedEnv("TIR_GEMM_PACK", "all"); }

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

/// Element i of a float tensor (float32, float16, bfloat16, float64) as a double.
inline double float_element(const Tensor& t, int64_t i) {
  switch (t.dtype) {
    case DType::kFloat16:
      return fp16_to_float(t.data_as<uint16_t>()[i]);
    case DType::kBFloat16:
      return bf16_to_float(t.data_as<uint16_t>()[i]);
    case DType::kFloat64:
      return t.data_as<double>()[i];
    default:
      return t.data_as<float>()[i];
  }
}

/// Checks |a - b| <= atol + rtol * |b| elementwise (float dtypes), reporting the worst element;
/// equal infinities and NaN against NaN match (torch.testing.assert_close(equal_nan=True)).
inline ::testing::AssertionResult all_close(const Tensor& a, const Tensor& b, double rtol,
                                            double atol) {
  if (a.dtype != b.dtype || !a.same_shape(b))
    return ::testing::AssertionFailure()
           << "dtype/shape differ: " << dtype_name(a.dtype) << shape_str(a.shape()) << " vs "
           << dtype_name(b.dtype) << shape_str(b.shape());
  if (dtype_is_complex(a.dtype)) {  // part by part: real and imaginary as two floats
    Tensor pa = a, pb = b;
    pa.dtype = pb.dtype = complex_part_dtype(a.dtype);
    pa.set_shape({a.numel() * 2});
    pb.set_shape({b.numel() * 2});
    return all_close(pa, pb, rtol, atol);
  }
  if (!dtype_is_float(a.dtype))
    return std::memcmp(a.data, b.data, a.nbytes()) == 0
               ? ::testing::AssertionSuccess()
               : ::testing::AssertionFailure() << "non-float data differs";
  double worst = 0;
  int64_t worst_i = -1;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double xi = float_element(a, i), yi = float_element(b, i);
    if (xi == yi || (std::isnan(xi) && std::isnan(yi))) continue;
    const double err = std::fabs(xi - yi) - (atol + rtol * std::fabs(yi));
    if (!(err <= 0) && (worst_i < 0 || err > worst)) {
      worst = err;
      worst_i = i;
    }
  }
  if (worst_i < 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "element " << worst_i << ": " << float_element(a, worst_i) << " vs "
         << float_element(b, worst_i) << " (rtol " << rtol << ", atol " << atol << ")";
}

}  // namespace tir::testing
