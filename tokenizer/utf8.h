// UTF-8 helpers of the tokenizers: validation, code point iteration, and the lossy conversion
// (U+FFFD for each maximal invalid subsequence, as Rust's String::from_utf8_lossy and the
// Unicode standard's recommended practice do) that decoding arbitrary ids needs.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tir::tokenizer {

/// The byte length of the valid UTF-8 sequence at `s[i]`, or 0 if none starts there.
size_t utf8_sequence_length(std::string_view s, size_t i);

bool utf8_valid(std::string_view s);

/// `bytes` with each invalid part replaced by U+FFFD.
std::string utf8_lossy(std::string_view bytes);

/// The code point of the valid sequence of `length` bytes at `s[i]`.
char32_t utf8_decode(std::string_view s, size_t i, size_t length);

void utf8_append(char32_t c, std::string* out);

/// Unicode's White_Space property (Rust's char::is_whitespace).
bool unicode_whitespace(char32_t c);

}  // namespace tir::tokenizer
