#include "tokenizer/utf8.h"

#include <cstdint>

namespace tir::tokenizer {
namespace {

bool continuation(uint8_t b) { return (b & 0xC0) == 0x80; }

/// How many bytes of a valid prefix of a sequence start at `s[i]` (at least 1 for a lead byte
/// that can start one, 0 for one that cannot), and in `*out_complete` whether the sequence
/// is whole.
size_t valid_prefix(std::string_view s, size_t i, bool* out_complete) {
  const uint8_t b0 = static_cast<uint8_t>(s[i]);
  *out_complete = false;
  size_t need;
  uint8_t lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (b0 < 0x80) {
    *out_complete = true;
    return 1;
  } else if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 3;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 4;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  size_t n = 1;
  for (; n < need && i + n < s.size(); ++n) {
    const uint8_t b = static_cast<uint8_t>(s[i + n]);
    if (n == 1 ? (b < lo || b > hi) : !continuation(b)) break;
  }
  *out_complete = n == need;
  return n;
}

}  // namespace

size_t utf8_sequence_length(std::string_view s, size_t i) {
  bool complete;
  const size_t n = valid_prefix(s, i, &complete);
  return complete ? n : 0;
}

bool utf8_valid(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string utf8_lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    bool complete;
    const size_t n = valid_prefix(bytes, i, &complete);
    if (complete) {
      out.append(bytes.substr(i, n));
    } else {
      out.append("\xEF\xBF\xBD");
    }
    i += n == 0 ? 1 : n;
  }
  return out;
}

char32_t utf8_decode(std::string_view s, size_t i, size_t length) {
  const auto b = [&](size_t k) { return static_cast<char32_t>(static_cast<uint8_t>(s[i + k])); };
  switch (length) {
    case 1:
      return b(0);
    case 2:
      return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3:
      return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default:
      return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
  }
}

void utf8_append(char32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

bool unicode_whitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

}  // namespace tir::tokenizer
