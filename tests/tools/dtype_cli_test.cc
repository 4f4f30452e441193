// `tirrun --dtype`: bf16 runs a real torch fixture (GPT-2, training IR), says so in the
// summary and stays within the bf16 tolerance of torch's float32 output (tests/runtime/
// bf16_test.cc documents it) while differing from the f32 run. On a CPU without native bf16
// it warns once, says it computes f32 and gives the f32 output bit for bit. An unknown dtype
// is one error line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kernels/cpu/onednn/onednn_context.h"
#include "runtime/weights/npy.h"
#include "tests/common/cli_util.h"

namespace tir::tools {
namespace {

using testing::expect_one_error_line;
using testing::Proc;
using testing::q;
using testing::TempDir;
using testing::tirc;
using testing::tirrun;

struct Gpt2Cli {
  std::string args;  // model, weights and inputs
  std::string input_dir;
};

Gpt2Cli import_gpt2(const TempDir& tmp) {
  const std::string dir = testing::fixture_dir() + "/gpt2/training/";
  const Proc p = tirc("import " + q(dir + "program.pt2") + " -o " + q(tmp.file("m.tir")) +
                      " --weights " + q(tmp.file("m.bin")));
  EXPECT_EQ(p.code, 0) << p.err;
  return {
      q(tmp.file("m.tir")) + " --weights " + q(tmp.file("m.bin")) + " " + q(dir + "input_0.npy"),
      dir};
}

TEST(DtypeCli, Bf16RunsCloseToTorchAndSaysSo) {
  TempDir tmp;
  const Gpt2Cli r = import_gpt2(tmp);
  const Proc f32 = tirrun(r.args + " -o " + q(tmp.file("f32")));
  ASSERT_EQ(f32.code, 0) << f32.err;
  EXPECT_NE(f32.out.find("compute f32"), std::string::npos) << f32.out;
  const bool native = kernels::cpu_precision(Precision::kBFloat16) == Precision::kBFloat16;
  const Proc bf16 = tirrun(r.args + " --dtype bf16 -o " + q(tmp.file("bf16")));
  ASSERT_EQ(bf16.code, 0) << bf16.err;
  const Proc js = tirrun(r.args + " --dtype bf16 --json");
  ASSERT_EQ(js.code, 0) << js.err;
  EXPECT_EQ(nlohmann::json::parse(js.out)["dtype_asked"], "bf16");
  if (native) {
    EXPECT_NE(bf16.out.find("compute bf16)"), std::string::npos) << bf16.out;
    EXPECT_EQ(nlohmann::json::parse(js.out)["dtype"], "bf16");
    EXPECT_EQ(bf16.err.find("warning"), std::string::npos) << bf16.err;
  } else {
    EXPECT_NE(bf16.out.find("compute f32, bf16 asked: not native on this CPU)"), std::string::npos)
        << bf16.out;
    EXPECT_EQ(nlohmann::json::parse(js.out)["dtype"], "f32");
    EXPECT_NE(bf16.err.find("tir: warning: this CPU has no native bf16"), std::string::npos)
        << bf16.err;
  }

  auto want = npy_read(r.input_dir + "output_0.npy");
  auto got = npy_read(tmp.file("bf16/output_0.npy"));
  auto plain = npy_read(tmp.file("f32/output_0.npy"));
  ASSERT_TRUE(want.ok() && got.ok() && plain.ok());
  ASSERT_EQ(got->view().numel(), want->view().numel());
  double err = 0, scale = 0, from_f32 = 0;
  for (int64_t i = 0; i < want->view().numel(); ++i) {
    const double y = want->view().data_as<float>()[i], x = got->view().data_as<float>()[i];
    err = std::max(err, std::fabs(x - y));
    scale = std::max(scale, std::fabs(y));
    from_f32 = std::max(from_f32, std::fabs(x - plain->view().data_as<float>()[i]));
  }
  EXPECT_LE(err, 5e-2 * scale);
  if (native)
    EXPECT_GT(from_f32, 1e-4 * scale) << "--dtype bf16 computed the float32 result";
  else
    EXPECT_EQ(from_f32, 0.0) << "no native bf16, yet not the float32 result";
}

TEST(DtypeCli, UnknownDtypeIsOneErrorLine) {
  TempDir tmp;
  const Gpt2Cli r = import_gpt2(tmp);
  const Proc p = tirrun(r.args + " --dtype nonsense");
  expect_one_error_line(p, "unknown compute dtype 'nonsense' (expected f32, bf16 or int8)");
  EXPECT_NE(tirrun("--help").out.find("--dtype"), std::string::npos);
}

}  // namespace
}  // namespace tir::tools
