// The sampler against transformers: the distribution it draws from equals what transformers'
// own logits processors keep (gen_generate.py), a seed reproduces the tokens, and the draws
// follow the distribution (a chi-square test at p = 0.001 on 20000 draws).
#include "llm/sampler.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/llm/llm_fixture.h"

namespace tir::llm {
namespace {

SamplingOptions options_of(const nlohmann::json& j) {
  SamplingOptions o;
  o.temperature = j.value("temperature", 0.0f);
  o.top_k = j.value("top_k", 0);
  o.top_p = j.value("top_p", 1.0f);
  o.repetition_penalty = j.value("repetition_penalty", 1.0f);
  return o;
}

struct Reference {
  std::vector<float> logits;
  std::vector<TokenId> history;
  nlohmann::json cases;
};

Reference reference() {
  const nlohmann::json& s = testing::generate_reference()["sampling"];
  return {s["logits"].get<std::vector<float>>(), s["history"].get<std::vector<TokenId>>(),
          s["cases"]};
}

TEST(Sampler, DistributionEqualsTransformersLogitsProcessors) {
  const Reference r = reference();
  ASSERT_GE(r.cases.size(), 5u);
  for (const auto& c : r.cases) {
    SCOPED_TRACE(c["options"].dump());
    const SamplingOptions o = options_of(c["options"]);
    ASSERT_TRUE(validate(o).ok());
    Sampler sampler(o);
    std::vector<double> got;
    sampler.probabilities(r.logits, r.history, &got);
    const auto want = c["probs"].get<std::vector<double>>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_NEAR(got[k], want[k], 1e-6 + 1e-4 * want[k]) << "token " << k;
      EXPECT_EQ(got[k] == 0, want[k] == 0) << "token " << k << " kept by one, not the other";
    }
  }
}

TEST(Sampler, GreedyPicksTheLargestPenalizedLogit) {
  const Reference r = reference();
  const auto& last = r.cases.back();  // repetition penalty 2 at temperature 1
  ASSERT_EQ(last["options"].value("repetition_penalty", 1.0), 2.0);
  const auto probs = last["probs"].get<std::vector<double>>();
  const TokenId want = TokenId(std::max_element(probs.begin(), probs.end()) - probs.begin());
  SamplingOptions greedy;
  greedy.repetition_penalty = 2;
  EXPECT_EQ(Sampler(greedy).next(r.logits, r.history), want);
  // Without the penalty the largest raw logit wins; the fixture makes them differ.
  const TokenId raw =
      TokenId(std::max_element(r.logits.begin(), r.logits.end()) - r.logits.begin());
  EXPECT_EQ(Sampler(SamplingOptions{}).next(r.logits, r.history), raw);
  EXPECT_NE(raw, want) << "the fixture's history must hold the raw argmax";
}

std::vector<TokenId> draws(const SamplingOptions& o, const Reference& r, int n) {
  Sampler s(o);
  std::vector<TokenId> out(static_cast<size_t>(n));
  for (TokenId& t : out) t = s.next(r.logits, r.history);
  return out;
}

TEST(Sampler, SameSeedSameTokens) {
  const Reference r = reference();
  SamplingOptions o = options_of(r.cases[0]["options"]);
  o.seed = 42;
  EXPECT_EQ(draws(o, r, 200), draws(o, r, 200));
  SamplingOptions other = o;
  other.seed = 43;
  EXPECT_NE(draws(o, r, 200), draws(other, r, 200));
}

/// Upper 0.1% point of chi-square with `df` degrees of freedom (Wilson-Hilferty).
double chi_square_critical(int df) {
  const double z = 3.090232, a = 2.0 / (9.0 * df);
  return df * std::pow(1 - a + z * std::sqrt(a), 3);
}

TEST(Sampler, DrawsFollowTheReferenceDistribution) {
  const Reference r = reference();
  constexpr int kDraws = 20000;
  for (const auto& c : r.cases) {
    SCOPED_TRACE(c["options"].dump());
    SamplingOptions o = options_of(c["options"]);
    o.seed = 7;
    const auto probs = c["probs"].get<std::vector<double>>();
    std::vector<int> counts(probs.size());
    for (TokenId t : draws(o, r, kDraws)) {
      ASSERT_GT(probs[size_t(t)], 0) << "drew token " << t << ", which transformers filters out";
      ++counts[size_t(t)];
    }
    // Bins with an expected count under 5 are pooled into one.
    double chi2 = 0, pooled_expected = 0, pooled_count = 0;
    int bins = 0;
    for (size_t k = 0; k < probs.size(); ++k) {
      const double expected = probs[k] * kDraws;
      if (expected == 0) continue;
      if (expected < 5) {
        pooled_expected += expected;
        pooled_count += counts[k];
        continue;
      }
      chi2 += (counts[k] - expected) * (counts[k] - expected) / expected;
      ++bins;
    }
    if (pooled_expected > 0) {
      chi2 += (pooled_count - pooled_expected) * (pooled_count - pooled_expected) / pooled_expected;
      ++bins;
    }
    if (bins < 2) continue;  // one token kept: every draw is it (checked above)
    EXPECT_LT(chi2, chi_square_critical(bins - 1)) << bins << " bins";
  }
}

TEST(Sampler, OptionsOutOfRangeAreRefusedByName) {
  SamplingOptions o;
  o.temperature = -1;
  EXPECT_NE(validate(o).message().find("temperature"), std::string::npos);
  o = {};
  o.top_p = 0;
  EXPECT_NE(validate(o).message().find("top_p"), std::string::npos);
  o = {};
  o.top_k = -2;
  EXPECT_NE(validate(o).message().find("top_k"), std::string::npos);
  o = {};
  o.repetition_penalty = 0;
  EXPECT_NE(validate(o).message().find("repetition_penalty"), std::string::npos);
  EXPECT_TRUE(validate(SamplingOptions{}).ok());
}

}  // namespace
}  // namespace tir::llm
