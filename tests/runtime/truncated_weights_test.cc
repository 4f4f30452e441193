// A weight file truncated by someone else while a session has it mapped: reading the lost
// pages would raise SIGBUS, so Session::run checks the file first (WeightSet::check_mapped)
// and fails with an error naming the file and a tensor that is gone.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <thread>

#include "fixture_session.h"
#include "runtime/weights/mapped_fault.h"
#include "runtime/weights/weight_set.h"

namespace tir {
namespace {

std::vector<HostTensor> fixture_inputs(const std::string& dir) {
  const nlohmann::json m = testing::manifest();
  for (const auto& e : m["fixtures"])
    if (testing::fixture_dir() + "/" + e["dir"].get<std::string>() == dir)
      return testing::read_all(dir, e["inputs"]);
  return {};
}

// Params: the fixture, and whether the session ran once before the file was cut. gpt2 reads
// mapped weights in the run (SIGBUS before the check, as llama and branches); mlp's kernels use
// copies they made when the session was bound, yet its file is gone all the same.
class TruncatedWeights : public ::testing::TestWithParam<std::tuple<const char*, bool>> {};

TEST_P(TruncatedWeights, RunFailsCleanlyNamingTheFileAndATensor) {
  const std::string dir = testing::fixture_dir() + "/" + std::get<0>(GetParam());
  testing::TempDir tmp;
  auto session = testing::open_fixture(dir, tmp);
  ASSERT_TRUE(session.ok()) << session.status().message();
  const std::vector<HostTensor> inputs = fixture_inputs(dir);
  ASSERT_FALSE(inputs.empty());
  if (std::get<1>(GetParam())) ASSERT_TRUE((*session)->run(testing::views(inputs)).ok());

  const std::string bin = tmp.file("m.bin");
  ASSERT_EQ(::truncate(bin.c_str(), 64), 0);
  auto r = (*session)->run(testing::views(inputs));
  ASSERT_FALSE(r.ok());
  const std::string& msg = r.status().message();
  EXPECT_NE(msg.find("weight file '" + bin + "': tensor '"), std::string::npos) << msg;
  EXPECT_NE(
      msg.find("' cannot be read: the file was truncated since it was opened (now 64 bytes, "),
      std::string::npos)
      << msg;
  EXPECT_TRUE((*session)->weights()->check_mapped().code() == StatusCode::kIo);
}

INSTANTIATE_TEST_SUITE_P(Session, TruncatedWeights,
                         ::testing::Combine(::testing::Values("mlp/core", "gpt2/core"),
                                            ::testing::Bool()));

TEST(TruncatedWeights, AnIntactFileAndBytesInMemoryPass) {
  const std::string dir = testing::fixture_dir() + "/mlp/core";
  testing::TempDir tmp;
  ASSERT_TRUE(testing::import_fixture(dir, tmp));
  auto mapped = WeightSet::open(tmp.file("m.bin"));
  ASSERT_TRUE(mapped.ok());
  EXPECT_TRUE((*mapped)->check_mapped().ok());
  auto bytes = read_file(tmp.file("m.bin"));
  ASSERT_TRUE(bytes.ok());
  auto in_memory = WeightSet::from_source(data_source_from_buffer(*bytes, "mem"));
  ASSERT_TRUE(in_memory.ok());
  ASSERT_EQ(::truncate(tmp.file("m.bin").c_str(), 0), 0);
  EXPECT_TRUE((*in_memory)->check_mapped().ok());  // its own copy: nothing to lose
  EXPECT_FALSE((*mapped)->check_mapped().ok());
}

/// Runs `body` in a forked child with its stderr captured: (wait status, stderr).
std::pair<int, std::string> in_child(const std::function<void()>& body) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], 2);
    ::close(fds[0]);
    body();
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string err;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) err.append(buf, n);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {status, err};
}

// A truncation after the check, while a kernel reads the mapping (on any thread: OpenMP
// workers read weights too): the process ends with one error line, not by SIGBUS.
class CutDuringARead : public ::testing::TestWithParam<bool> {};

TEST_P(CutDuringARead, EndsWithAnErrorLineNamingTheFile) {
  testing::TempDir tmp;
  const std::string path = tmp.file("w.bin");
  std::ofstream(path, std::ios::binary) << std::string(1 << 20, 'x');
  const bool on_a_worker_thread = GetParam();
  const auto [status, err] = in_child([&] {
    report_truncated_mapped_files();
    auto source = data_source_mmap(path);
    if (!source.ok()) ::_exit(3);
    const volatile uint8_t* bytes = (*source)->bytes().data();
    (void)bytes[0];
    if (::truncate(path.c_str(), 4096) != 0) ::_exit(4);
    if (on_a_worker_thread)
      std::thread([&] { (void)bytes[512 * 1024]; }).join();
    else
      (void)bytes[512 * 1024];
    ::_exit(5);  // the read must not succeed
  });
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_EQ(err, "error: file '" + path +
                     "': byte 524288 cannot be read: the file was truncated while in use "
                     "(now 4096 bytes, 1048576 mapped)\n");
}

INSTANTIATE_TEST_SUITE_P(TruncatedWeights, CutDuringARead, ::testing::Bool());

TEST(TruncatedWeights, OtherBusErrorsKeepTheirDefaultAction) {
  testing::TempDir tmp;
  const std::string path = tmp.file("w.bin");
  std::ofstream(path, std::ios::binary) << std::string(1 << 16, 'x');
  const auto [status, err] = in_child([&] {
    report_truncated_mapped_files();
    auto source = data_source_mmap(path);  // registered, but not where the fault is
    if (!source.ok()) ::_exit(3);
    ::raise(SIGBUS);
    ::_exit(5);
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status) << ": " << err;
  EXPECT_EQ(WTERMSIG(status), SIGBUS);
  EXPECT_EQ(err, "");
}

TEST(TruncatedWeights, AnUnmappedFileIsForgotten) {
  testing::TempDir tmp;
  const std::string path = tmp.file("w.bin");
  std::ofstream(path, std::ios::binary) << std::string(1 << 16, 'x');
  // Every slot taken and given back many times over: the table does not fill up.
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(data_source_mmap(path).ok());
  const char probe = 0;
  const int slot = register_mapped_file(&probe, 1, -1, "probe");
  EXPECT_GE(slot, 0);
  unregister_mapped_file(slot);
}

}  // namespace
}  // namespace tir
