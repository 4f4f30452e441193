// The tools print untrusted text (op names, keys from a file) escaped (issue 17): a hostile
// archive cannot send terminal escape sequences through an error message.
#include <gtest/gtest.h>

#include "core/printable.h"
#include "tests/common/cli_util.h"
#include "tests/common/pt2_mutate.h"

namespace tir::testing {
namespace {

TEST(HostileCli, UntrustedTextIsEscapedInErrors) {
  TempDir dir;
  const std::string mlp = fixture_dir() + "/mlp/core/program.pt2";
  std::string json = pt2_read_member(mlp, "models/model.json");
  const std::string from = "torch.ops.aten.relu.default";
  json.replace(json.find(from), from.size(), "torch.ops.aten.re\\u001b[2Jlu.default");
  const std::string bad = dir.file("bad.pt2");
  pt2_replace_member(mlp, bad, "models/model.json", json);
  const Proc p = tirc("import " + q(bad) + " -o " + q(dir.file("m.tir")));
  expect_one_error_line(p, "aten::re\\x1b[2Jlu");
  EXPECT_EQ(p.err.find('\x1b'), std::string::npos) << p.err;
}

TEST(HostileCli, PrintableKeepsAsciiAndEscapesTheRest) {
  EXPECT_EQ(printable("a b/c'd"), "a b/c'd");
  EXPECT_EQ(printable(std::string("x\x1b[0m\n\x7f\xff", 8)), "x\\x1b[0m\\x0a\\x7f\\xff");
}

}  // namespace
}  // namespace tir::testing
