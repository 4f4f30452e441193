// A weight file truncated by someone else while a session has it mapped: reading the lost
// pages would raise SIGBUS, so Session::run checks the file first (WeightSet::check_mapped)
// and fails with an error naming the file and a tensor that is gone.
#include <gtest/gtest.h>
#include <unistd.h>

#include "fixture_session.h"
#include "runtime/weight_set.h"

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

}  // namespace
}  // namespace tir
