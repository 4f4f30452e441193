// The pre-tokenizers of a byte-level tokenizer.json: how text is cut into words before BPE,
// each step as Hugging Face tokenizers' Split does it:
//   {"type": "Split", "pattern": {"Regex": "..."} | {"String": "..."},
//    "behavior": "Removed" | "Isolated" | "MergedWithPrevious" | "MergedWithNext" |
//                "Contiguous", "invert": bool}
//   {"type": "Digits", "individual_digits": bool}   (\p{N}, Isolated or Contiguous)
//   {"type": "Punctuation", "behavior": ...}        (Unicode P and ASCII punctuation)
//   {"type": "WhitespaceSplit"}                     (White_Space characters, Removed)
//   {"type": "Whitespace"}                          (runs of word characters, runs of others
//                                                    but White_Space; the rest removed)
//   {"type": "BertPreTokenizer"}                    (WhitespaceSplit, then punctuation
//                                                    Isolated)
//   {"type": "ByteLevel", "add_prefix_space": bool, "use_regex": bool}   (GPT-2's regex)
//   {"type": "Sequence", "pretokenizers": [...]}                          (ByteLevel last)
// Regexes run on PCRE2 with UTF and Unicode properties (\p{L}, \p{N}, (?i:...), lookahead),
// spelled as Oniguruma means them (regex_dialect.h), and find matches as the reference's
// Oniguruma iterator does, empty matches included.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace tir::tokenizer {

/// What a Split step does with the pieces its pattern matches (the reference's
/// SplitDelimiterBehavior).
enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

/// A piece of a split text: bytes [begin, end) and whether the pattern matched it.
struct SplitPiece {
  size_t begin = 0, end = 0;
  bool is_match = false;
};

/// A compiled regular expression (PCRE2); immutable, usable from several threads.
class Regex {
 public:
  /// `pattern` in Oniguruma's syntax (regex_dialect.h), or, with `literal`, plain text.
  static Result<std::shared_ptr<const Regex>> compile(std::string_view pattern, bool literal);
  ~Regex();
  /// Cuts valid UTF-8 `text` into the pieces that cover it: the matches, in order, and the
  /// text between them. An empty match is a piece too, except one right where the previous
  /// match ended (Oniguruma's find_iter). kInternal if PCRE2 gives up (its match or JIT
  /// stack limits), rather than a silently different split.
  Status find_matches(std::string_view text, std::vector<SplitPiece>* out) const;
  /// Whether some subject may match with no characters (PCRE2's minimum length is 0).
  bool may_match_empty() const;

 private:
  Regex() = default;
  void* code_ = nullptr;  // pcre2_code_8
};

/// `pieces` (from find_matches) joined as `behavior` says, with `invert` swapping matches and
/// the rest first; empty pieces are dropped.
std::vector<SplitPiece> apply_split_behavior(std::vector<SplitPiece> pieces, SplitBehavior behavior,
                                             bool invert);

/// The pre-tokenizer chain of one tokenizer.json.
class PreTokenizer {
 public:
  /// One split of the chain; ByteLevel is an Isolated split by GPT-2's regex with its prefix
  /// space.
  struct Step {
    std::shared_ptr<const Regex> regex;  // null: no split
    SplitBehavior behavior = SplitBehavior::kIsolated;
    bool invert = false;
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
/// The characters of the reference's fixed-class pre-tokenizers, one per match: Rust's
/// char::is_numeric (Digits), ASCII and Unicode punctuation (Punctuation), and
/// char::is_whitespace, Unicode's White_Space (WhitespaceSplit).
inline constexpr std::string_view kDigitPattern = R"(\p{N})";
inline constexpr std::string_view kPunctuationPattern = R"([\p{P}!-/:-@\[-`{-~])";
inline constexpr std::string_view kWhitespacePattern =
    R"([\t-\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}])";
/// The Whitespace pre-tokenizer's `\w+|[^\w\s]+` as Rust's regex crate reads it (\w:
/// Alphabetic, marks, Nd, Pc, Join_Control; \s: White_Space).
inline constexpr std::string_view kWordsPattern =
    R"([\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}]+|)"
    R"([^\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}\t-\r \x{85}\x{A0}\x{1680})"
    R"(\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]+)";

}  // namespace tir::tokenizer
