// A native generate loop over a decoder LLM exported as transformers exports it for native
// runtimes (tools/export_llm.py: inputs `input_ids` [1, seq] and `cache_position` [seq], logits
// [1, seq, vocab], a static KV cache in buffers the program mutates):
//
//   auto gen = tir::llm::Generator::open("llm.tir", "llm.bin");
//   tir::llm::GenerateOptions o;
//   o.max_new_tokens = 64;
//   o.eos_ids = {2};
//   auto out = (*gen)->generate(prompt_ids, o, [](tir::llm::TokenId t) { ...; return true; });
//   // out->tokens, out->stats.decode_tokens_per_s()
//
// The prompt runs through the prefill method, each new token through the decode method; the
// two sessions share one weight set and one SessionState (the cache). A model with one method
// uses it for both. A program without `cache_position` (no cache: ids in, logits out) is run
// on the whole sequence at every step.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/serial_calls.h"
#include "core/status.h"
#include "llm/sampler.h"
#include "runtime/exec/session.h"

namespace tir::llm {

struct GeneratorOptions {
  /// Options of both sessions (precision, device, weight budget, fusion). `method` and `state`
  /// are set by the generator.
  SessionOptions session;
  /// "": "prefill" if the model has it, else "forward", else its only method.
  std::string prefill_method;
  /// "": "decode" if the model has it, else the prefill method.
  std::string decode_method;
  /// Positions the cache holds. 0: the prefill's sequence range + 1 (transformers exports
  /// the sequence dim with max = cache length - 1), or the range itself for a program
  /// without a cache; unbounded where the program has no range.
  int64_t max_context = 0;
  /// The prefill computes only the last position's logits, the ones the loop reads
  /// (SessionOptions::last_position: the final norm, lm_head and the last layer's MLP run on
  /// one row). true: every position's, as the program writes them.
  bool all_logits = false;
};

struct GenerateOptions {
  /// Tokens to generate at most (the prompt not counted).
  size_t max_new_tokens = 128;
  SamplingOptions sampling;
  /// Generation stops after one of these (it is the last token of the output).
  std::vector<TokenId> eos_ids;
  /// true: a new conversation (the cache back to its initial values, positions from 0).
  /// false: the prompt continues the previous generate call's sequence (a chat's next turn);
  /// after a call that failed midway it starts over anyway.
  bool reset = true;
};

enum class StopReason { kMaxNewTokens, kEos, kContextFull, kCallback };
const char* stop_reason_name(StopReason reason);

struct GenerateStats {
  size_t prompt_tokens = 0, new_tokens = 0;
  double prefill_s = 0;              // the prefill run
  double time_to_first_token_s = 0;  // prefill, sampling and the callback of the first token
  double decode_s = 0;               // every later step
  StopReason stop = StopReason::kMaxNewTokens;
  double prefill_tokens_per_s() const;
  /// New tokens after the first per second of decode_s.
  double decode_tokens_per_s() const;
};

struct GenerateResult {
  std::vector<TokenId> tokens;  // the new tokens
  GenerateStats stats;
};

/// Called with each new token as soon as it is picked; returning false stops generation
/// (StopReason::kCallback) after that token.
using TokenCallback = std::function<bool(TokenId)>;

struct MethodInputs;  // which inputs a method takes (generator.cc)

/// One generate call at a time (its sessions share one cache): calls from several threads run
/// one after another, and a call from inside a running one (its token callback) fails with an
/// error. Serve several conversations at once with one Generator each over the same weight
/// set (create()).
class Generator {
 public:
  static Result<std::unique_ptr<Generator>> open(const std::string& model_path,
                                                 const std::string& weights_path,
                                                 const GeneratorOptions& options = {});
  /// Same over a model already in memory and an opened weight set (shared, not copied).
  static Result<std::unique_ptr<Generator>> create(std::shared_ptr<const DataSource> model,
                                                   std::shared_ptr<const WeightSet> weights,
                                                   const GeneratorOptions& options = {});
  ~Generator();

  /// Prefill `prompt`, then decode until max_new_tokens, an EOS id, a full cache or the
  /// callback says stop. An empty prompt, an id outside the vocabulary or a prompt longer
  /// than the context fail before anything runs, with a message naming them.
  Result<GenerateResult> generate(std::span<const TokenId> prompt, const GenerateOptions& options,
                                  const TokenCallback& on_token = {});

  int64_t max_context() const { return max_context_; }
  /// The logits' last dim (known after the first run; 0 before).
  int64_t vocab_size() const { return vocab_; }
  /// Tokens in the cache: the last generate call's prompt and output (and earlier turns'
  /// when it did not reset).
  int64_t position() const { return cached_; }
  Session& prefill_session() { return *prefill_; }
  Session& decode_session() { return decode_ ? *decode_ : *prefill_; }

 private:
  Generator() = default;
  /// Runs `session` on ids [begin, end) of `sequence_` at positions from `begin`, returns
  /// the last position's logits.
  Result<std::span<const float>> step(Session& session, const MethodInputs& method, size_t begin,
                                      size_t end);
  /// Runs the tokens of `sequence_` not in the cache yet through the prefill method, in
  /// chunks its sequence range allows; the last position's logits.
  Result<std::span<const float>> prefill();
  Status check_prompt(std::span<const TokenId> prompt, const GenerateOptions& options) const;

  SerialCalls calls_;                          // generate: one at a time
  std::unique_ptr<Session> prefill_, decode_;  // decode_ null: prefill_ decodes too
  std::unique_ptr<MethodInputs> prefill_io_, decode_io_;
  int64_t max_context_ = 0, vocab_ = 0, cached_ = 0;
  bool state_used_ = false;                   // a run wrote the state since it was last reset
  bool broken_ = false;                       // a call failed midway: the next one starts over
  std::vector<TokenId> sequence_;             // every token in the cache, in order
  std::vector<int64_t> ids_, positions_;      // input buffers (int64)
  std::vector<int32_t> ids32_, positions32_;  // (int32 programs)
  std::vector<float> logits_;                 // the last logits, widened from half precision
};

}  // namespace tir::llm
