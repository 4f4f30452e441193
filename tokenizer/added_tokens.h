// The added tokens of a tokenizer.json ("added_tokens": special tokens such as <|eot_id|> and
// others such as <think>): they are cut out of the text before normalization and
// pre-tokenization, leftmost first and the longest where several start at one place, as the
// reference's Aho-Corasick (LeftmostLongest) does. Tokens with "normalized": false match the
// raw text, the others the normalized text (and match their own normalized content). A
// "single_word" token matches only where no word character (Rust regex's Unicode \w) touches
// it; a match it refuses is skipped whole, as the reference's iterator skips it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace tir::tokenizer {

struct AddedToken {
  std::string content;
  std::string match_text;  // content, normalized when `normalized` is set
  TokenId id = 0;
  bool special = false;
  bool normalized = false;
  bool lstrip = false;  // the match takes the whitespace before it
  bool rstrip = false;  // and after it
  bool single_word = false;
};

/// A piece of text to tokenize, or an added token's id (text empty).
struct Segment {
  std::string text;
  TokenId id = -1;
};

class AddedTokenMatcher {
 public:
  /// The tokens with `normalized` equal to `normalized` take part.
  AddedTokenMatcher(const std::vector<AddedToken>& tokens, bool normalized);

  /// Appends the segments of valid UTF-8 `text` to `*out`.
  void split(std::string_view text, std::vector<Segment>* out) const;

 private:
  std::vector<AddedToken> by_first_byte_[256];  // longest first
};

}  // namespace tir::tokenizer
