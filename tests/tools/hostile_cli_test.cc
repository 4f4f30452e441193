// The tools print untrusted text (op names, keys from a file) escaped (issue 17): a hostile
// archive cannot send terminal escape sequences through an error message.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "core/printable.h"
#include "ir/model.h"
#include "ir/weight_file.h"
#include "tests/common/cli_util.h"
#include "tests/common/pt2_mutate.h"

namespace tir::testing {
namespace {

TEST(HostileCli, UntrustedTextIsEscapedInErrors) {
  TempDir dir;
  const std::string mlp = fixture_dir() + "/mlp/core/program.pt2";
  std::string json = pt2_read_member(mlp, "models/model.json");
  const std::string from = "torch.ops.aten.relu.default";
  json.replace(json.find(from), from.size(), "torch.ops.aten.re\\u001b[2Jlu.default");
  const std::string bad = dir.file("bad.pt2");
  pt2_replace_member(mlp, bad, "models/model.json", json);
  const Proc p = tirc("import " + q(bad) + " -o " + q(dir.file("m.tir")));
  expect_one_error_line(p, "aten::re\\x1b[2Jlu");
  EXPECT_EQ(p.err.find('\x1b'), std::string::npos) << p.err;
}

TEST(HostileCli, PrintableKeepsAsciiAndEscapesTheRest) {
  EXPECT_EQ(printable("a b/c'd"), "a b/c'd");
  EXPECT_EQ(printable(std::string("x\x1b[0m\n\x7f\xff", 8)), "x\\x1b[0m\\x0a\\x7f\\xff");
}

/// `tirc import` of the fixture program `rel` (under fixture_dir()) into `model` + `weights`.
void import_fixture(const std::string& rel, const std::string& model, const std::string& weights) {
  const Proc p = tirc("import " + q(fixture_dir() + "/" + rel) + " -o " + q(model) + " --weights " +
                      q(weights));
  ASSERT_EQ(p.code, 0) << p.err;
}

/// True when `path` holds a complete model (checksum trailer and verification pass).
bool complete_model(const std::string& path) {
  const std::string b = slurp(path);
  return ir::ModelView::open({reinterpret_cast<const uint8_t*>(b.data()), b.size()}, path).ok();
}
/// True when `path` holds a complete weight file with every tensor's checksum right.
bool complete_weights(const std::string& path) {
  const std::string b = slurp(path);
  auto v = ir::WeightFileView::open({reinterpret_cast<const uint8_t*>(b.data()), b.size()}, path);
  if (!v.ok()) return false;
  for (const auto* e : *v->index().entries())
    if (!ir::verify_entry_checksum(*v, *e, path).ok()) return false;
  return true;
}

/// Runs `tirc ARGS...` ten times, killing it with SIGKILL 0 us to 128 ms after it starts,
/// and calls `check` after each; returns how many runs the kill interrupted.
int kill_at_points(std::vector<std::string> args,
                   const std::function<void(const std::string&)>& check) {
  const char* bin = std::getenv("TIRC");
  EXPECT_NE(bin, nullptr);
  if (!bin) return 0;
  args.insert(args.begin(), bin);
  int interrupted = 0;
  for (int delay_us : {0, 500, 1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000}) {
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    EXPECT_EQ(posix_spawn(&pid, bin, &fa, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) ++interrupted;
    check("killed after " + std::to_string(delay_us) + " us");
  }
  return interrupted;
}

// An import killed with SIGKILL at any point leaves the old pair or a complete new file at
// each target path, never a partial one; its temporaries are removed by the next import.
TEST(HostileCli, ImportKilledAtAnyPointLeavesOldOrCompleteFiles) {
  TempDir dir;
  const std::string gpt2 = fixture_dir() + "/gpt2/core/program.pt2";
  const std::string model = dir.file("m.tir"), weights = dir.file("w.bin");
  ASSERT_NO_FATAL_FAILURE(import_fixture("mlp/core/program.pt2", model, weights));
  const std::string old_model = slurp(model), old_weights = slurp(weights);
  const int interrupted = kill_at_points(
      {"import", gpt2, "-o", model, "--weights", weights}, [&](const std::string& when) {
        SCOPED_TRACE(when);
        EXPECT_TRUE(slurp(model) == old_model || complete_model(model));
        EXPECT_TRUE(slurp(weights) == old_weights || complete_weights(weights));
      });
  EXPECT_GT(interrupted, 0);
  // The next import cleans up what the killed ones left.
  ASSERT_EQ(tirc("import " + q(gpt2) + " -o " + q(model) + " --weights " + q(weights)).code, 0);
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

// The same for `tirc weights pack` writing over an existing weight file.
TEST(HostileCli, PackKilledAtAnyPointLeavesOldOrCompleteFile) {
  TempDir dir;
  const std::string src = dir.file("gpt2.bin"), out = dir.file("w.bin");
  ASSERT_NO_FATAL_FAILURE(import_fixture("gpt2/core/program.pt2", dir.file("gpt2.tir"), src));
  ASSERT_NO_FATAL_FAILURE(import_fixture("mlp/core/program.pt2", dir.file("m.tir"), out));
  const std::string old = slurp(out);
  // zstd at a high level makes the pack slow enough to be cut at several points.
  const int interrupted = kill_at_points(
      {"weights", "pack", src, "-o", out, "--compress", "zstd", "--level", "19", "-q"},
      [&](const std::string& when) {
        SCOPED_TRACE(when);
        EXPECT_TRUE(slurp(out) == old || complete_weights(out));
      });
  EXPECT_GT(interrupted, 0);
  ASSERT_EQ(tirc("weights pack " + q(src) + " -o " + q(out) + " -q").code, 0);
  EXPECT_TRUE(complete_weights(out));
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

// A weight file cut by someone else while tirrun runs a model over and over: tirrun ends with
// one error line naming the file (from the check before a run, or from the SIGBUS reporter
// when the cut lands inside one), never by a signal. gpt2 reads its mapped weights in every
// run; without the reporter 8 of 8 such cuts killed tirrun with SIGBUS.
TEST(HostileCli, WeightFileCutDuringRunsIsAnErrorLineNotSigbus) {
  TempDir dir;
  const std::string model = dir.file("m.tir"), weights = dir.file("w.bin");
  ASSERT_NO_FATAL_FAILURE(import_fixture("gpt2/core/program.pt2", model, weights));
  const char* bin = std::getenv("TIRRUN");
  ASSERT_NE(bin, nullptr);
  std::vector<std::string> args = {
      bin,  model,        "--weights", weights, fixture_dir() + "/gpt2/core/input_0.npy",
      "-r", "1000000000", "-t",        "1"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string err_path = dir.file("err.txt");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, bin, &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  std::this_thread::sleep_for(std::chrono::seconds(1));  // opened and running by then
  ASSERT_EQ(::truncate(weights.c_str(), 64), 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const std::string err = slurp(err_path);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_EQ(err.rfind("error: ", 0), 0u) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find("'" + weights + "'"), std::string::npos) << err;
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;
}

// `-o` naming the source (by any path: a link, a hard link) would replace what is read.
TEST(HostileCli, PackRefusesToWriteOverItsSource) {
  TempDir dir;
  const std::string src = dir.file("w.bin");
  ASSERT_NO_FATAL_FAILURE(import_fixture("mlp/core/program.pt2", dir.file("m.tir"), src));
  const std::string before = slurp(src);
  ASSERT_EQ(::link(src.c_str(), dir.file("hard.bin").c_str()), 0);
  for (const std::string& out : {src, dir.path() + "/./w.bin", dir.file("hard.bin")}) {
    SCOPED_TRACE(out);
    const Proc p = tirc("weights pack " + q(src) + " -o " + q(out) + " --dtype bf16 -q");
    expect_one_error_line(p, "is the source");
    EXPECT_EQ(slurp(src), before);
  }
  expect_one_error_line(tirc("weights pack " + q(src) + " -o " + q(dir.path()) + " -q"),
                        "is a directory");
}

// Index values are only known at run time: one_hot's class out of range fails the run with one
// line, in the training IR (the kernel checks) and in the core IR (torch's decomposition
// writes an _assert_async, which runs).
TEST(HostileCli, OneHotClassOutOfRangeIsAnErrorLine) {
  for (const std::string dialect : {"training", "core"}) {
    TempDir dir;
    const std::string src = fixture_dir() + "/aten/creation_patterns/" + dialect;
    const std::string model = dir.file("m.tir"), weights = dir.file("w.bin");
    ASSERT_EQ(
        tirc("import " + q(src + "/program.pt2") + " -o " + q(model) + " --weights " + q(weights))
            .code,
        0);
    std::string idx = slurp(src + "/input_1.npy");  // int64 [3, 4], classes in [0, 5)
    ASSERT_GE(idx.size(), 8u);
    const int64_t bad = 7;
    std::memcpy(idx.data() + idx.size() - 8, &bad, 8);
    const std::string bad_path = dir.file("idx.npy");
    std::ofstream(bad_path, std::ios::binary) << idx;
    const Proc p = tirrun(q(model) + " --weights " + q(weights) + " " + q(src + "/input_0.npy") +
                          " " + q(bad_path));
    expect_one_error_line(p, dialect == "core" ? "assertion failed" : "class value 7");
  }
}

/// Runs `tool ARGS` through the shell after `prelude` (e.g. "ulimit -f 16"), as run_tool does.
Proc run_after(const std::string& prelude, const char* tool, const std::string& args) {
  const char* bin = std::getenv(tool);
  EXPECT_NE(bin, nullptr);
  TempDir io;
  const std::string cmd = "bash -c " + q(prelude + "; exec " + (bin ? bin : "false") + " " + args +
                                         " >" + io.file("out") + " 2>" + io.file("err"));
  const int status = std::system(cmd.c_str());
  Proc p;
  p.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  p.out = slurp(io.file("out"));
  p.err = slurp(io.file("err"));
  return p;
}

void expect_no_temporaries(const TempDir& dir) {
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

// An output path that holds something other than a regular file is never replaced: renaming
// over it destroyed device nodes (`-o /dev/full` exited 0 and left a regular file in /dev).
// Tested on a FIFO of the test's own; a link to a regular file has its target replaced.
TEST(HostileCli, OutputsNeverReplaceWhatIsNotARegularFile) {
  TempDir dir;
  const std::string src = dir.file("w.bin"), pt2 = fixture_dir() + "/mlp/core/program.pt2";
  ASSERT_NO_FATAL_FAILURE(import_fixture("mlp/core/program.pt2", dir.file("m.tir"), src));
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_one_error_line(tirc("weights pack " + q(src) + " -o " + q(fifo) + " -q"), "is a FIFO");
  expect_one_error_line(
      tirc("import " + q(pt2) + " -o " + q(fifo) + " --weights " + q(dir.file("w2.bin"))),
      "is a FIFO");
  struct stat st;
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_FALSE(std::filesystem::exists(dir.file("w2.bin")));
  // A link to a FIFO is refused too; a link to a regular file writes that file.
  ASSERT_EQ(::symlink(fifo.c_str(), dir.file("to_fifo").c_str()), 0);
  expect_one_error_line(tirc("weights pack " + q(src) + " -o " + q(dir.file("to_fifo")) + " -q"),
                        "links to a FIFO");
  std::ofstream(dir.file("old.bin")) << "old";
  ASSERT_EQ(::symlink(dir.file("old.bin").c_str(), dir.file("link.bin").c_str()), 0);
  ASSERT_EQ(tirc("weights pack " + q(src) + " -o " + q(dir.file("link.bin")) + " -q").code, 0);
  ASSERT_EQ(::lstat(dir.file("link.bin").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_TRUE(complete_weights(dir.file("old.bin")));
  expect_no_temporaries(dir);
}

// A write that fails midway (here: the file size limit, as a full disk would) is one error
// line naming the file, and leaves neither the file nor a temporary behind.
TEST(HostileCli, FailedWriteIsAnErrorLineAndLeavesNoFile) {
  TempDir dir;
  const std::string src = dir.file("gpt2.bin"), out = dir.file("out.bin");
  ASSERT_NO_FATAL_FAILURE(import_fixture("gpt2/core/program.pt2", dir.file("gpt2.tir"), src));
  const Proc pack =
      run_after("ulimit -f 64", "TIRC", "weights pack " + q(src) + " -o " + q(out) + " -q");
  expect_one_error_line(pack, "File too large");
  EXPECT_NE(pack.err.find(out), std::string::npos) << pack.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  const Proc import = run_after("ulimit -f 64", "TIRC",
                                "import " + q(fixture_dir() + "/gpt2/core/program.pt2") + " -o " +
                                    q(dir.file("x.tir")) + " --weights " + q(dir.file("x.bin")));
  expect_one_error_line(import, "File too large");
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.bin")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.tir")));
  expect_no_temporaries(dir);
}

// Files read whole are read only when regular: a FIFO where the layout cache is expected
// used to block every run; now the run goes on without the cache (one warning line).
TEST(HostileCli, FifoAsLayoutCacheDoesNotBlock) {
  TempDir dir;
  const std::string model = dir.file("m.tir"), weights = dir.file("w.bin");
  ASSERT_NO_FATAL_FAILURE(import_fixture("mlp/core/program.pt2", model, weights));
  ASSERT_EQ(::mkfifo((weights + ".layout").c_str(), 0600), 0);
  const Proc p =
      run_after("true", "TIRRUN",
                q(model) + " --weights " + q(weights) + " " +
                    q(fixture_dir() + "/mlp/core/input_0.npy") + " -o " + q(dir.file("out")));
  EXPECT_EQ(p.code, 0) << p.err;
  struct stat st;
  ASSERT_EQ(::lstat((weights + ".layout").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));  // not replaced by a written cache either
}

// tirrun -t 100000 ended with SIGSEGV (a failed thread start); the count is capped now.
TEST(HostileCli, HugeThreadCountIsCappedWithAWarning) {
  TempDir dir;
  const std::string model = dir.file("m.tir"), weights = dir.file("w.bin");
  ASSERT_NO_FATAL_FAILURE(import_fixture("mlp/core/program.pt2", model, weights));
  const Proc p = tirrun(q(model) + " --weights " + q(weights) + " " +
                        q(fixture_dir() + "/mlp/core/input_0.npy") + " -t 100000");
  EXPECT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.err.find("warning: 100000 threads asked for"), std::string::npos) << p.err;
  expect_one_error_line(tirrun(q(model) + " --weights " + q(weights) + " -t -1"), "--threads");
}

// tirrun's numbers are checked where they enter: CLI11 read "--seed -1" as 2^64 - 1, an
// overflowing seed as 2^64 - 1 and "--max-bytes -5" as 2^64 - 5.
TEST(HostileCli, TirrunNumbersAreCheckedAtTheEdge) {
  TempDir dir;
  const std::string model = dir.file("m.tir"), weights = dir.file("w.bin");
  ASSERT_NO_FATAL_FAILURE(import_fixture("mlp/core/program.pt2", model, weights));
  const std::string run =
      q(model) + " --weights " + q(weights) + " " + q(fixture_dir() + "/mlp/core/input_0.npy");
  expect_one_error_line(tirrun(run + " --seed -1"), "--seed");
  expect_one_error_line(tirrun(run + " --seed 18446744073709551617"), "--seed");
  expect_one_error_line(tirrun(run + " --max-bytes -5"), "--max-bytes");
  expect_one_error_line(tirrun(run + " -r -1"), "--repeat");
  expect_one_error_line(tirc("import " + q(fixture_dir() + "/mlp/core/program.pt2") + " -o " +
                             q(dir.file("x.tir")) + " --max-nodes -1"),
                        "--max-nodes");
  EXPECT_EQ(tirrun(run + " --seed 18446744073709551615 --max-bytes 64G").code, 0);
}

}  // namespace
}  // namespace tir::testing
