// Progress of `tirc import` and `tirc weights pack`: a byte bar on a terminal (run under
// script(1) for a pseudo-terminal), nothing of it when stderr is a file or with --quiet.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/common/cli_util.h"

namespace tir::tools {
namespace {

using testing::Proc;
using testing::q;
using testing::slurp;
using testing::TempDir;
using testing::tirc;

std::string program() { return testing::fixture_dir() + "/gpt2/core/program.pt2"; }

/// `tirc args` on a pseudo-terminal; everything it printed, as the terminal got it.
std::string on_terminal(const std::string& args, const TempDir& tmp) {
  const std::string cmd = "script -qec " + q(std::string(std::getenv("TIRC")) + " " + args) +
                          " /dev/null >" + q(tmp.file("tty")) + " 2>&1 </dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << slurp(tmp.file("tty"));
  return slurp(tmp.file("tty"));
}

bool have_script() { return std::system("command -v script >/dev/null 2>&1") == 0; }

TEST(ProgressCli, NothingWhenNotATerminal) {
  TempDir tmp;
  Proc p = tirc("import " + q(program()) + " -o " + q(tmp.file("m.tir")));
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(p.err, "");
  EXPECT_EQ(p.out.find('\r'), std::string::npos);
  EXPECT_NE(p.out.find("wrote weights"), std::string::npos) << p.out;  // phase lines stay
  p = tirc("weights pack " + q(tmp.file("m.bin")) + " -o " + q(tmp.file("p.bin")));
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(p.err, "");
  EXPECT_EQ(p.out.find('\r'), std::string::npos);
  EXPECT_NE(p.out.find("packing: "), std::string::npos) << p.out;
}

TEST(ProgressCli, QuietDropsTheProgressLines) {
  TempDir tmp;
  Proc p = tirc("import -q " + q(program()) + " -o " + q(tmp.file("m.tir")));
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(p.out.find("wrote weights"), std::string::npos) << p.out;
  EXPECT_EQ(p.out.rfind("done: ", 0), 0u) << p.out;  // the summary stays
  p = tirc("weights pack --quiet " + q(tmp.file("m.bin")) + " -o " + q(tmp.file("p.bin")));
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(p.out.find("packing: "), std::string::npos) << p.out;
  EXPECT_EQ(p.out.rfind("packed ", 0), 0u) << p.out;
}

TEST(ProgressCli, BarOnATerminalUnlessQuiet) {
  if (!have_script()) GTEST_SKIP() << "script(1) is not installed";
  TempDir tmp;
  std::string tty = on_terminal("import " + q(program()) + " -o " + q(tmp.file("m.tir")), tmp);
  EXPECT_NE(tty.find("\rweights ["), std::string::npos) << tty;
  EXPECT_NE(tty.find("MB/s"), std::string::npos) << tty;
  EXPECT_NE(tty.find("100%"), std::string::npos) << tty;
  tty = on_terminal("import --quiet " + q(program()) + " -o " + q(tmp.file("m.tir")), tmp);
  EXPECT_EQ(tty.find("MB/s"), std::string::npos) << tty;
  EXPECT_EQ(tty.find('\r' + std::string("weights")), std::string::npos) << tty;
  EXPECT_NE(tty.find("done: "), std::string::npos) << tty;

  tty = on_terminal("weights pack " + q(tmp.file("m.bin")) + " -o " + q(tmp.file("p.safetensors")),
                    tmp);
  EXPECT_NE(tty.find("\rpacking ["), std::string::npos) << tty;
  EXPECT_NE(tty.find("MB/s"), std::string::npos) << tty;
  EXPECT_EQ(tty.find("packing: "), std::string::npos) << tty;  // the bar replaces them
  tty = on_terminal("weights pack -q " + q(tmp.file("m.bin")) + " -o " + q(tmp.file("p.bin")), tmp);
  EXPECT_EQ(tty.find("MB/s"), std::string::npos) << tty;
  EXPECT_NE(tty.find("packed "), std::string::npos) << tty;
}

}  // namespace
}  // namespace tir::tools
