// tirrun's footprint and `--device cuda` as a user meets them: on the CPU, tirrun maps no
// CUDA library (the CUDA device is a module loaded on demand), so the demo model runs in a
// small resident set; asked for a GPU on a machine without one, it says what is missing in
// one line and exits with status 1, whatever is missing (the GPU, the module, a library).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/common/cli_util.h"
#include "tir_config.h"

namespace tir {
namespace {

using testing::q;
using testing::TempDir;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

std::string source_root() {
  const char* d = std::getenv("TIR_SOURCE_ROOT");
  return d ? d : ".";
}

/// The demo model (examples/demo) imported into `tmp`: m.tir, m.bin.
void import_demo(const TempDir& tmp) {
  const testing::Proc p =
      testing::tirc("import " + q(source_root() + "/examples/demo/resnet_small.pt2") + " -o " +
                    q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")));
  ASSERT_EQ(p.code, 0) << p.err;
}

/// Runs `argv` with stdout and stderr to /dev/null; its exit status and peak resident set
/// (KiB, from wait4).
struct Measured {
  int status = -1;
  long max_rss_kib = 0;
};
Measured run_measured(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    (void)!freopen("/dev/null", "w", stdout);
    (void)!freopen("/dev/null", "w", stderr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  Measured m;
  rusage usage{};
  if (pid > 0 && wait4(pid, &m.status, 0, &usage) == pid) m.max_rss_kib = usage.ru_maxrss;
  return m;
}

TEST(TirrunFootprint, TheDemoRunsInUnder40MBOnTheCpu) {
  if (kSanitized) GTEST_SKIP() << "a sanitized build's memory is no measure";
  TempDir tmp;
  import_demo(tmp);
  const char* tirrun = std::getenv("TIRRUN");
  ASSERT_NE(tirrun, nullptr);
  const Measured m = run_measured({tirrun, tmp.file("m.tir"), "--weights", tmp.file("m.bin"),
                                   source_root() + "/examples/demo/input.npy"});
  ASSERT_TRUE(WIFEXITED(m.status) && WEXITSTATUS(m.status) == 0) << m.status;
  // 18 MB measured; linking the CUDA libraries made it 233 MB.
  EXPECT_LE(m.max_rss_kib, 40 * 1024) << "peak RSS " << m.max_rss_kib << " KiB";
  std::printf("tirrun on the demo: peak RSS %ld KiB\n", m.max_rss_kib);
}

/// `--device cuda` where no GPU is usable: one error line naming the device, status 1.
testing::Proc run_demo_on_cuda(const TempDir& tmp) {
  return testing::tirrun(q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")) + " " +
                         q(source_root() + "/examples/demo/input.npy") + " --device cuda");
}

TEST(TirrunDeviceCuda, WithoutAGpuIsOneErrorLine) {
  TempDir tmp;
  import_demo(tmp);
  const testing::Proc p = run_demo_on_cuda(tmp);
  if (p.code == 0) GTEST_SKIP() << "a GPU is usable here: the error path cannot run";
  EXPECT_EQ(p.code, 1) << p.err;  // an error, not a crash (a signal reads 128 + N)
  testing::expect_one_error_line(p, "error: device 'cuda': ");
  EXPECT_NE(p.err.find(TIR_WITH_CUDA ? "no usable GPU" : "built without CUDA"), std::string::npos)
      << p.err;
  EXPECT_TRUE(p.out.empty()) << p.out;
}

TEST(TirrunDeviceCuda, AMissingModuleIsNamed) {
  if (!TIR_WITH_CUDA) GTEST_SKIP() << "this tir was built without CUDA (-Dcuda)";
  TempDir tmp;
  import_demo(tmp);
  const std::string module = tmp.file("lib/tir/libtir_cuda.so");
  setenv("TIR_CUDA_BACKEND", module.c_str(), 1);
  const testing::Proc p = run_demo_on_cuda(tmp);
  unsetenv("TIR_CUDA_BACKEND");
  EXPECT_EQ(p.code, 1) << p.err;
  testing::expect_one_error_line(p,
                                 "error: device 'cuda': cannot load the CUDA module " + module +
                                     ": cannot open shared object file: No such file or directory");
}

}  // namespace
}  // namespace tir
