// Hostile variants of the mlp fixture (issue 17): each was a crash or a silently wrong
// import on main before the fix. Errors name the archive, the member and the JSON path.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../common/pt2_mutate.h"
#include "../common/test_util.h"
#include "importer/import_pt2.h"

namespace tir::importer {
namespace {

using tir::testing::TempDir;

std::string mlp() { return tir::testing::fixture_dir() + "/mlp/core/program.pt2"; }

std::string import_error(const std::string& pt2, const TempDir& dir) {
  ImportOptions o;
  o.input = pt2;
  o.model_path = dir.file("m.tir");
  o.weights_path = dir.file("w.bin");
  auto r = import_pt2(o);
  return r.ok() ? "" : r.status().message();
}

/// The mlp fixture with the first occurrence of `from` in member *`suffix` replaced by `to`.
std::string mutated(const TempDir& dir, const std::string& suffix, const std::string& from,
                    const std::string& to) {
  std::string text = tir::testing::pt2_read_member(mlp(), suffix);
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  const std::string out = dir.file("bad.pt2");
  tir::testing::pt2_replace_member(mlp(), out, suffix, text);
  return out;
}

TEST(HostileArchive, DeeplyNestedJsonIsRefusedNotAStackOverflow) {
  TempDir dir;
  const std::string deep = std::string(65536, '[') + "1" + std::string(65536, ']');
  const std::string pt2 = mutated(dir, "models/model.json", "{\"as_int\": 32}", deep);
  EXPECT_EQ(import_error(pt2, dir),
            "'" + pt2 +
                "': member 'models/model.json' nests 65542 levels deep (the "
                "limit is 256)");
}

TEST(HostileArchive, DuplicatedJsonKeysAreRefusedNamingTheMemberAndTheKey) {
  // Before, the last value won silently: a tensor of size 64 where the writer may have meant 32.
  TempDir dir;
  std::string pt2 =
      mutated(dir, "models/model.json", "{\"as_int\": 32}", "{\"as_int\": 32, \"as_int\": 64}");
  EXPECT_EQ(import_error(pt2, dir), "'" + pt2 +
                                        "': member 'models/model.json': key \"as_int\" appears "
                                        "twice in one object");
  pt2 = mutated(dir, "model_weights_config.json", "\"is_param\": true",
                "\"is_param\": true, \"is_param\": false");
  const std::string err = import_error(pt2, dir);
  EXPECT_NE(err.find("model_weights_config.json': key \"is_param\" appears twice"),
            std::string::npos)
      << err;
}

TEST(HostileArchive, ErrorsNameTheMemberAndTheJsonPath) {
  TempDir dir;
  const std::string pt2 = mutated(dir, "models/model.json", "{\"as_int\": 32}", "{}");
  const std::string err = import_error(pt2, dir);
  EXPECT_EQ(err.rfind("'" + pt2 + "': models/model.json /graph_module/graph/tensor_values/", 0), 0u)
      << err;
  EXPECT_NE(err.find("/sizes/0: expected a single-key union object, got {}"), std::string::npos)
      << err;
}

TEST(HostileArchive, FlippedWeightByteFailsTheZipCrc) {
  TempDir dir;
  const std::string pt2 = dir.file("flipped.pt2");
  tir::testing::pt2_flip_stored_byte(mlp(), pt2, "data/weights/weight_0", 100);
  const std::string err = import_error(pt2, dir);
  EXPECT_NE(err.find("member 'data/weights/weight_0' fails its CRC-32 check"), std::string::npos)
      << err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("w.bin")));
}

TEST(HostileArchive, WeightConfigMustAgreeWithTheGraph) {
  TempDir dir;
  // fc1.bias is float32[32]; a config saying [16] fits its 128-byte blob but is wrong.
  const std::string smaller =
      mutated(dir, "model_weights_config.json", "\"sizes\": [{\"as_int\": 32}], \"requires_grad\"",
              "\"sizes\": [{\"as_int\": 16}], \"requires_grad\"");
  EXPECT_EQ(import_error(smaller, dir),
            "'" + smaller +
                "': models/model.json /graph_module/graph/tensor_values/p_fc1_bias: tensor "
                "'fc1.bias' is float32[16] in its payload table but float32[32] in the graph "
                "(placeholder 'p_fc1_bias')");
  // fc1.weight as float16: half the bytes, still inside the blob.
  const std::string half =
      mutated(dir, "model_weights_config.json", "\"dtype\": 7", "\"dtype\": 6");
  EXPECT_NE(import_error(half, dir).find("'fc1.weight' is float16[32, 16] in its payload table "
                                         "but float32[32, 16] in the graph"),
            std::string::npos)
      << import_error(half, dir);
}

TEST(HostileArchive, OutputPathsThatWouldDestroyAnInputOrAreDirectoriesAreRefused) {
  TempDir dir;
  const std::string pt2 = dir.file("p.pt2");
  std::filesystem::copy_file(mlp(), pt2);
  const auto size = std::filesystem::file_size(pt2);
  ImportOptions o;
  o.input = pt2;
  o.model_path = pt2;
  o.weights_path = dir.file("w.bin");
  auto r = import_pt2(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "'" + pt2 + "' is an input program; writing there would destroy it");
  EXPECT_EQ(std::filesystem::file_size(pt2), size);

  // A good pair, then an import whose model path is a directory: the old weights stay.
  o.model_path = dir.file("m.tir");
  ASSERT_TRUE(import_pt2(o).ok());
  const auto weights = std::filesystem::file_size(dir.file("w.bin"));
  std::filesystem::create_directory(dir.file("d.tir"));
  o.model_path = dir.file("d.tir");
  r = import_pt2(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "'" + dir.file("d.tir") + "' is a directory; name the file to write");
  ASSERT_TRUE(std::filesystem::exists(dir.file("w.bin")));
  EXPECT_EQ(std::filesystem::file_size(dir.file("w.bin")), weights);
}

TEST(HostileArchive, TemporariesOfKilledWritersAreRemoved) {
  TempDir dir;
  // pid_max is at most 2^22, so no process has this pid.
  const std::string stale = dir.file("w.bin.tmp.99999999");
  std::ofstream(stale) << "half-written";
  ImportOptions o;
  o.input = mlp();
  o.model_path = dir.file("m.tir");
  o.weights_path = dir.file("w.bin");
  ASSERT_TRUE(import_pt2(o).ok());
  EXPECT_FALSE(std::filesystem::exists(stale));
}

}  // namespace
}  // namespace tir::importer
