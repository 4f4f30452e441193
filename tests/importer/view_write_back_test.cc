// In-place writes through views that tir cannot reproduce (importer/view_write_back.cc): the
// training-IR programs of fixtures/arch_attention/manifest.json's "refused" list fail to
// import with one line naming the node, instead of running with the write lost.
#include <gtest/gtest.h>

#include <fstream>

#include "../common/test_util.h"
#include "importer/import_pt2.h"

namespace tir::importer {
namespace {

std::vector<nlohmann::json> refused_programs() {
  std::ifstream in(testing::fixture_dir() + "/arch_attention/manifest.json");
  if (!in) return {};
  const nlohmann::json m = nlohmann::json::parse(in);
  return m.value("refused", std::vector<nlohmann::json>{});
}

class RefusedWrite : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(RefusedWrite, ImportFailsWithOneLine) {
  const nlohmann::json& f = GetParam();
  testing::TempDir tmp;
  ImportOptions o;
  o.input =
      testing::fixture_dir() + "/arch_attention/" + f["dir"].get<std::string>() + "/program.pt2";
  o.model_path = tmp.file("m.tir");
  o.weights_path = tmp.file("m.bin");
  const auto summary = import_pt2(o);
  ASSERT_FALSE(summary.ok()) << o.input << " imported";
  const std::string message = summary.status().message();
  EXPECT_NE(message.find(f["error"].get<std::string>()), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_NE(message.find("node '"), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(ArchAttention, RefusedWrite, ::testing::ValuesIn(refused_programs()),
                         [](const auto& info) {
                           return info.param["model"].template get<std::string>();
                         });

}  // namespace
}  // namespace tir::importer
