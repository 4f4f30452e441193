#include "llm/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tir::llm {
namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

uint64_t splitmix64(uint64_t* x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/// The first index of the largest value (torch.argmax's choice among equal maxima).
TokenId argmax(std::span<const double> v) {
  return TokenId(std::max_element(v.begin(), v.end()) - v.begin());
}

}  // namespace

Status validate(const SamplingOptions& o) {
  if (!(o.temperature >= 0) || !std::isfinite(o.temperature))
    return make_error(StatusCode::kInvalidArgument, "temperature ", o.temperature,
                      " must be >= 0 (0: greedy)");
  if (o.top_k < 0)
    return make_error(StatusCode::kInvalidArgument, "top_k ", o.top_k, " must be >= 0 (0: off)");
  if (!(o.top_p > 0 && o.top_p <= 1))
    return make_error(StatusCode::kInvalidArgument, "top_p ", o.top_p, " must be in (0, 1]");
  if (!(o.repetition_penalty > 0) || !std::isfinite(o.repetition_penalty))
    return make_error(StatusCode::kInvalidArgument, "repetition_penalty ", o.repetition_penalty,
                      " must be > 0 (1: off)");
  return Status::ok_status();
}

Sampler::Sampler(const SamplingOptions& options) : options_(options) {
  uint64_t x = options.seed;
  for (uint64_t& s : state_) s = splitmix64(&x);
}

double Sampler::uniform() {
  const uint64_t result = rotl(state_[1] * 5, 7) * 9;
  const uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = rotl(state_[3], 45);
  return double(result >> 11) * 0x1.0p-53;
}

void Sampler::score(std::span<const float> logits, std::span<const TokenId> history) {
  scores_.assign(logits.begin(), logits.end());
  const float penalty = options_.repetition_penalty;
  if (penalty != 1) {
    seen_.assign(scores_.size(), 0);
    for (TokenId t : history) {
      if (t < 0 || size_t(t) >= scores_.size() || seen_[size_t(t)]) continue;
      seen_[size_t(t)] = 1;
      double& s = scores_[size_t(t)];
      s = s < 0 ? s * penalty : s / penalty;
    }
  }
  if (options_.temperature > 0)
    for (double& s : scores_) s /= options_.temperature;
}

void Sampler::filter_and_normalize() {
  const size_t n = scores_.size();
  if (options_.top_k > 0 && size_t(options_.top_k) < n) {
    probs_.assign(scores_.begin(), scores_.end());  // scratch for the k-th largest
    std::nth_element(probs_.begin(), probs_.begin() + (options_.top_k - 1), probs_.end(),
                     std::greater<>());
    const double kth = probs_[size_t(options_.top_k - 1)];
    for (double& s : scores_)
      if (s < kth) s = kMinusInf;
  }
  const double top = *std::max_element(scores_.begin(), scores_.end());
  probs_.resize(n);
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += probs_[i] = std::exp(scores_[i] - top);
  for (double& p : probs_) p /= sum;
  if (options_.top_p < 1) {
    // transformers' TopPLogitsWarper: ascending, drop while the cumulative probability stays
    // <= 1 - top_p, never the most likely token.
    order_.clear();
    for (size_t i = 0; i < n; ++i)
      if (probs_[i] > 0) order_.push_back(int32_t(i));
    std::stable_sort(order_.begin(), order_.end(),
                     [&](int32_t a, int32_t b) { return scores_[a] < scores_[b]; });
    double cumulative = 0, kept = 0;
    for (size_t k = 0; k + 1 < order_.size(); ++k) {
      cumulative += probs_[size_t(order_[k])];
      if (cumulative > 1 - double(options_.top_p)) break;
      probs_[size_t(order_[k])] = 0;
    }
    for (double p : probs_) kept += p;
    for (double& p : probs_) p /= kept;
  }
}

void Sampler::probabilities(std::span<const float> logits, std::span<const TokenId> history,
                            std::vector<double>* out) {
  score(logits, history);
  if (options_.temperature == 0) {
    out->assign(scores_.size(), 0);
    if (!scores_.empty()) (*out)[size_t(argmax(scores_))] = 1;
    return;
  }
  filter_and_normalize();
  *out = probs_;
}

TokenId Sampler::next(std::span<const float> logits, std::span<const TokenId> history) {
  score(logits, history);
  if (options_.temperature == 0 || scores_.size() < 2) return argmax(scores_);
  filter_and_normalize();
  const double u = uniform();
  double cumulative = 0;
  TokenId last = 0;
  for (size_t i = 0; i < probs_.size(); ++i) {
    if (probs_[i] == 0) continue;
    last = TokenId(i);
    cumulative += probs_[i];
    if (u < cumulative) return last;
  }
  return last;  // rounding left u at or above the total
}

}  // namespace tir::llm
