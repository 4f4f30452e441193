// LoRA adapters through the C ABI: tir_session_load_adapter / tir_session_run_adapter give
// PEFT's merged-model logits (tests/data/gen_lora.py), NULL or "" the base model's; unknown
// names and bad adapters are statuses naming them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "include/tir/tir.h"
#include "runtime/weights/npy.h"
#include "tests/capi/tirc_import.h"
#include "tests/common/npy_util.h"
#include "tests/common/test_util.h"

namespace tir {
namespace {

using testing::read_npy;
using testing::TempDir;

TEST(CApiLora, RunAdapterEqualsPeftMergedModel) {
  TempDir tmp;
  const std::string dir = testing::fixture_dir() + "/lora/llama";
  ASSERT_TRUE(testing::tirc_import(dir, tmp));
  std::ifstream in(testing::fixture_dir() + "/lora/manifest.json");
  const auto family = nlohmann::json::parse(in)["families"][1];
  ASSERT_EQ(family["family"], "llama");
  tir_session* s = nullptr;
  ASSERT_EQ(tir_session_open(tmp.file("m.tir").c_str(), tmp.file("m.bin").c_str(), nullptr, &s),
            TIR_OK)
      << tir_last_error();
  HostTensor ids = read_npy(dir + "/input_0.npy");
  const Tensor& x = ids.view();
  ASSERT_EQ(
      tir_session_bind_input(s, 0, TIR_DTYPE_INT64, x.sizes.data(), x.rank, x.data, x.nbytes()),
      TIR_OK)
      << tir_last_error();
  auto expect_output = [&](const char* adapter, const HostTensor& want) {
    ASSERT_EQ(tir_session_run_adapter(s, adapter), TIR_OK) << tir_last_error();
    tir_tensor_view v;
    ASSERT_EQ(tir_session_output(s, 0, &v), TIR_OK);
    const Tensor got =
        make_tensor(static_cast<DType>(v.dtype), {v.dims, static_cast<size_t>(v.rank)},
                    const_cast<void*>(v.data));
    EXPECT_TRUE(testing::all_close(got, want.view(), 1e-5, 1e-5)) << (adapter ? adapter : "base");
  };
  for (const auto& a : family["adapters"]) {
    const std::string name = a["name"], path = dir + "/" + a["dir"].get<std::string>();
    ASSERT_EQ(tir_session_load_adapter(s, name.c_str(), path.c_str()), TIR_OK) << tir_last_error();
  }
  for (const auto& a : family["adapters"])
    expect_output(a["name"].get<std::string>().c_str(),
                  read_npy(dir + "/" + a["output"].get<std::string>()));
  const HostTensor base = read_npy(dir + "/base_output_0.npy");
  expect_output(nullptr, base);
  expect_output("", base);
  const std::string first = family["adapters"][0]["name"];
  ASSERT_EQ(tir_session_unload_adapter(s, first.c_str()), TIR_OK);
  EXPECT_EQ(tir_session_run_adapter(s, first.c_str()), TIR_NOT_FOUND);
  EXPECT_NE(std::string(tir_last_error()).find(first), std::string::npos) << tir_last_error();
  EXPECT_EQ(tir_session_unload_adapter(s, first.c_str()), TIR_NOT_FOUND);
  EXPECT_EQ(tir_session_load_adapter(s, "x", tmp.file("nowhere").c_str()), TIR_NOT_FOUND);
  EXPECT_NE(std::string(tir_last_error()).find("nowhere"), std::string::npos) << tir_last_error();
  EXPECT_EQ(tir_session_load_adapter(s, nullptr, "p"), TIR_INVALID_ARGUMENT);
  EXPECT_EQ(tir_session_run_adapter(nullptr, "x"), TIR_INVALID_ARGUMENT);
  tir_session_free(s);
}

}  // namespace
}  // namespace tir
