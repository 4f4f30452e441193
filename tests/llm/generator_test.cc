// The generate loop on transformers' exported LLMs (tests/data/gen_llm.py): greedy tokens equal
// transformers' generate() in every family and both IRs; EOS, callback and a full cache stop
// it; a chat's next turn continues the cache; a model streamed under a weight budget picks
// the same tokens; a program without a cache runs on the whole sequence; bad prompts are
// refused before anything runs.
#include "llm/generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/llm/llm_fixture.h"

namespace tir::llm {
namespace {

using testing::TempDir;

struct Case {
  std::string family, dialect;
};

class GenerateFamilies : public ::testing::TestWithParam<Case> {};

TEST_P(GenerateFamilies, GreedyEqualsTransformersGenerate) {
  TempDir dir;
  ASSERT_NO_FATAL_FAILURE(testing::import_llm(GetParam().family, GetParam().dialect, dir));
  auto gen = testing::open_generator(dir);
  ASSERT_TRUE(gen);
  const auto want = testing::family_tokens(GetParam().family);
  const auto prompt = testing::llm_prompt();
  EXPECT_EQ(gen->max_context(), testing::llm_manifest()["max_context"].get<int64_t>());
  GenerateOptions o;
  o.max_new_tokens = want.size();
  std::vector<TokenId> streamed;
  auto out = gen->generate(prompt, o, [&](TokenId t) {
    streamed.push_back(t);
    return true;
  });
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->tokens, want);
  EXPECT_EQ(streamed, want);
  const GenerateStats& s = out->stats;
  EXPECT_EQ(s.prompt_tokens, prompt.size());
  EXPECT_EQ(s.new_tokens, want.size());
  EXPECT_EQ(s.stop, StopReason::kMaxNewTokens);
  EXPECT_GT(s.prefill_tokens_per_s(), 0);
  EXPECT_GT(s.decode_tokens_per_s(), 0);
  EXPECT_GE(s.time_to_first_token_s, s.prefill_s);
  EXPECT_EQ(gen->position(), int64_t(prompt.size() + want.size() - 1));

  // Again: a new conversation starts from an empty cache and picks the same tokens.
  o.max_new_tokens = 6;
  auto again = gen->generate(prompt, o);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->tokens, std::vector<TokenId>(want.begin(), want.begin() + 6));
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char* family : {"gpt2", "llama", "qwen3", "gemma", "phi3"})
    for (const char* dialect : {"core", "training"}) out.push_back({family, dialect});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Llm, GenerateFamilies, ::testing::ValuesIn(cases()), [](const auto& info) {
  return info.param.family + "_" + info.param.dialect;
});

class GenerateLlama : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(testing::import_llm("llama", "core", dir_));
    gen_ = testing::open_generator(dir_);
    ASSERT_TRUE(gen_);
  }
  TempDir dir_;
  std::unique_ptr<Generator> gen_;
  const std::vector<TokenId> want_ = testing::family_tokens("llama");
  const std::vector<TokenId> prompt_ = testing::llm_prompt();
};

TEST_F(GenerateLlama, StopsAfterAnEosId) {
  GenerateOptions o;
  o.max_new_tokens = 32;
  o.eos_ids = {want_[5]};
  auto out = gen_->generate(prompt_, o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const size_t first = size_t(std::find(want_.begin(), want_.end(), want_[5]) - want_.begin());
  EXPECT_EQ(out->tokens, std::vector<TokenId>(want_.begin(), want_.begin() + first + 1));
  EXPECT_EQ(out->stats.stop, StopReason::kEos);
}

TEST_F(GenerateLlama, CallbackStops) {
  GenerateOptions o;
  int calls = 0;
  auto out = gen_->generate(prompt_, o, [&](TokenId) { return ++calls < 3; });
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->tokens, std::vector<TokenId>(want_.begin(), want_.begin() + 3));
  EXPECT_EQ(out->stats.stop, StopReason::kCallback);
}

TEST_F(GenerateLlama, StopsWhenTheCacheIsFull) {
  GenerateOptions o;
  o.max_new_tokens = 1000;
  auto out = gen_->generate(prompt_, o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->stats.stop, StopReason::kContextFull);
  EXPECT_EQ(int64_t(prompt_.size() + out->tokens.size()), gen_->max_context());
  EXPECT_TRUE(std::equal(want_.begin(), want_.end(), out->tokens.begin()));
}

// A chat's next turn: the greedy continuation of prompt + a1..a3 + a4 is a5, a6, ...
TEST_F(GenerateLlama, NextTurnContinuesTheCache) {
  GenerateOptions o;
  o.max_new_tokens = 3;
  auto first = gen_->generate(prompt_, o);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(first->tokens, std::vector<TokenId>(want_.begin(), want_.begin() + 3));
  o.reset = false;
  const TokenId next_turn[] = {want_[3]};
  auto second = gen_->generate(next_turn, o);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(second->tokens, std::vector<TokenId>(want_.begin() + 4, want_.begin() + 7));
  // The pending a3 and the new turn were prefilled together.
  EXPECT_EQ(second->stats.prompt_tokens, 2u);
}

// Four threads on one Generator: each call runs whole, one after another, so each returns
// transformers' tokens (before, their steps interleaved over the one cache and 78 of 80
// returned wrong tokens).
TEST_F(GenerateLlama, ConcurrentCallsEachReturnTheirTokens) {
  GenerateOptions o;
  o.max_new_tokens = 8;
  const std::vector<TokenId> want(want_.begin(), want_.begin() + 8);
  std::vector<std::vector<TokenId>> got(4);
  std::vector<std::string> errors(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 3 && errors[t].empty(); ++rep) {
        auto out = gen_->generate(prompt_, o);
        if (!out.ok())
          errors[t] = out.status().message();
        else if (out->tokens != want)
          errors[t] = "wrong tokens in call " + std::to_string(rep);
      }
    });
  for (std::thread& t : threads) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
}

// generate from inside its own token callback is refused; the outer call goes on unharmed.
TEST_F(GenerateLlama, ReentrantCallIsRefused) {
  GenerateOptions o;
  o.max_new_tokens = 6;
  Status inner = Status::ok_status();
  auto out = gen_->generate(prompt_, o, [&](TokenId) {
    if (inner.ok()) {
      const TokenId other[] = {1, 2};
      inner = gen_->generate(other, o).status();
    }
    return true;
  });
  EXPECT_FALSE(inner.ok());
  EXPECT_NE(inner.message().find("generate called again while a generate"), std::string::npos)
      << inner.message();
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->tokens, std::vector<TokenId>(want_.begin(), want_.begin() + 6));
}

// A context beyond the cache the program was exported with fails at open, before any token.
TEST(GenerateContext, MaxContextBeyondTheExportedCacheIsRefused) {
  TempDir dir;
  ASSERT_NO_FATAL_FAILURE(testing::import_llm("llama", "core", dir));
  const int64_t exported = testing::llm_manifest()["max_context"].get<int64_t>();
  GeneratorOptions o;
  o.max_context = exported + 1;
  auto g = Generator::open(dir.file("llm.tir"), dir.file("llm.bin"), o);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("max_context " + std::to_string(exported + 1)),
            std::string::npos)
      << g.status().message();
  o.max_context = exported - 2;  // smaller is fine
  auto smaller = Generator::open(dir.file("llm.tir"), dir.file("llm.bin"), o);
  ASSERT_TRUE(smaller.ok()) << smaller.status().message();
  EXPECT_EQ((*smaller)->max_context(), exported - 2);
}

TEST_F(GenerateLlama, BadPromptsAreRefusedByName) {
  GenerateOptions o;
  const TokenId outside[] = {3, 500};
  auto r = gen_->generate(outside, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("prompt token 1 is id 500"), std::string::npos)
      << r.status().message();
  r = gen_->generate(std::span<const TokenId>(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("empty"), std::string::npos);
  const std::vector<TokenId> too_long(size_t(gen_->max_context()) + 1, 3);
  r = gen_->generate(too_long, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("context of 48"), std::string::npos) << r.status().message();
  o.sampling.top_p = 2;
  r = gen_->generate(prompt_, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("top_p"), std::string::npos);
  // The refusals ran nothing: greedy still gives the reference.
  o.sampling = {};
  o.max_new_tokens = 4;
  auto ok = gen_->generate(prompt_, o);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->tokens, std::vector<TokenId>(want_.begin(), want_.begin() + 4));
}

TEST_F(GenerateLlama, SeededSamplingIsReproducible) {
  GenerateOptions o;
  o.max_new_tokens = 16;
  o.sampling.temperature = 1.0f;
  o.sampling.top_p = 0.9f;
  o.sampling.seed = 123;
  auto a = gen_->generate(prompt_, o);
  auto b = gen_->generate(prompt_, o);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->tokens, b->tokens);
  o.sampling.seed = 124;
  auto c = gen_->generate(prompt_, o);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(a->tokens, c->tokens);
}

// One copy of the weights and one cache for both methods: the sessions hold the same weight
// set and the same state (the cache), sized from the exported context.
TEST_F(GenerateLlama, MethodsShareOneWeightSetAndOneCache) {
  Session& p = gen_->prefill_session();
  Session& d = gen_->decode_session();
  EXPECT_NE(&p, &d);
  EXPECT_EQ(p.weights(), d.weights());
  EXPECT_EQ(p.state(), d.state());
  // Llama's fixture: 2 layers x (key, value) x 2 kv heads x 48 positions x head dim 8, float32.
  const nlohmann::json& c = testing::llm_manifest()["families"][1]["config"];
  ASSERT_EQ(c["num_key_value_heads"], 2);
  const size_t head_dim = c["hidden_size"].get<size_t>() / c["num_attention_heads"].get<size_t>();
  const size_t want = c["num_hidden_layers"].get<size_t>() * 2 * 2 * size_t(gen_->max_context()) *
                      head_dim * sizeof(float);
  // (and transformers' per-layer int64 position counters)
  EXPECT_GE(p.state()->bytes(), want) << p.state()->size() << " buffers";
  EXPECT_LE(p.state()->bytes(), want + 8 * c["num_hidden_layers"].get<size_t>());
}

// Decode steps are GEMVs (one row): their weights are read in place, never packed into a
// second copy (kernels/cpu gemm: packing starts at 16 rows).
TEST_F(GenerateLlama, DecodeKeepsOneCopyOfTheWeights) {
  GenerateOptions o;
  o.max_new_tokens = 8;
  for (int k = 0; k < 3; ++k) ASSERT_TRUE(gen_->generate(prompt_, o).ok());
  EXPECT_EQ(gen_->prefill_session().weights()->packed_cache().size(), 0u);
}

// A model whose weights are 4x the budget streams them and picks the same tokens.
TEST(GenerateBudget, WeightsFourTimesTheBudgetGiveTheSameTokens) {
  TempDir dir;
  ASSERT_NO_FATAL_FAILURE(testing::import_llm("llama", "core", dir));
  GeneratorOptions go;
  const auto file_bytes = std::filesystem::file_size(dir.file("llm.bin"));
  go.session.weight_budget = file_bytes / 4;
  go.session.direct_io = false;  // tmpfs has no O_DIRECT
  auto gen = testing::open_generator(dir, go);
  ASSERT_TRUE(gen);
  ASSERT_TRUE(gen->prefill_session().weight_pool());
  EXPECT_EQ(gen->prefill_session().weight_pool(), gen->decode_session().weight_pool());
  GenerateOptions o;
  o.max_new_tokens = 32;
  auto out = gen->generate(testing::llm_prompt(), o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->tokens, testing::family_tokens("llama"));
}

// No cache (input_ids in, logits out): the whole sequence runs at every step.
TEST(GenerateNoCache, WholeSequenceEachStepEqualsGenerate) {
  const nlohmann::json& ref = testing::generate_reference()["nocache"];
  TempDir dir;
  ASSERT_NO_FATAL_FAILURE(testing::import_llm("gpt2", "nocache", dir));
  auto gen = testing::open_generator(dir);
  ASSERT_TRUE(gen);
  EXPECT_EQ(gen->max_context(), 47) << "no cache: the sequence range of one run";
  GenerateOptions o;
  o.max_new_tokens = 32;
  auto out = gen->generate(ref["prompt"].get<std::vector<TokenId>>(), o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->tokens, ref["tokens"].get<std::vector<TokenId>>());
}

}  // namespace
}  // namespace tir::llm
