// How a generate loop picks the next token from a step's logits: greedy, or sampled after
// transformers' logits processors, in transformers' order (repetition penalty, temperature,
// top-k, top-p). Reproducible: one seed gives the same tokens on every machine (own
// 64-bit generator and its own uniform conversion, no <random> distribution).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/status.h"

namespace tir::llm {

using TokenId = int32_t;

struct SamplingOptions {
  /// 0: greedy (argmax, the first of equal maxima, as torch.argmax). Otherwise logits are
  /// divided by it before softmax.
  float temperature = 0;
  /// Keep the k largest logits (ties at the k-th kept, as transformers' TopKLogitsWarper);
  /// 0: all.
  int top_k = 0;
  /// Keep the smallest set of most likely tokens whose probability reaches top_p (at least
  /// one); 1: all.
  float top_p = 1;
  /// > 1 makes tokens already in the prompt or the output less likely (CTRL's penalty:
  /// a positive logit is divided by it, a negative one multiplied). 1: off.
  float repetition_penalty = 1;
  uint64_t seed = 0;
};

/// Checks the options' ranges; the message names the option.
Status validate(const SamplingOptions& options);

class Sampler {
 public:
  /// `options` must have passed validate().
  explicit Sampler(const SamplingOptions& options);

  /// The next token after `history` (the prompt and what was generated so far) given the
  /// step's float32 `logits` over the vocabulary.
  TokenId next(std::span<const float> logits, std::span<const TokenId> history);

  /// The distribution next() draws from, over the whole vocabulary (zeros where filtered
  /// out; one 1 for greedy). For tests and for callers that want the probabilities.
  void probabilities(std::span<const float> logits, std::span<const TokenId> history,
                     std::vector<double>* out);

 private:
  /// Logits after the repetition penalty and the temperature, in `scores_`.
  void score(std::span<const float> logits, std::span<const TokenId> history);
  /// Softmax over the kept tokens of `scores_` into `probs_` (top-k, then top-p).
  void filter_and_normalize();
  double uniform();  // in [0, 1)

  SamplingOptions options_;
  uint64_t state_[4];  // xoshiro256** state
  std::vector<double> scores_, probs_;
  std::vector<int32_t> order_;
  std::vector<uint8_t> seen_;
};

}  // namespace tir::llm
