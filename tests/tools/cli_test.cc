// End-to-end tests of the two command-line tools, run as a user runs them: `tirc import`
// then `tirrun`, on every real torch fixture, plus every bad-input path of the CLI.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fstream>
#include <iterator>
#include <regex>

#include "core/version.h"
#include "runtime/weights/npy.h"
#include "tests/common/cli_util.h"

namespace tir::tools {
namespace {

using testing::TempDir;

using testing::expect_one_error_line;
using testing::Proc;
using testing::q;
using testing::slurp;
using testing::tirc;
using testing::tirrun;

class FixtureCli : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(FixtureCli, ImportThenRunMatchesTorchEager) {
  const nlohmann::json& f = GetParam();
  const std::string dir = testing::fixture_dir() + "/" + f["dir"].get<std::string>();
  TempDir tmp;
  const Proc imp = tirc("import " + q(dir + "/program.pt2") + " -o " + q(tmp.file("m.tir")) +
                        " --weights " + q(tmp.file("m.bin")));
  ASSERT_EQ(imp.code, 0) << imp.err;
  // Inputs by name (exercises the name lookup); the positional form is tested below.
  std::string args =
      q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")) + " -o " + q(tmp.file("out"));
  for (const auto& in : f["inputs"])
    args +=
        " -i " + in["name"].get<std::string>() + "=" + q(dir + "/" + in["file"].get<std::string>());
  const Proc run = tirrun(args);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("output 0"), std::string::npos) << run.out;
  const double rtol = f["rtol"], atol = f["atol"];
  for (size_t k = 0; k < f["outputs"].size(); ++k) {
    auto got = npy_read(tmp.file("out/output_" + std::to_string(k) + ".npy"));
    ASSERT_TRUE(got.ok()) << got.status().message();
    auto want = npy_read(dir + "/" + f["outputs"][k]["file"].get<std::string>());
    ASSERT_TRUE(want.ok());
    EXPECT_TRUE(testing::all_close(got->view(), want->view(), rtol, atol)) << "output " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(AllFixtures, FixtureCli, ::testing::ValuesIn(testing::runnable_fixtures()),
                         testing::FixtureName());

/// Imports fixture `name` (training dialect) into `tmp` as m.tir/m.bin.
void import_into(const TempDir& tmp, const std::string& name, const std::string& stem = "m") {
  const std::string pt2 = testing::fixture_dir() + "/" + name + "/training/program.pt2";
  const Proc p = tirc("import " + q(pt2) + " -o " + q(tmp.file(stem + ".tir")) + " --weights " +
                      q(tmp.file(stem + ".bin")));
  ASSERT_EQ(p.code, 0) << p.err;
}

TEST(Cli, PositionalInputsAndRepeatTiming) {
  TempDir tmp;
  import_into(tmp, "sincos");
  const std::string dir = testing::fixture_dir() + "/sincos/training/";
  const Proc p = tirrun(q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")) + " " +
                        q(dir + "input_0.npy") + " " + q(dir + "input_1.npy") + " --repeat 3");
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.out.find("3 runs: median"), std::string::npos) << p.out;
}

// --seed: the random ops (tests/data/gen_random.py) draw the same values for the same seed.
TEST(Cli, SeedMakesRandomOpsReproducible) {
  TempDir tmp;
  import_into(tmp, "random/random_ops");
  const std::string in = q(testing::fixture_dir() + "/random/random_ops/training/input_0.npy");
  const std::string args = q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")) + " " + in;
  auto run = [&](const std::string& seed, const std::string& dir) {
    const Proc p = tirrun(args + " --seed " + seed + " -o " + q(tmp.file(dir)));
    EXPECT_EQ(p.code, 0) << p.err;
    std::ifstream f(tmp.file(dir + "/output_1.npy"), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  const std::string a = run("11", "a"), b = run("11", "b"), c = run("12", "c");
  EXPECT_GT(a.size(), 4096u * 4);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(Cli, ProfileWritesChromeTraceOfTheTimedRunsAndTables) {
  TempDir tmp;
  import_into(tmp, "sincos");
  const std::string dir = testing::fixture_dir() + "/sincos/training/";
  const std::string args = q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")) + " " +
                           q(dir + "input_0.npy") + " " + q(dir + "input_1.npy") + " --repeat 2";
  const Proc text = tirrun(args + " --profile " + q(tmp.file("t.json")));
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("module path"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("% run"), std::string::npos) << text.out;
  const Proc js = tirrun(args + " --json --profile " + q(tmp.file("trace.json")));
  ASSERT_EQ(js.code, 0) << js.err;
  const auto summary = nlohmann::json::parse(js.out);
  const auto trace = nlohmann::json::parse(slurp(tmp.file("trace.json")));
  EXPECT_EQ(summary["profile"]["runs"], 2);
  EXPECT_EQ(trace["traceEvents"].size(), 2 * summary["nodes"].get<size_t>());
  expect_one_error_line(tirrun(args + " --profile " + q(tmp.file("no/dir/x.json"))), "x.json");
}

TEST(Cli, DefaultOutputPathsSitBesideTheInput) {
  TempDir tmp;
  const std::string src = testing::fixture_dir() + "/mlp/training/program.pt2";
  std::filesystem::copy_file(src, tmp.file("mlp.pt2"));
  const Proc p = tirc("import " + q(tmp.file("mlp.pt2")));
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_TRUE(std::filesystem::exists(tmp.file("mlp.tir")));
  EXPECT_TRUE(std::filesystem::exists(tmp.file("mlp.bin")));
}

struct BadArchive {
  std::string file, needle;
};

class BadArchiveCli : public ::testing::TestWithParam<BadArchive> {};

TEST_P(BadArchiveCli, ImportFailsWithOneLineAndWritesNothing) {
  TempDir tmp;
  const std::string pt2 = testing::fixture_dir() + "/" + GetParam().file;
  const Proc p = tirc("import " + q(pt2) + " -o " + q(tmp.file("m.tir")) + " --weights " +
                      q(tmp.file("m.bin")));
  expect_one_error_line(p, GetParam().needle);
  EXPECT_EQ(tmp.num_entries(), 0u) << "partial output left behind";
}

INSTANTIATE_TEST_SUITE_P(
    Bad, BadArchiveCli,
    ::testing::Values(BadArchive{"bad/not_a_zip.pt2", "not_a_zip.pt2"},
                      BadArchive{"bad/no_model.pt2", "no model"},
                      BadArchive{"bad/schema_major_9.pt2", "schema version 9"},
                      BadArchive{"bad/short_weight.pt2", "weight_0"},
                      BadArchive{"unsupported_op/training/program.pt2", "aten::special_i1 (x1"},
                      BadArchive{"unsupported_op/core/program.pt2", "aten::special_bessel_j0 (x2"},
                      BadArchive{"missing/nothing.pt2", "nothing.pt2"}));

TEST(Cli, LoadingAnOpWithoutKernelNamesOpAndNode) {
  TempDir tmp;
  const std::string dir = testing::fixture_dir() + "/unsupported_op/core/";
  const Proc imp = tirc("import " + q(dir + "program.pt2") + " -o " + q(tmp.file("m.tir")) +
                        " --weights " + q(tmp.file("m.bin")) + " --skip-kernel-check");
  ASSERT_EQ(imp.code, 0) << imp.err;
  const Proc p = tirrun(q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")) +
                        " -i x=" + q(dir + "input_0.npy") + " -o " + q(tmp.file("out")));
  expect_one_error_line(p, "node 'special_bessel_j0': op aten::special_bessel_j0 has no kernel");
  EXPECT_FALSE(std::filesystem::exists(tmp.file("out")));
}

TEST(Cli, WeightFileOfAnotherModelIsRejected) {
  TempDir tmp;
  import_into(tmp, "mlp", "a");
  import_into(tmp, "branches", "b");
  const std::string dir = testing::fixture_dir() + "/mlp/training/";
  const Proc p = tirrun(q(tmp.file("a.tir")) + " --weights " + q(tmp.file("b.bin")) +
                        " -i x=" + q(dir + "input_0.npy") + " -o " + q(tmp.file("out")));
  expect_one_error_line(p, "does not match the model");
  EXPECT_FALSE(std::filesystem::exists(tmp.file("out")));
}

TEST(Cli, CorruptWeightByteIsCaughtByChecksum) {
  TempDir tmp;
  import_into(tmp, "mlp");
  {
    std::fstream f(tmp.file("m.bin"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(64);  // first tensor's first byte
    char c;
    f.read(&c, 1);
    f.seekp(64);
    c = static_cast<char>(c ^ 0x55);
    f.write(&c, 1);
  }
  const std::string dir = testing::fixture_dir() + "/mlp/training/";
  const Proc p = tirrun(q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")) +
                        " -i x=" + q(dir + "input_0.npy"));
  expect_one_error_line(p, "checksum");
}

TEST(Cli, MissingInputIsNamed) {
  TempDir tmp;
  import_into(tmp, "sincos");
  const std::string dir = testing::fixture_dir() + "/sincos/training/";
  const Proc p = tirrun(q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")) +
                        " -i x=" + q(dir + "input_0.npy") + " -o " + q(tmp.file("out")));
  expect_one_error_line(p, "missing input 'y'");
  EXPECT_FALSE(std::filesystem::exists(tmp.file("out")));
}

TEST(Cli, WrongShapeAndWrongDtypeAreNamed) {
  TempDir tmp;
  import_into(tmp, "mlp");
  HostTensor wrong_shape(DType::kFloat32, std::vector<int64_t>{4, 15});
  ASSERT_TRUE(npy_write(tmp.file("s.npy"), wrong_shape.view()).ok());
  Proc p = tirrun(q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")) +
                  " -i x=" + q(tmp.file("s.npy")));
  expect_one_error_line(p, "input 'x' dim 1 = 15: expected 16");
  HostTensor wrong_dtype(DType::kFloat64, std::vector<int64_t>{4, 16});
  ASSERT_TRUE(npy_write(tmp.file("d.npy"), wrong_dtype.view()).ok());
  p = tirrun(q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")) +
             " -i x=" + q(tmp.file("d.npy")));
  expect_one_error_line(p, "input 'x' has dtype float64, expected float32");
  p = tirrun(q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")) +
             " -i nope=" + q(tmp.file("d.npy")));
  expect_one_error_line(p, "no input 'nope'");
}

TEST(Cli, InspectShowsSymbolsRangesAndSymbolicShapes) {
  TempDir tmp;
  const std::string pt2 = testing::fixture_dir() + "/dynamic/seq8/training/program.pt2";
  ASSERT_EQ(tirc("import " + q(pt2) + " -o " + q(tmp.file("m.tir"))).code, 0);
  std::ifstream mf(testing::fixture_dir() + "/dynamic/manifest.json");
  const nlohmann::json m = nlohmann::json::parse(mf);
  std::string sym;  // torch's name for the root symbol, e.g. s69
  for (const auto& f : m["fixtures"])
    if (f["model"] == "seq8")
      for (const auto& [name, range] : f["range_constraints"].items())
        if (name.find('*') == std::string::npos) sym = name;
  const Proc p = tirc("inspect " + q(tmp.file("m.tir")));
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.out.find("symbol " + sym + " in [2, 64]"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("input  x: float32[2, 8*" + sym + ", 16]"), std::string::npos) << p.out;
  const Proc j = tirc("inspect --json " + q(tmp.file("m.tir")));
  ASSERT_EQ(j.code, 0);
  EXPECT_EQ(nlohmann::json::parse(j.out)["methods"][0]["symbols"][0]["max"], 64);
  expect_one_error_line(tirc("inspect " + q(pt2)), "not a tir model");
}

TEST(Cli, InspectShowsCondNodesAndTheirBranches) {
  TempDir tmp;
  const std::string pt2 = testing::fixture_dir() + "/dynamic/cond_dim/training/program.pt2";
  ASSERT_EQ(tirc("import " + q(pt2) + " -o " + q(tmp.file("m.tir"))).code, 0);
  const Proc p = tirc("inspect " + q(tmp.file("m.tir")));
  ASSERT_EQ(p.code, 0) << p.err;
  // The outer predicate is on the batch symbol; the nested one is a tensor of its branch.
  const std::regex outer(
      "\n  cond 'cond': if symbolic s[0-9]+ > 4 then cond.true_graph_0 else "
      "cond.false_graph_0\n");
  EXPECT_TRUE(std::regex_search(p.out, outer)) << p.out;
  EXPECT_NE(p.out.find("    cond 'cond.false_graph_0.cond': if tensor cond.false_graph_0.gt then "
                       "cond.false_graph_0.cond.true_graph_0 else "
                       "cond.false_graph_0.cond.false_graph_0\n"),
            std::string::npos)
      << p.out;
  EXPECT_NE(p.out.find("  subgraph cond.true_graph_0 (3 nodes)\n"), std::string::npos) << p.out;
  const Proc j = tirc("inspect --json " + q(tmp.file("m.tir")));
  ASSERT_EQ(j.code, 0);
  const nlohmann::json forward = nlohmann::json::parse(j.out)["methods"][0];
  EXPECT_EQ(forward["conds"][0]["true"], "cond.true_graph_0");
  EXPECT_EQ(forward["subgraphs"].size(), 2u);
  EXPECT_EQ(forward["subgraphs"][1]["subgraphs"].size(), 2u);  // the nested cond's branches
}

TEST(Cli, OpsListMatchesTheCommittedCoveragePage) {
  const Proc p = tirc("ops");
  ASSERT_EQ(p.code, 0);
  EXPECT_NE(p.out.find("aten::linear  cpu  float32, float64  optimized"), std::string::npos)
      << p.out;
  const Proc md = tirc("ops --markdown");
  ASSERT_EQ(md.code, 0);
  EXPECT_EQ(md.out, slurp(testing::test_data_dir() + "/../../docs/reference/ops.md"))
      << "docs/reference/ops.md is stale: regenerate it with `tirc ops --markdown > "
         "docs/reference/ops.md`";
}

TEST(Cli, HelpExitsZero) {
  EXPECT_EQ(tirrun("--help").code, 0);
  EXPECT_EQ(tirc("--help").code, 0);
}

TEST(Cli, EveryToolPrintsTheOneVersion) {
  // The project version, then "+g<revision>" in a build from a git checkout; the library's
  // own string (what tir_version() and tir.__version__ return) is the same.
  const std::string version = tir::version_string();
  EXPECT_EQ(version.rfind(TIR_TEST_VERSION, 0), 0u) << version;
  for (const char* tool : {"TIRC", "TIRRUN", "TIR_CALIBRATE", "TIRRUN_MPI"}) {
    if (!std::getenv(tool)) continue;  // tirrun-mpi is built where Open MPI is found
    const Proc p = testing::run_tool(tool, "--version");
    EXPECT_EQ(p.code, 0) << tool << ": " << p.err;
    const size_t space = p.out.find(' ');
    ASSERT_NE(space, std::string::npos) << tool << ": " << p.out;
    EXPECT_EQ(p.out.substr(space + 1), version + "\n") << tool;
  }
  EXPECT_EQ(tirc("--version").out, "tirc " + version + "\n");
}

}  // namespace
}  // namespace tir::tools
