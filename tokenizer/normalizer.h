// The normalizers of a tokenizer.json, applied to the text between added tokens before
// pre-tokenization, as Hugging Face tokenizers does (ICU does the Unicode work):
//   {"type": "NFC" | "NFD" | "NFKC" | "NFKD"}     Unicode normalization forms
//   {"type": "Lowercase"}                         each character's full lowercase mapping, with
//                                                 no context (Rust's char::to_lowercase)
//   {"type": "Prepend", "prepend": "▁"}           text put before a non-empty piece
//   {"type": "Replace", "pattern": {"String" | "Regex": ...}, "content": "..."}
//                                                 each match (pre_tokenizer.h's) replaced
//   {"type": "Strip", "strip_left", "strip_right"} White_Space removed at the ends
//   {"type": "StripAccents"}                      marks (Mn, Mc, Me) removed
//   {"type": "Sequence", "normalizers": [...]}    each in turn
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "tokenizer/pre_tokenizer.h"

namespace tir::tokenizer {

struct NormalizerStep {
  enum class Kind {
    kNfc,
    kNfd,
    kNfkc,
    kNfkd,
    kLowercase,
    kPrepend,
    kReplace,
    kStrip,
    kStripAccents
  };
  Kind kind = Kind::kNfc;
  std::string text;                    // kPrepend: the prefix; kReplace: the replacement
  std::shared_ptr<const Regex> regex;  // kReplace
  bool left = false, right = false;    // kStrip
};

/// A chain of normalizer steps; immutable, usable from several threads.
class Normalizer {
 public:
  explicit Normalizer(std::vector<NormalizerStep> steps = {}) : steps_(std::move(steps)) {}
  bool empty() const { return steps_.empty(); }
  /// The normalized form of valid UTF-8 `text`.
  Result<std::string> normalize(std::string_view text) const;

 private:
  std::vector<NormalizerStep> steps_;
};

}  // namespace tir::tokenizer
