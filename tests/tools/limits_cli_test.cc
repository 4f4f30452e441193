// --max-bytes and --max-nodes (issue 17): sizes a file declares beyond the limits are refused
// with one error line naming the field, before anything is allocated for them; the defaults
// still take real models.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/common/cli_util.h"
#include "tests/common/pt2_mutate.h"

namespace tir::testing {
namespace {

const std::string& mlp() {
  static const std::string path = fixture_dir() + "/mlp/core/program.pt2";
  return path;
}

// mlp's program with its nodes list replaced by `n` empty nodes (a 3 MB list for a million).
std::string mlp_with_nodes(const TempDir& dir, size_t n) {
  nlohmann::json doc = nlohmann::json::parse(pt2_read_member(mlp(), "models/model.json"));
  nlohmann::json& nodes = doc["graph_module"]["graph"]["nodes"];
  nodes = nlohmann::json::array();
  for (size_t i = 0; i < n; ++i) nodes.push_back(nlohmann::json::object());
  const std::string out = dir.file("many.pt2");
  pt2_replace_member(mlp(), out, "models/model.json", doc.dump());
  return out;
}

TEST(Limits, AMillionNodesAreRefusedNamingTheField) {
  TempDir dir;
  const std::string big = mlp_with_nodes(dir, 1'000'000);
  const Proc p = tirc("import " + q(big) + " -o " + q(dir.file("m.tir")));
  expect_one_error_line(p, "models/model.json /graph_module/graph/nodes");
  EXPECT_NE(p.err.find("graph has 1000000 nodes, more than the limit of 524288 (--max-nodes)"),
            std::string::npos)
      << p.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("m.tir")));
}

TEST(Limits, MaxNodesIsAFlagOfBothTools) {
  TempDir dir;
  const std::string model = dir.file("m.tir"), weights = dir.file("m.bin");
  expect_one_error_line(tirc("import " + q(mlp()) + " -o " + q(model) + " --max-nodes 2"),
                        "nodes, more than the limit of 2 (--max-nodes)");
  ASSERT_EQ(tirc("import " + q(mlp()) + " -o " + q(model)).code, 0);
  const std::string input = q(fixture_dir() + "/mlp/core/input_0.npy");
  expect_one_error_line(
      tirrun(q(model) + " --weights " + q(weights) + " " + input + " --max-nodes 2"),
      "'" + model + "' method 'forward': has ");
  EXPECT_EQ(tirrun(q(model) + " --weights " + q(weights) + " " + input).code, 0);
}

TEST(Limits, MaxBytesIsAFlagOfBothTools) {
  TempDir dir;
  const std::string model = dir.file("m.tir"), weights = dir.file("m.bin");
  // mlp's largest weight has 2048 bytes.
  const Proc imp = tirc("import " + q(mlp()) + " -o " + q(model) + " --max-bytes 1K");
  expect_one_error_line(imp,
                        "shape declares 2048 bytes, more than the limit of 1024 (--max-bytes)");
  EXPECT_NE(imp.err.find("weight '"), std::string::npos) << imp.err;
  ASSERT_EQ(tirc("import " + q(mlp()) + " -o " + q(model) + " --max-bytes 2K").code, 0);
  const std::string input = q(fixture_dir() + "/mlp/core/input_0.npy");
  const Proc run =
      tirrun(q(model) + " --weights " + q(weights) + " " + input + " --max-bytes 1000");
  expect_one_error_line(run, "bytes, more than the limit of 1000 (--max-bytes)");
  EXPECT_NE(run.err.find("'fc1.weight'"), std::string::npos) << run.err;
  EXPECT_EQ(tirrun(q(model) + " --weights " + q(weights) + " " + input).code, 0);
}

}  // namespace
}  // namespace tir::testing
