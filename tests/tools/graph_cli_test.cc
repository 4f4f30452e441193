// The graph view: `tirc inspect --dot/--svg` (the IR in module-path clusters) and
// `tirrun --dot` (the same with the groups the session fused marked), on real torch fixtures.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

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

size_t count(const std::string& text, const std::regex& re) {
  return size_t(
      std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

/// tirc import fixtures/<dir>/program.pt2 -> tmp/m.tir + tmp/m.bin
void import_fixture(const std::string& dir, const TempDir& tmp) {
  const Proc p = tirc("import " + q(testing::fixture_dir() + "/" + dir + "/program.pt2") + " -o " +
                      q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")));
  ASSERT_EQ(p.code, 0) << p.err;
}

TEST(GraphCli, InspectDrawsEveryNodeInModuleClusters) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_fixture("resnet_small/training", tmp));
  const Proc js = tirc("inspect " + q(tmp.file("m.tir")) + " --json");
  ASSERT_EQ(js.code, 0) << js.err;
  const size_t nodes = nlohmann::json::parse(js.out)["methods"][0]["nodes"];
  const Proc p = tirc("inspect " + q(tmp.file("m.tir")) + " --dot " + q(tmp.file("g.dot")));
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.out.find("graph of method forward: " + tmp.file("g.dot")), std::string::npos)
      << p.out;
  const std::string dot = slurp(tmp.file("g.dot"));
  EXPECT_EQ(dot.rfind("digraph \"forward\" {", 0), 0u) << dot.substr(0, 200);
  EXPECT_EQ(count(dot, std::regex("\n  +n[0-9]+ \\[label=")), nodes);
  EXPECT_GE(count(dot, std::regex(" -> n[0-9]+;")), nodes - 1);  // every node but a source is fed
  EXPECT_NE(dot.find("label=\"layer1\""), std::string::npos);
  EXPECT_NE(dot.find("label=\"layer2.downsample\""), std::string::npos);
  EXPECT_NE(dot.find("label=\"layer2.downsample.0\""), std::string::npos);  // three deep
  EXPECT_NE(dot.find("label=\"layer1.conv1\""), std::string::npos);
  EXPECT_NE(dot.find("0 fused groups"), std::string::npos);
  EXPECT_EQ(dot.find("fillcolor"), std::string::npos);  // tirc links no kernels: no groups
  expect_one_error_line(
      tirc("inspect " + q(tmp.file("m.tir")) + " --dot " + q(tmp.file("x.dot")) + " --method nope"),
      "no method 'nope'");
  EXPECT_FALSE(std::filesystem::exists(tmp.file("x.dot")));
}

TEST(GraphCli, TirrunMarksTheGroupsTheSessionFused) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_fixture("mlp/training", tmp));  // linear, relu, linear
  const std::string base = q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin"));
  Proc p = tirrun(base + " --dot " + q(tmp.file("g.dot")));
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.out.find("(1 fused groups)"), std::string::npos) << p.out;
  EXPECT_EQ(p.out.find("time"), std::string::npos) << p.out;  // no inputs: nothing ran
  std::string dot = slurp(tmp.file("g.dot"));
  EXPECT_NE(dot.find("fused: aten::linear+relu"), std::string::npos) << dot;
  // The linear and the relu it absorbed share a colour; the second linear has none.
  EXPECT_EQ(count(dot, std::regex("fillcolor=\"#f4a582\"")), 2u) << dot;
  EXPECT_EQ(count(dot, std::regex("fillcolor")), 2u) << dot;
  p = tirrun(base + " --no-fuse --dot " + q(tmp.file("g.dot")));
  ASSERT_EQ(p.code, 0) << p.err;
  dot = slurp(tmp.file("g.dot"));
  EXPECT_EQ(dot.find("fillcolor"), std::string::npos) << dot;
}

TEST(GraphCli, TirrunGroupsOnAConvNet) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_fixture("resnet_small/core", tmp));
  const Proc p = tirrun(q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")) + " --dot " +
                        q(tmp.file("g.dot")));
  ASSERT_EQ(p.code, 0) << p.err;
  const std::smatch m = [&] {
    std::smatch r;
    std::regex_search(p.out, r, std::regex("\\(([0-9]+) fused groups\\)"));
    return r;
  }();
  ASSERT_EQ(m.size(), 2u) << p.out;
  const size_t groups = std::stoul(m[1]);
  EXPECT_GT(groups, 0u);
  const std::string dot = slurp(tmp.file("g.dot"));
  EXPECT_EQ(count(dot, std::regex("fused: aten::")), groups);
  EXPECT_EQ(count(dot, std::regex("penwidth=2")), groups);
  EXPECT_GT(count(dot, std::regex("fillcolor")), 2 * groups - 1);  // each absorbed a node or more
}

TEST(GraphCli, SvgWithGraphvizOrAClearError) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_fixture("mlp/core", tmp));
  // Without Graphviz on PATH: one error line saying so, and no SVG.
  const std::string cmd = "/usr/bin/env PATH=/nonexistent " + std::string(std::getenv("TIRC")) +
                          " inspect " + q(tmp.file("m.tir")) + " --svg " + q(tmp.file("g.svg")) +
                          " 2>" + q(tmp.file("err")) + " >/dev/null";
  const int status = std::system(cmd.c_str());
  EXPECT_NE(status, 0);
  const std::string err = slurp(tmp.file("err"));
  EXPECT_EQ(err.rfind("error: --svg", 0), 0u) << err;
  EXPECT_NE(err.find("install graphviz"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(tmp.file("g.svg")));
  if (std::system("command -v dot >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "Graphviz `dot` is not installed (tools/setup.sh installs it)";
  const Proc p = tirc("inspect " + q(tmp.file("m.tir")) + " --svg " + q(tmp.file("g.svg")));
  ASSERT_EQ(p.code, 0) << p.err;
  const std::string svg = slurp(tmp.file("g.svg"));
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("aten::addmm"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(tmp.file("g.dot")));  // the DOT beside it
}

}  // namespace
}  // namespace tir::tools
