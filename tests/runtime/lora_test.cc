// LoRA adapters (runtime/weights/lora_adapter.h, runtime/exec/lora_step.h): a session with three
// PEFT adapters of different ranks, alphas and targets loaded computes, per adapter, what PEFT's
// merge_and_unload() model computes (within 1e-5), and the base model with none; fused and
// unfused, and after switching back and forth.
#include <gtest/gtest.h>

#include "tests/runtime/lora_fixture.h"

namespace tir {
namespace {

using testing::kLoraTol;
using testing::LoraFamily;

class Lora : public ::testing::TestWithParam<bool> {};  // SessionOptions::fuse

TEST_P(Lora, EachAdapterEqualsPeftMergedModel) {
  const nlohmann::json manifest = testing::lora_manifest();
  ASSERT_EQ(manifest["families"].size(), 2u);
  for (const auto& entry : manifest["families"]) {
    LoraFamily f;
    testing::load_lora_family(entry, &f);
    SessionOptions o;
    o.fuse = GetParam();
    auto s = testing::open_with_adapters(f, o);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->adapter_names().size(), f.adapters.size());
    const std::vector<Tensor> in = {f.input.view()};
    for (int round = 0; round < 2; ++round) {  // the second round reuses every plan
      for (const auto& a : f.adapters) {
        auto out = s->run(in, a.name);
        ASSERT_TRUE(out.ok()) << f.name << "/" << a.name << ": " << out.status().message();
        EXPECT_TRUE(testing::all_close((*out)[0], a.expected.view(), kLoraTol, kLoraTol))
            << f.name << "/" << a.name;
        EXPECT_FALSE(testing::all_close((*out)[0], f.base.view(), kLoraTol, kLoraTol))
            << f.name << "/" << a.name << ": the adapter changes nothing";
      }
      auto base = s->run(in, "");
      ASSERT_TRUE(base.ok()) << base.status().message();
      EXPECT_TRUE(testing::all_close((*base)[0], f.base.view(), kLoraTol, kLoraTol)) << f.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fuse, Lora, ::testing::Bool());

TEST(LoraSession, UnknownAdapterNamesTheLoadedOnes) {
  LoraFamily f;
  testing::load_lora_family(testing::lora_manifest()["families"][0], &f);
  auto s = testing::open_with_adapters(f);
  ASSERT_NE(s, nullptr);
  const std::vector<Tensor> in = {f.input.view()};
  auto out = s->run(in, "nope");
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("no adapter named 'nope'"), std::string::npos)
      << out.status().message();
  EXPECT_NE(out.status().message().find(f.adapters[0].name), std::string::npos);
  ASSERT_TRUE(s->unload_adapter(f.adapters[0].name).ok());
  EXPECT_FALSE(s->run(in, f.adapters[0].name).ok());
  EXPECT_FALSE(s->unload_adapter(f.adapters[0].name).ok());
  auto other = s->run(in, f.adapters[1].name);
  ASSERT_TRUE(other.ok()) << other.status().message();
  EXPECT_TRUE(testing::all_close((*other)[0], f.adapters[1].expected.view(), kLoraTol, kLoraTol));
}

TEST(LoraSession, AdaptersSurviveAWeightSwap) {
  LoraFamily f;
  testing::load_lora_family(testing::lora_manifest()["families"][1], &f);
  auto s = testing::open_with_adapters(f);
  ASSERT_NE(s, nullptr);
  auto same = WeightSet::open(f.tmp.file("m.bin"));
  ASSERT_TRUE(same.ok());
  ASSERT_TRUE(s->swap_weights(*same).ok());  // the same bytes, another set: same results
  const std::vector<Tensor> in = {f.input.view()};
  for (const auto& a : f.adapters) {
    auto out = s->run(in, a.name);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_TRUE(testing::all_close((*out)[0], a.expected.view(), kLoraTol, kLoraTol)) << a.name;
  }
}

}  // namespace
}  // namespace tir
