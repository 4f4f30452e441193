// The normalizers of a tokenizer.json, applied to the text between added tokens before
// pre-tokenization, as Hugging Face tokenizers does (ICU does the Unicode work):
//   {"type": "NFC" | "NFD" | "NFKC" | "NFKD"}     Unicode normalization forms
//   {"type": "Lowercase"}                         each character's full lowercase mapping, with
//                                                 no context (Rust's char::to_lowercase)
//   {"type": "Prepend", "prepend": "▁"}           text put before a non-empty piece
//   {"type": "Sequence", "normalizers": [...]}    each in turn
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace tir::tokenizer {

struct NormalizerStep {
  enum class Kind { kNfc, kNfd, kNfkc, kNfkd, kLowercase, kPrepend };
  Kind kind = Kind::kNfc;
  std::string prepend;  // kPrepend only
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
