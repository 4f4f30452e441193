// tirrun --adapter: a PEFT folder or its safetensors file gives PEFT's merged-model logits
// (tests/data/gen_lora.py); --help lists it; a bad adapter is one `error:` line naming it.
#include <gtest/gtest.h>

#include "runtime/weights/npy.h"
#include "tests/common/cli_util.h"
#include "tests/common/test_util.h"

namespace tir {
namespace {

using testing::q;
using testing::tirc;
using testing::tirrun;

TEST(LoraCli, AdapterFolderOrFileEqualsPeftMergedModel) {
  testing::TempDir tmp;
  const std::string dir = testing::fixture_dir() + "/lora/gpt2";
  const std::string model = tmp.file("m.tir"), weights = tmp.file("m.bin");
  ASSERT_EQ(
      tirc("import " + q(dir + "/program.pt2") + " -o " + q(model) + " --weights " + q(weights))
          .code,
      0);
  auto want = npy_read(dir + "/attn_r4_output_0.npy");
  ASSERT_TRUE(want.ok()) << want.status().message();
  for (const std::string adapter : {dir + "/attn_r4", dir + "/attn_r4/adapter_model.safetensors"}) {
    const auto p = tirrun(q(model) + " -w " + q(weights) + " --adapter " + q(adapter) + " " +
                          q(dir + "/input_0.npy") + " -o " + q(tmp.file("out")));
    ASSERT_EQ(p.code, 0) << p.err;
    EXPECT_NE(p.out.find("adapter " + adapter), std::string::npos) << p.out;
    auto got = npy_read(tmp.file("out/output_0.npy"));
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_TRUE(testing::all_close(got->view(), want->view(), 1e-5, 1e-5)) << adapter;
  }
  const auto bad =
      tirrun(q(model) + " -w " + q(weights) + " --adapter " +
             q(testing::fixture_dir() + "/lora/llama/qv_r4") + " " + q(dir + "/input_0.npy"));
  testing::expect_one_error_line(bad, "names no weight of the model");
  EXPECT_NE(tirrun("--help").out.find("--adapter"), std::string::npos);
}

}  // namespace
}  // namespace tir
