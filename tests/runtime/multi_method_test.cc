// Several programs imported into one model: one method each, one weight file in which every
// weight appears once, sessions of all methods reading the same mapped weights.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using testing::TempDir;

nlohmann::json fixture_entry(const std::string& rel) {
  const nlohmann::json m = testing::manifest();
  for (const auto& e : m["fixtures"])
    if (e["dir"] == rel) return e;
  ADD_FAILURE() << "no fixture " << rel;
  return {};
}

/// Imports `methods` into tmp/m.tir + tmp/m.bin, expecting failure: the error message.
/// Nothing may be left behind.
std::string failed_import(std::vector<importer::MethodSource> methods) {
  TempDir tmp;
  importer::ImportOptions o;
  o.methods = std::move(methods);
  o.model_path = tmp.file("m.tir");
  auto r = importer::import_pt2(o);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(tmp.num_entries(), 0u);  // nothing half-written
  return r.ok() ? "" : r.status().message();
}

// The training-IR and core-IR exports of GPT-2 are two programs over the same weights.
TEST(MultiMethod, TwoProgramsShareOneWeightCopy) {
  const std::string root = testing::fixture_dir() + "/gpt2/";
  TempDir tmp;
  importer::ImportOptions o;
  o.methods = {{"train", root + "training/program.pt2"}, {"core", root + "core/program.pt2"}};
  o.model_path = tmp.file("two.tir");
  o.weights_path = tmp.file("two.bin");
  auto two = importer::import_pt2(o);
  ASSERT_TRUE(two.ok()) << two.status().message();
  EXPECT_EQ(two->methods, (std::vector<std::string>{"train", "core"}));
  EXPECT_GT(two->shared_weights, 0u);
  ASSERT_TRUE(testing::import_fixture(root + "core", tmp));  // m.tir + m.bin: one method
  const auto two_size = std::filesystem::file_size(tmp.file("two.bin"));
  const auto one_size = std::filesystem::file_size(tmp.file("m.bin"));
  EXPECT_LE(double(two_size), 1.01 * double(one_size));

  auto weights = WeightSet::open(tmp.file("two.bin"));
  auto model = data_source_mmap(tmp.file("two.tir"));
  ASSERT_TRUE(weights.ok() && model.ok());
  for (const auto& [method, dialect] :
       {std::pair{"train", "training"}, std::pair{"core", "core"}}) {
    SessionOptions so;
    so.method = method;
    auto s = Session::create(*model, *weights, so);
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_EQ((*s)->weights().get(), weights->get());  // the one mapping, not a copy
    const nlohmann::json f = fixture_entry(std::string("gpt2/") + dialect);
    const std::string dir = root + dialect;
    const auto inputs = testing::read_all(dir, f["inputs"]);
    const auto expected = testing::read_all(dir, f["outputs"]);
    auto out = (*s)->run(testing::views(inputs));
    ASSERT_TRUE(out.ok()) << out.status().message();
    ASSERT_EQ(out->size(), expected.size());
    for (size_t k = 0; k < expected.size(); ++k)
      EXPECT_TRUE(testing::all_close((*out)[k], expected[k].view(), f["rtol"], f["atol"]))
          << method << " output " << k;
  }
  SessionOptions missing;
  missing.method = "forward";
  auto none = Session::create(*model, *weights, missing);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("has no method 'forward'"), std::string::npos)
      << none.status().message();
}

TEST(MultiMethod, DuplicateMethodNameIsAnError) {
  const std::string p = testing::fixture_dir() + "/mlp/core/program.pt2";
  const std::string msg = failed_import({{"a", p}, {"a", p}});
  EXPECT_NE(msg.find("method name 'a' is used twice"), std::string::npos) << msg;
}

// Same model, other random weights: one weight file cannot hold both under one name.
TEST(MultiMethod, SameNameOtherValuesIsAnError) {
  const std::string dir = testing::fixture_dir() + "/weights/";
  const std::string msg = failed_import({{"a", dir + "A.pt2"}, {"b", dir + "B.pt2"}});
  EXPECT_NE(msg.find("'" + dir + "B.pt2': weight '"), std::string::npos) << msg;
  EXPECT_NE(msg.find("has other values than in '" + dir + "A.pt2'"), std::string::npos) << msg;
}

}  // namespace
}  // namespace tir
