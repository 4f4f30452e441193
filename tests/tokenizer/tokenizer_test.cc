// Every fixture tokenizer encodes and decodes the test corpus token for token as the reference
// libraries did (tests/data/gen_tokenizers.py).
#include "tokenizer/tokenizer.h"

#include <gtest/gtest.h>

#include "tests/tokenizer/reference.h"

namespace tir::tokenizer::testing {
namespace {

class ReferenceTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    tokenizer_ = open_fixture(GetParam());
    ASSERT_NE(tokenizer_, nullptr);
  }
  const nlohmann::json& ref() const { return reference()[GetParam()]; }
  bool huggingface() const { return ref()["file"].get<std::string>().ends_with(".json"); }
  std::unique_ptr<Tokenizer> tokenizer_;
};

TEST_P(ReferenceTest, EncodesLikeTheReference) {
  size_t cases = 0;
  for (const auto& c : ref()["cases"]) {
    const std::string text = c["text"].get<std::string>();
    auto plain = tokenizer_->encode(text, {.add_special_tokens = false});
    auto special = tokenizer_->encode(text, {.add_special_tokens = true});
    ASSERT_TRUE(plain.ok() && special.ok()) << plain.status().message();
    EXPECT_EQ(*plain, ids_of(c["ids"])) << "text " << quoted(text);
    EXPECT_EQ(*special, ids_of(c["ids_with_special"])) << "text " << quoted(text);
    ++cases;
  }
  EXPECT_GE(cases, 80u);
}

TEST_P(ReferenceTest, DecodesLikeTheReference) {
  for (const auto& c : ref()["cases"]) {
    const std::vector<TokenId> ids = ids_of(c["ids"]);
    auto text = tokenizer_->decode(ids);
    ASSERT_TRUE(text.ok()) << text.status().message();
    EXPECT_EQ(*text, c["decoded"].get<std::string>()) << "text " << quoted(c["text"]);
    if (c.contains("decoded_skip_special")) {
      auto skipped = tokenizer_->decode(ids, {.skip_special_tokens = true});
      ASSERT_TRUE(skipped.ok());
      EXPECT_EQ(*skipped, c["decoded_skip_special"].get<std::string>())
          << "text " << quoted(c["text"]);
    }
  }
}

// Random ids: bytes that are not UTF-8 become U+FFFD exactly where the reference puts them.
TEST_P(ReferenceTest, DecodesRandomIdsLikeTheReference) {
  for (const auto& c : ref()["random_decodes"]) {
    auto text = tokenizer_->decode(ids_of(c["ids"]));
    ASSERT_TRUE(text.ok()) << text.status().message();
    EXPECT_EQ(*text, c["text"].get<std::string>()) << "ids " << c["ids"].dump();
  }
}

// Byte-level BPE without a normalizer loses nothing: every text comes back.
TEST_P(ReferenceTest, ByteLevelRoundTrips) {
  if (GetParam() != "gpt2" && GetParam() != "llama3") GTEST_SKIP() << "normalizes its input";
  for (const auto& c : ref()["cases"]) {
    const std::string text = c["text"].get<std::string>();
    auto ids = tokenizer_->encode(text);
    ASSERT_TRUE(ids.ok());
    auto back = tokenizer_->decode(*ids, {.skip_special_tokens = false});
    ASSERT_TRUE(back.ok());
    const std::string bos = GetParam() == "llama3" ? "<|begin_of_text|>" : "";
    EXPECT_EQ(*back, bos + text);
  }
}

TEST_P(ReferenceTest, SpecialTokens) {
  const auto& r = ref();
  EXPECT_EQ(tokenizer_->bos_id(),
            r["bos"].is_null() ? std::nullopt : std::optional<TokenId>(r["bos"].get<int>()));
  EXPECT_EQ(tokenizer_->eos_id(),
            r["eos"].is_null() ? std::nullopt : std::optional<TokenId>(r["eos"].get<int>()));
  if (auto bos = tokenizer_->bos_id()) {
    EXPECT_TRUE(tokenizer_->is_special(*bos));
    const auto spelling = tokenizer_->id_to_token(*bos);
    ASSERT_TRUE(spelling.has_value());
    EXPECT_EQ(tokenizer_->token_to_id(*spelling), bos);
  }
  EXPECT_EQ(tokenizer_->vocab_size(), r["vocab_size"].get<int>());
  EXPECT_EQ(tokenizer_->token_to_id("no such token, surely"), std::nullopt);
  EXPECT_EQ(tokenizer_->id_to_token(-1), std::nullopt);
  EXPECT_EQ(tokenizer_->id_to_token(tokenizer_->vocab_size()), std::nullopt);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ReferenceTest, ::testing::ValuesIn(tokenizer_names()),
                         [](const auto& info) { return info.param; });

TEST(Tokenizer, Llama3ChatMarkersAreSpecial) {
  auto t = open_fixture("llama3");
  ASSERT_NE(t, nullptr);
  const auto eot = t->token_to_id("<|eot_id|>");
  ASSERT_TRUE(eot.has_value());
  EXPECT_EQ(t->eos_id(), eot);  // from tokenizer_config.json
  EXPECT_TRUE(t->is_special(*eot));
  auto ids = t->encode("a<|eot_id|>b", {.add_special_tokens = false});
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(std::count(ids->begin(), ids->end(), *eot), 1);
}

TEST(Tokenizer, QwenAddedTokensThatAreNotSpecial) {
  auto t = open_fixture("qwen2");
  ASSERT_NE(t, nullptr);
  const auto think = t->token_to_id("<think>");
  ASSERT_TRUE(think.has_value());
  EXPECT_FALSE(t->is_special(*think));
  auto text = t->decode(std::vector<TokenId>{*think}, {.skip_special_tokens = true});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "<think>");
}

// Long runs of one character class (up to 256 KiB, a word each): no quadratic merging, no regex
// stack limits.
TEST(Tokenizer, LongRunsEncode) {
  for (const std::string& name : tokenizer_names()) {
    auto t = open_fixture(name);
    ASSERT_NE(t, nullptr);
    for (const std::string& run : {std::string(1 << 18, ' '), std::string(1 << 18, 'a'),
                                   std::string(1 << 18, '7'), std::string(1 << 16, '\n') + "x"}) {
      auto ids = t->encode(run, {.add_special_tokens = false});
      ASSERT_TRUE(ids.ok()) << name << ": " << ids.status().message();
      if (name == "gpt2" || name == "llama3") {
        auto back = t->decode(*ids);
        ASSERT_TRUE(back.ok());
        EXPECT_TRUE(*back == run) << name;
      }
    }
  }
}

TEST(Tokenizer, OpensAFolder) {
  auto t = open_tokenizer(tokenizer_fixture_dir() + "/llama3");
  ASSERT_TRUE(t.ok()) << t.status().message();
  auto sp = open_tokenizer(tokenizer_fixture_dir() + "/sp_bpe");
  ASSERT_TRUE(sp.ok()) << sp.status().message();
}

}  // namespace
}  // namespace tir::tokenizer::testing
