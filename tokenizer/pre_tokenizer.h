// The pre-tokenizers of a byte-level tokenizer.json: how text is cut into words before BPE.
//   {"type": "Split", "pattern": {"Regex": "..."} | {"String": "..."},
//    "behavior": "Isolated" | "Removed", "invert": false}
//   {"type": "ByteLevel", "add_prefix_space": bool, "use_regex": bool}   (GPT-2's regex)
//   {"type": "Sequence", "pretokenizers": [...]}                          (ByteLevel last)
// Regexes run on PCRE2 with UTF and Unicode properties (\p{L}, \p{N}, (?i:...), lookahead).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace tir::tokenizer {

/// A compiled regular expression (PCRE2); immutable, usable from several threads.
class Regex {
 public:
  /// `literal`: match `pattern` as plain text.
  static Result<std::shared_ptr<const Regex>> compile(std::string_view pattern, bool literal);
  ~Regex();
  /// Appends the pieces of valid UTF-8 `text`: matches and the text between them.
  /// `keep_gaps` false drops the text between matches. kInternal if PCRE2 gives up (its
  /// match or JIT stack limits), rather than a silently different split.
  Status split(std::string_view text, bool keep_gaps, std::vector<std::string>* out) const;

 private:
  Regex() = default;
  void* code_ = nullptr;  // pcre2_code_8
};

/// The pre-tokenizer chain of one tokenizer.json.
class PreTokenizer {
 public:
  /// One split of the chain; ByteLevel is a Step with its prefix space and GPT-2's regex.
  struct Step {
    std::shared_ptr<const Regex> regex;  // null: no split
    bool keep_gaps = true;
    bool add_prefix_space = false;  // ByteLevel only
  };
  explicit PreTokenizer(std::vector<Step> steps) : steps_(std::move(steps)) {}

  /// The words of valid UTF-8 `text` (none empty).
  Result<std::vector<std::string>> words(std::string_view text) const;

 private:
  std::vector<Step> steps_;
};

/// GPT-2's pattern, which ByteLevel with use_regex splits by.
inline constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

}  // namespace tir::tokenizer
