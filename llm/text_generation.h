// Text in, text out over a Generator: the prompt encoded by a tokenizer (tokenizer/), the new
// tokens decoded as they come (only complete UTF-8 is passed on), stop strings.
//
//   auto tok = tir::tokenizer::open_tokenizer("tokenizer.json");
//   tir::llm::TextOptions o;
//   o.generate.max_new_tokens = 64;
//   o.stop_strings = {"\n\n"};
//   auto out = tir::llm::generate_text(*gen, **tok, "Once upon a time", o,
//                                      [](std::string_view piece) { std::cout << piece; return
//                                      true; });
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "llm/generator.h"
#include "tokenizer/tokenizer.h"

namespace tir::llm {

struct TextOptions {
  GenerateOptions generate;
  /// Generation stops once the text contains one of these; the text ends before it (text that
  /// could be the start of one is held back until it is not).
  std::vector<std::string> stop_strings;
  /// Add what the tokenizer adds around a prompt (Llama's BOS).
  bool add_special_tokens = true;
  /// Leave special tokens (EOS, chat markers) out of the output text.
  bool skip_special_tokens = true;
  /// Stop at the tokenizer's EOS token too (besides generate.eos_ids).
  bool stop_at_eos = true;
};

struct TextResult {
  std::vector<TokenId> prompt_ids;
  GenerateResult generated;  // the new tokens and the statistics
  std::string text;          // the new text (up to a stop string)
  bool stopped_by_string = false;
};

/// Called with each piece of new text as soon as it is printable; false stops generation.
using TextCallback = std::function<bool(std::string_view piece)>;

Result<TextResult> generate_text(Generator& generator, const tokenizer::Tokenizer& tokenizer,
                                 std::string_view prompt, const TextOptions& options,
                                 const TextCallback& on_text = {});

/// Holds back text that may begin a stop string and finds the first complete one.
class StopStringFilter {
 public:
  explicit StopStringFilter(std::vector<std::string> stops) : stops_(std::move(stops)) {}
  /// Adds `piece`; returns the text that is now safe to pass on. After a stop string is
  /// found, stopped() is true and nothing more is returned.
  std::string push(std::string_view piece);
  /// The text still held back (none after a stop).
  std::string flush();
  bool stopped() const { return stopped_; }

 private:
  std::vector<std::string> stops_;
  std::string held_;
  bool stopped_ = false;
};

}  // namespace tir::llm
