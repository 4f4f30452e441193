// `tirc weights pack --layout native` and `tirrun pack-layouts`: a weight file's layout cache
// written ahead of time (tooling/layouts/layout_pack.h). On the GPT-2 fixture of
// tests/data/gen_weights.py packed to int8 (its GEMMs' B packed into oneDNN's int8 layout on
// every CPU): the next tirrun maps every packed weight and packs nothing, with bitwise the
// outputs of a run that packs; a second pack finds them all there; bad arguments are one
// error line.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/common/cli_util.h"

namespace tir::tools {
namespace {

using testing::expect_one_error_line;
using testing::Proc;
using testing::q;
using testing::slurp;
using testing::TempDir;
using testing::tirc;
using testing::tirrun;

std::string wfile(const std::string& name) { return testing::fixture_dir() + "/weights/" + name; }

class LayoutsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const Proc p = tirc("import " + q(wfile("A.pt2")) + " -o " + q(tmp_.file("A.tir")) +
                        " --weights " + q(tmp_.file("A.bin")));
    ASSERT_EQ(p.code, 0) << p.err;
  }
  std::string model() const { return q(tmp_.file("A.tir")); }

  /// tirrun on the fixture's input, outputs into tmp/`dir`; its --json summary.
  nlohmann::json run(const std::string& weights, const std::string& dir,
                     const std::string& flags = "") {
    const Proc p = tirrun(model() + " -w " + q(weights) + " " + q(wfile("input_0.npy")) + " -o " +
                          q(tmp_.file(dir)) + " --json " + flags);
    EXPECT_EQ(p.code, 0) << p.err;
    return p.code == 0 ? nlohmann::json::parse(p.out) : nlohmann::json();
  }

  TempDir tmp_;
};

TEST_F(LayoutsCli, PackedAheadThenMappedNotPacked) {
  const std::string bin = tmp_.file("A.int8.bin"), cache = bin + ".layout";
  const Proc pack = tirc("weights pack " + q(tmp_.file("A.bin")) + " -o " + q(bin) +
                         " --dtype int8 --model " + model() + " --layout native -q");
  ASSERT_EQ(pack.code, 0) << pack.err;
  EXPECT_NE(pack.out.find("layout cache " + cache), std::string::npos) << pack.out;
  ASSERT_TRUE(std::filesystem::exists(cache));

  const nlohmann::json mapped = run(bin, "mapped");
  ASSERT_TRUE(mapped.is_object());
  EXPECT_EQ(mapped["packed_at_run"], 0) << mapped.dump();
  EXPECT_GT(mapped["packed_from_disk"].get<int>(), 0) << mapped.dump();
  const nlohmann::json packed = run(bin, "packed", "--no-layout-cache");
  ASSERT_TRUE(packed.is_object());
  EXPECT_GT(packed["packed_at_run"].get<int>(), 0) << packed.dump();
  const std::string want = slurp(tmp_.file("packed/output_0.npy"));
  EXPECT_FALSE(want.empty());
  EXPECT_EQ(slurp(tmp_.file("mapped/output_0.npy")), want);

  // Packing again finds every weight in the cache (tirrun pack-layouts, as tirc runs it).
  const Proc again = tirrun("pack-layouts " + model() + " -w " + q(bin));
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(
      again.out.find(" 0 weights packed now, " +
                     std::to_string(mapped["packed_from_disk"].get<int>()) + " were there already"),
      std::string::npos)
      << again.out;
}

TEST_F(LayoutsCli, BadArgumentsAreOneErrorLine) {
  const std::string bin = q(tmp_.file("A.bin"));
  expect_one_error_line(tirc("weights pack " + bin + " --layout native"), "needs --model");
  expect_one_error_line(tirc("weights pack " + bin + " --model " + model()), "needs --output");
  expect_one_error_line(
      tirc("weights pack " + bin + " --layout native --model " + model() + " --dim nope=3"),
      "--dim nope");
  expect_one_error_line(tirrun("pack-layouts " + model() + " -w " + bin + " --dim x"),
                        "NAME=VALUE");
  expect_one_error_line(tirrun("pack-layouts " + model() + " -w " + bin + " -m nope"),
                        "no method 'nope'");
  expect_one_error_line(
      tirrun("pack-layouts " + model() + " -w " + q(wfile("partial.safetensors"))),
      "beside a tir weight file only");
  EXPECT_FALSE(std::filesystem::exists(tmp_.file("A.bin.layout")));
}

}  // namespace
}  // namespace tir::tools
