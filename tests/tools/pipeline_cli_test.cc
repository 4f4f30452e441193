// `tirrun --profile-layers`, `tirc partition` and `tirrun --pipeline` end to end on real torch
// fixtures: a staged model run as a threaded pipeline gives outputs bitwise equal to the
// unpartitioned run; every bad input is one `error:` line.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <regex>

#include "runtime/weights/npy.h"
#include "tests/common/cli_util.h"

namespace tir::tools {
namespace {

using testing::expect_one_error_line;
using testing::fixture_dir;
using testing::Proc;
using testing::q;
using testing::slurp;
using testing::TempDir;
using testing::tirc;
using testing::tirrun;

struct Case {
  std::string fixture;  // dir under tests/data/fixtures
  int stages;
};

std::string inputs_of(const std::string& dir) {
  std::string args;
  for (int k = 0; std::ifstream(dir + "/input_" + std::to_string(k) + ".npy").good(); ++k)
    args += " " + q(dir + "/input_" + std::to_string(k) + ".npy");
  return args;
}

/// Imports `fixture` into tmp as m.tir/m.bin and runs it unpartitioned into tmp/ref.
void import_and_run(const TempDir& tmp, const std::string& fixture) {
  const std::string dir = fixture_dir() + "/" + fixture;
  const Proc imp = tirc("import " + q(dir + "/program.pt2") + " -o " + q(tmp.file("m.tir")) +
                        " --weights " + q(tmp.file("m.bin")));
  ASSERT_EQ(imp.code, 0) << imp.err;
  const Proc ref = tirrun(q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")) +
                          inputs_of(dir) + " -o " + q(tmp.file("ref")));
  ASSERT_EQ(ref.code, 0) << ref.err;
}

/// Every ref/output_<k>.npy is byte for byte equal to got/output_<k>.npy.
void expect_same_outputs(const TempDir& tmp, const std::string& got) {
  int k = 0;
  for (; std::ifstream(tmp.file("ref/output_" + std::to_string(k) + ".npy")).good(); ++k) {
    const std::string name = "/output_" + std::to_string(k) + ".npy";
    const std::string want = slurp(tmp.file("ref") + name);
    const std::string have = slurp(tmp.file(got) + name);
    EXPECT_FALSE(have.empty()) << got << name << " missing";
    EXPECT_TRUE(want == have) << got << name << " differs from the unpartitioned run";
  }
  EXPECT_GT(k, 0);
}

class StagedFixture : public ::testing::TestWithParam<Case> {};

TEST_P(StagedFixture, ThreadedPipelineIsBitwiseEqualToUnpartitionedRun) {
  const Case& c = GetParam();
  TempDir tmp;
  import_and_run(tmp, c.fixture);
  if (HasFatalFailure()) return;
  const Proc part = tirc("partition " + q(tmp.file("m.tir")) + " --stages " +
                         std::to_string(c.stages) + " -o " + q(tmp.file("s.tir")));
  ASSERT_EQ(part.code, 0) << part.err;
  for (int k = 0; k < c.stages; ++k)
    EXPECT_NE(part.out.find("stage" + std::to_string(k) + " "), std::string::npos) << part.out;
  const std::string dir = fixture_dir() + "/" + c.fixture;
  const Proc run = tirrun(q(tmp.file("s.tir")) + " --weights " + q(tmp.file("m.bin")) +
                          inputs_of(dir) + " --pipeline -o " + q(tmp.file("pipe")));
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find(std::to_string(c.stages) + " stages"), std::string::npos) << run.out;
  expect_same_outputs(tmp, "pipe");
  // Each stage alone is a method of its own: stage0 runs on the model's inputs.
  const Proc first = tirrun(q(tmp.file("s.tir")) + " --weights " + q(tmp.file("m.bin")) +
                            inputs_of(dir) + " --method stage0");
  EXPECT_EQ(first.code, 0) << first.err;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, StagedFixture,
                         ::testing::Values(Case{"gpt2/training", 2}, Case{"gpt2/training", 3},
                                           Case{"gpt2/core", 4}, Case{"resnet_small/training", 2},
                                           Case{"resnet_small/core", 3},
                                           Case{"resnet_small/training", 4},
                                           Case{"branches/training", 2}, Case{"branches/core", 3}),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           std::string name =
                               i.param.fixture + "_" + std::to_string(i.param.stages);
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

struct MicroCase {
  std::string fixture, input;  // input: one .npy whose dim 0 is the dynamic batch
  int stages, microbatches;
};

class MicrobatchedFixture : public ::testing::TestWithParam<MicroCase> {};

TEST_P(MicrobatchedFixture, EachMicrobatchIsBitwiseEqualToItsUnpartitionedRun) {
  // Micro-batch m of the pipeline's output must be byte for byte the unpartitioned model's
  // output on micro-batch m alone (the same kernels on the same shapes), and close to the
  // whole batch run at once.
  const MicroCase& c = GetParam();
  const std::string dir = fixture_dir() + "/" + c.fixture;
  TempDir tmp;
  ASSERT_EQ(tirc("import " + q(dir + "/program.pt2") + " -o " + q(tmp.file("m.tir")) +
                 " --weights " + q(tmp.file("m.bin")))
                .code,
            0);
  const std::string model = q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin"));
  ASSERT_EQ(tirc("partition " + q(tmp.file("m.tir")) + " --stages " + std::to_string(c.stages) +
                 " -o " + q(tmp.file("s.tir")))
                .code,
            0);
  const Proc run = tirrun(q(tmp.file("s.tir")) + " --weights " + q(tmp.file("m.bin")) + " " +
                          q(dir + "/" + c.input) + " --pipeline --microbatches " +
                          std::to_string(c.microbatches) + " -o " + q(tmp.file("pipe")));
  ASSERT_EQ(run.code, 0) << run.err;
  auto whole_in = npy_read(dir + "/" + c.input);
  auto got = npy_read(tmp.file("pipe/output_0.npy"));
  ASSERT_TRUE(whole_in.ok() && got.ok());
  const Tensor& in = whole_in->view();
  const int64_t rows = in.sizes[0] / c.microbatches;
  const size_t in_row = in.nbytes() / size_t(in.sizes[0]);
  const size_t out_row = got->view().nbytes() / size_t(got->view().sizes[0]);
  for (int m = 0; m < c.microbatches; ++m) {
    std::vector<int64_t> shape(in.shape().begin(), in.shape().end());
    shape[0] = rows;
    HostTensor part(in.dtype, shape);
    std::memcpy(part.view().data, static_cast<const uint8_t*>(in.data) + m * rows * in_row,
                rows * in_row);
    const std::string name = "part" + std::to_string(m);
    ASSERT_TRUE(npy_write(tmp.file(name + ".npy"), part.view()).ok());
    const Proc one = tirrun(model + " " + q(tmp.file(name + ".npy")) + " -o " + q(tmp.file(name)));
    ASSERT_EQ(one.code, 0) << one.err;
    auto want = npy_read(tmp.file(name + "/output_0.npy"));
    ASSERT_TRUE(want.ok());
    EXPECT_EQ(std::memcmp(want->view().data,
                          static_cast<const uint8_t*>(got->view().data) + m * rows * out_row,
                          rows * out_row),
              0)
        << "micro-batch " << m;
  }
  const Proc whole = tirrun(model + " " + q(dir + "/" + c.input) + " -o " + q(tmp.file("ref")));
  ASSERT_EQ(whole.code, 0) << whole.err;
  auto ref = npy_read(tmp.file("ref/output_0.npy"));
  ASSERT_TRUE(ref.ok());
  EXPECT_TRUE(testing::all_close(got->view(), ref->view(), 1e-5, 1e-5));
}

INSTANTIATE_TEST_SUITE_P(
    Dynamic, MicrobatchedFixture,
    ::testing::Values(MicroCase{"dynamic/resnet_dyn/training", "case_2_input_0.npy", 2, 4},
                      MicroCase{"dynamic/gpt2_dyn/training", "case_2_input_0.npy", 3, 2}),
    [](const ::testing::TestParamInfo<MicroCase>& i) {
      return std::string(i.param.fixture.find("gpt2") != std::string::npos ? "gpt2" : "resnet") +
             "_" + std::to_string(i.param.stages) + "x" + std::to_string(i.param.microbatches);
    });

TEST(Pipeline, StaticBatchCannotBeSplitIntoMicrobatches) {
  TempDir tmp;
  import_and_run(tmp, "resnet_small/training");
  if (HasFatalFailure()) return;
  ASSERT_EQ(
      tirc("partition " + q(tmp.file("m.tir")) + " --stages 2 -o " + q(tmp.file("s.tir"))).code, 0);
  const Proc p =
      tirrun(q(tmp.file("s.tir")) + " --weights " + q(tmp.file("m.bin")) +
             inputs_of(fixture_dir() + "/resnet_small/training") + " --pipeline --microbatches 2");
  expect_one_error_line(p, "static batch dim");
}

TEST(Pipeline, UnpartitionedModelIsRejected) {
  TempDir tmp;
  import_and_run(tmp, "mlp/training");
  if (HasFatalFailure()) return;
  const Proc p = tirrun(q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")) +
                        inputs_of(fixture_dir() + "/mlp/training") + " --pipeline");
  expect_one_error_line(p, "tirc partition");
}

TEST(Partition, MoreStagesThanNodesIsOneErrorLine) {
  TempDir tmp;
  import_and_run(tmp, "mlp/training");
  if (HasFatalFailure()) return;
  const Proc p =
      tirc("partition " + q(tmp.file("m.tir")) + " --stages 50 -o " + q(tmp.file("s.tir")));
  expect_one_error_line(p, "only");
  EXPECT_FALSE(std::ifstream(tmp.file("s.tir")).good()) << "no output on error";
}

TEST(Partition, UnmeetableMemoryCapIsOneErrorLine) {
  TempDir tmp;
  import_and_run(tmp, "gpt2/training");
  if (HasFatalFailure()) return;
  const Proc p = tirc("partition " + q(tmp.file("m.tir")) + " --stages 2 --memory-cap 1000 -o " +
                      q(tmp.file("s.tir")));
  expect_one_error_line(p, "--memory-cap");
  EXPECT_FALSE(std::ifstream(tmp.file("s.tir")).good());
}

TEST(Partition, MemoryCapBalancesWeightsAndStagesBindOnlyTheirShare) {
  TempDir tmp;
  import_and_run(tmp, "gpt2/training");
  if (HasFatalFailure()) return;
  const Proc all =
      tirc("partition " + q(tmp.file("m.tir")) + " --stages 1 -o " + q(tmp.file("one.tir")));
  ASSERT_EQ(all.code, 0) << all.err;
  const Proc two =
      tirc("partition " + q(tmp.file("m.tir")) + " --stages 3 -o " + q(tmp.file("s.tir")));
  ASSERT_EQ(two.code, 0) << two.err;
  // The weights column (MiB) of each stage: every stage of 3 holds less than the whole.
  const std::regex row(R"(stage(\d)\s+\d+-\d+\s+([0-9.]+))");
  auto weights_of = [&](const std::string& text) {
    std::vector<double> w;
    for (std::sregex_iterator it(text.begin(), text.end(), row), end; it != end; ++it)
      w.push_back(std::stod((*it)[2]));
    return w;
  };
  const auto whole = weights_of(all.out), parts = weights_of(two.out);
  ASSERT_EQ(whole.size(), 1u) << all.out;
  ASSERT_EQ(parts.size(), 3u) << two.out;
  for (double w : parts) EXPECT_LT(w, whole[0]) << two.out;
}

TEST(Partition, BadProfileIsOneErrorLine) {
  TempDir tmp;
  import_and_run(tmp, "mlp/training");
  if (HasFatalFailure()) return;
  std::ofstream(tmp.file("bad.csv")) << "module,time\nfc1,3\n";
  const Proc p = tirc("partition " + q(tmp.file("m.tir")) + " --stages 2 --profile " +
                      q(tmp.file("bad.csv")) + " -o " + q(tmp.file("s.tir")));
  expect_one_error_line(p, "bad.csv");
}

TEST(LayerProfile, CsvRowsPerModuleFeedThePartitioner) {
  TempDir tmp;
  import_and_run(tmp, "gpt2/training");
  if (HasFatalFailure()) return;
  const std::string dir = fixture_dir() + "/gpt2/training";
  const Proc prof =
      tirrun(q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")) + inputs_of(dir) +
             " --repeat 5 --profile-layers " + q(tmp.file("prof.csv")) + " --depth 2");
  ASSERT_EQ(prof.code, 0) << prof.err;
  const std::string csv = slurp(tmp.file("prof.csv"));
  EXPECT_EQ(csv.rfind("module,depth,nodes,median_ms,param_bytes,input_bytes,output_bytes,"
                      "peak_activation_bytes\n",
                      0),
            0u)
      << csv;
  // GPT-2's blocks at depth 2 ("transformer.h" cut to 2 parts: "transformer.h.0" needs 3),
  // so look for a block row at depth 3 too.
  const std::regex data_row(R"(\n([^,\n]+),2,(\d+),([0-9.e-]+),(\d+),(\d+),(\d+),(\d+))");
  size_t rows = 0;
  double total_ms = 0;
  uint64_t params = 0;
  for (std::sregex_iterator it(csv.begin(), csv.end(), data_row), end; it != end; ++it) {
    ++rows;
    total_ms += std::stod((*it)[3]);
    params += std::stoull((*it)[4]);
    EXPECT_GT(std::stoll((*it)[2]), 0) << (*it)[0];
  }
  EXPECT_GE(rows, 2u) << csv;
  EXPECT_GT(total_ms, 0) << csv;
  EXPECT_GT(params, 0u) << csv;
  const Proc part = tirc("partition " + q(tmp.file("m.tir")) + " --stages 2 --profile " +
                         q(tmp.file("prof.csv")) + " -o " + q(tmp.file("s.tir")));
  ASSERT_EQ(part.code, 0) << part.err;
  EXPECT_NE(part.out.find("cost from profile"), std::string::npos) << part.out;
}

}  // namespace
}  // namespace tir::tools
