// tirrun-mpi end to end on localhost (`mpirun --oversubscribe -n N`): a staged model run with
// one rank per stage gives outputs bitwise equal to the unpartitioned run; a wrong rank count
// and a rank dying mid-run stop every rank with an error, never a hang. Each mpirun is bounded
// by `timeout`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "runtime/weights/npy.h"
#include "tests/common/cli_util.h"

namespace tir::tools {
namespace {

using testing::fixture_dir;
using testing::Proc;
using testing::q;
using testing::slurp;
using testing::TempDir;
using testing::tirc;
using testing::tirrun;

constexpr int kLimitSeconds = 120;

/// Runs `mpirun --oversubscribe -n ranks tirrun-mpi args` under `timeout`.
Proc mpirun(int ranks, const std::string& args, const std::string& env = "",
            const std::string& mpirun_flags = "") {
  TempDir io;
  const std::string cmd = env + " timeout " + std::to_string(kLimitSeconds) + " " +
                          std::getenv("MPIRUN") + " " + mpirun_flags + " --oversubscribe -n " +
                          std::to_string(ranks) + " " + std::getenv("TIRRUN_MPI") + " " + args +
                          " >" + io.file("out") + " 2>" + io.file("err");
  const int status = std::system(cmd.c_str());
  Proc p;
  p.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  p.out = slurp(io.file("out"));
  p.err = slurp(io.file("err"));
  return p;
}

std::string inputs_of(const std::string& dir) {
  std::string args;
  for (int k = 0; std::ifstream(dir + "/input_" + std::to_string(k) + ".npy").good(); ++k)
    args += " " + q(dir + "/input_" + std::to_string(k) + ".npy");
  return args;
}

/// Lines of `text` that start with "error: ".
int error_lines(const std::string& text) {
  std::istringstream in(text);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.rfind("error: ", 0) == 0;
  return n;
}

/// Imports, runs unpartitioned into ref/ (one thread, as each rank runs below: oneDNN may pick
/// another convolution algorithm for another thread count), partitions into `stages` as s.tir.
void prepare(const TempDir& tmp, const std::string& fixture, int stages) {
  const std::string dir = fixture_dir() + "/" + fixture;
  ASSERT_EQ(tirc("import " + q(dir + "/program.pt2") + " -o " + q(tmp.file("m.tir")) +
                 " --weights " + q(tmp.file("m.bin")))
                .code,
            0);
  const Proc ref = tirrun(q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")) +
                          inputs_of(dir) + " --threads 1 -o " + q(tmp.file("ref")));
  ASSERT_EQ(ref.code, 0) << ref.err;
  const Proc part = tirc("partition " + q(tmp.file("m.tir")) + " --stages " +
                         std::to_string(stages) + " -o " + q(tmp.file("s.tir")));
  ASSERT_EQ(part.code, 0) << part.err;
}

struct Case {
  std::string fixture;
  int ranks;
};

class MpiFixture : public ::testing::TestWithParam<Case> {};

TEST_P(MpiFixture, RanksGiveOutputsBitwiseEqualToUnpartitionedRun) {
  const Case& c = GetParam();
  TempDir tmp;
  prepare(tmp, c.fixture, c.ranks);
  if (HasFatalFailure()) return;
  const Proc run = mpirun(c.ranks, q(tmp.file("s.tir")) + " --weights " + q(tmp.file("m.bin")) +
                                       inputs_of(fixture_dir() + "/" + c.fixture) + " -o " +
                                       q(tmp.file("mpi")) + " --threads 1 --timeout 60");
  ASSERT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find(std::to_string(c.ranks) + " ranks"), std::string::npos) << run.out;
  int k = 0;
  for (; std::ifstream(tmp.file("ref/output_" + std::to_string(k) + ".npy")).good(); ++k) {
    const std::string name = "/output_" + std::to_string(k) + ".npy";
    const std::string have = slurp(tmp.file("mpi") + name);
    EXPECT_FALSE(have.empty()) << name << " missing";
    EXPECT_TRUE(slurp(tmp.file("ref") + name) == have) << name << " differs";
  }
  EXPECT_GT(k, 0);
}

INSTANTIATE_TEST_SUITE_P(Localhost, MpiFixture,
                         ::testing::Values(Case{"gpt2/training", 2}, Case{"gpt2/training", 3},
                                           Case{"resnet_small/training", 2},
                                           Case{"resnet_small/training", 3},
                                           Case{"branches/training", 2},
                                           Case{"branches/training", 3}),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           std::string name = i.param.fixture.substr(0, i.param.fixture.find('/'));
                           return name + "_" + std::to_string(i.param.ranks);
                         });

TEST(Mpi, MicrobatchesFlowThroughTheRanks) {
  const std::string dir = fixture_dir() + "/dynamic/resnet_dyn/training";
  TempDir tmp;
  ASSERT_EQ(tirc("import " + q(dir + "/program.pt2") + " -o " + q(tmp.file("m.tir")) +
                 " --weights " + q(tmp.file("m.bin")))
                .code,
            0);
  ASSERT_EQ(
      tirc("partition " + q(tmp.file("m.tir")) + " --stages 2 -o " + q(tmp.file("s.tir"))).code, 0);
  const std::string input = q(dir + "/case_2_input_0.npy");  // batch 16
  const Proc threads =
      tirrun(q(tmp.file("s.tir")) + " --weights " + q(tmp.file("m.bin")) + " " + input +
             " --pipeline --microbatches 4 --threads 2 -o " + q(tmp.file("thr")));
  ASSERT_EQ(threads.code, 0) << threads.err;
  const Proc run = mpirun(2, q(tmp.file("s.tir")) + " --weights " + q(tmp.file("m.bin")) + " " +
                                 input + " --microbatches 4 --threads 1 -o " + q(tmp.file("mpi")));
  ASSERT_EQ(run.code, 0) << run.out << run.err;
  // The same micro-batches through the same stages: the threaded and MPI pipelines agree.
  EXPECT_TRUE(slurp(tmp.file("thr/output_0.npy")) == slurp(tmp.file("mpi/output_0.npy")));
}

TEST(Mpi, RankCountOtherThanStageCountIsAnError) {
  TempDir tmp;
  prepare(tmp, "branches/training", 3);
  if (HasFatalFailure()) return;
  const Proc run =
      mpirun(2, q(tmp.file("s.tir")) + " --weights " + q(tmp.file("m.bin")) +
                    inputs_of(fixture_dir() + "/branches/training") + " -o " + q(tmp.file("mpi")));
  EXPECT_NE(run.code, 0);
  EXPECT_NE(run.code, 124) << "timed out";
  EXPECT_EQ(error_lines(run.err), 1) << run.err;
  EXPECT_NE(run.err.find("has 3 stages but the job has 2 ranks"), std::string::npos) << run.err;
  EXPECT_FALSE(std::ifstream(tmp.file("mpi/output_0.npy")).good());
}

TEST(Mpi, ARankDyingMidRunStopsTheOthers) {
  TempDir tmp;
  prepare(tmp, "gpt2/training", 3);
  if (HasFatalFailure()) return;
  const std::string args = q(tmp.file("s.tir")) + " --weights " + q(tmp.file("m.bin")) +
                           inputs_of(fixture_dir() + "/gpt2/training") + " -o " +
                           q(tmp.file("mpi")) + " --timeout 5";
  // mpirun's default: it sees rank 1 exit and ends the job.
  const Proc killed = mpirun(3, args, "TIR_MPI_TEST_DIE_RANK=1");
  EXPECT_NE(killed.code, 0) << killed.out << killed.err;
  EXPECT_NE(killed.code, 124) << "timed out: a rank hung after rank 1 died";
  // With mpirun told to keep going, rank 2's receive times out and it stops the job, naming
  // the rank it waited for.
  const Proc timed =
      mpirun(3, args, "TIR_MPI_TEST_DIE_RANK=1", "--mca orte_abort_on_non_zero_status 0");
  EXPECT_NE(timed.code, 0) << timed.out << timed.err;
  EXPECT_NE(timed.code, 124) << "timed out: a rank hung after rank 1 died";
  EXPECT_EQ(error_lines(timed.err), 1) << timed.err;
  EXPECT_NE(timed.err.find("error: rank 2 (stage2): no progress for 5 s waiting for rank 1"),
            std::string::npos)
      << timed.err;
  EXPECT_FALSE(std::ifstream(tmp.file("mpi/output_0.npy")).good());
}

}  // namespace
}  // namespace tir::tools
