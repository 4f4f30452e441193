// The CUDA loader (runtime/devices/cuda_loader.h) without loading the CUDA module: where it
// looks, what its errors say, and that a CPU session maps no CUDA library (this binary links
// none, as no CPU-only program does).
#include "runtime/devices/cuda_loader.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "runtime/exec/device_select.h"
#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

/// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      old_ = old;
      had_ = true;
    }
    set(value);
  }
  ~ScopedEnv() { set(had_ ? old_.c_str() : nullptr); }

 private:
  void set(const char* value) {
    if (value)
      setenv(name_, value, 1);
    else
      unsetenv(name_);
  }

  const char* name_;
  std::string old_;
  bool had_ = false;
};

/// The lines of /proc/self/maps that name a CUDA library or the CUDA module.
std::string cuda_mappings() {
  std::ifstream maps("/proc/self/maps");
  std::string line, found;
  while (std::getline(maps, line))
    for (const char* lib : {"libcuda", "libcublas", "libtir_cuda"})
      if (line.find(lib) != std::string::npos) found += line + "\n";
  return found;
}

TEST(CudaLoader, ACpuSessionMapsNoCudaLibrary) {
  testing::TempDir tmp;
  SessionOptions o;
  o.device = "cpu";
  auto session = testing::open_fixture(testing::fixture_dir() + "/mlp/core", tmp, o);
  ASSERT_TRUE(session.ok()) << session.status().message();
  const auto inputs =
      testing::read_all(testing::fixture_dir() + "/mlp/core", {{{"file", "input_0.npy"}}});
  auto out = (*session)->run(testing::views(inputs));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(cuda_mappings(), "");
}

TEST(CudaLoader, LooksBesideThisCodeThenInTheBuildTree) {
  ScopedEnv unset("TIR_CUDA_BACKEND", nullptr);
  const std::vector<std::string> c = cuda_module_candidates();
  ASSERT_GE(c.size(), 2u);
  // This test links libtir's code statically, so "beside" is relative to the test program.
  const std::string exe = std::filesystem::canonical("/proc/self/exe").parent_path().string();
  EXPECT_EQ(c[0], exe + "/tir/libtir_cuda.so");
  for (const std::string& path : c) EXPECT_TRUE(path.ends_with("/libtir_cuda.so")) << path;
  const char* build_root = std::getenv("TIR_BUILD_ROOT");
  if (!build_root) GTEST_SKIP() << "TIR_BUILD_ROOT is not set (run through meson test)";
  EXPECT_EQ(c.back(),
            std::filesystem::canonical(build_root).string() + "/runtime/devices/libtir_cuda.so");
}

TEST(CudaLoader, TheEnvironmentOverridesEveryOtherPlace) {
  ScopedEnv set("TIR_CUDA_BACKEND", "/opt/elsewhere/libtir_cuda.so");
  EXPECT_EQ(cuda_module_candidates(), std::vector<std::string>{"/opt/elsewhere/libtir_cuda.so"});
}

TEST(CudaLoader, LoadErrorsNameThePathAndTheCause) {
  auto missing = cuda_backend_load("/nonexistent/libtir_cuda.so");
  ASSERT_FALSE(missing.ok());
  const std::string m = missing.status().message();
  EXPECT_EQ(m,
            "device 'cuda': cannot load the CUDA module /nonexistent/libtir_cuda.so: cannot "
            "open shared object file: No such file or directory");
  // A shared library that is not a tir CUDA module: the C library, mapped already.
  auto foreign = cuda_backend_load("libc.so.6");
  ASSERT_FALSE(foreign.ok());
  const std::string f = foreign.status().message();
  EXPECT_EQ(f.rfind("device 'cuda': no CUDA module entry point in libc.so.6: ", 0), 0u) << f;
  EXPECT_NE(f.find("tir_cuda_backend_v1"), std::string::npos) << f;
  EXPECT_EQ(f.find('\n'), std::string::npos) << f;
  EXPECT_EQ(cuda_mappings(), "");
}

}  // namespace
}  // namespace tir
