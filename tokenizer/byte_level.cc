#include "tokenizer/byte_level.h"

#include <array>

#include "tokenizer/utf8.h"

namespace tir::tokenizer {
namespace {

bool printable(int b) { return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE; }

struct Alphabet {
  std::array<char32_t, 256> chars{};
  Alphabet() {
    char32_t next = 0x100;
    for (int b = 0; b < 256; ++b) chars[b] = printable(b) ? static_cast<char32_t>(b) : next++;
  }
};

const Alphabet& alphabet() {
  static const Alphabet a;
  return a;
}

}  // namespace

char32_t byte_level_char(uint8_t byte) { return alphabet().chars[byte]; }

int byte_level_byte(char32_t c) {
  if (c < 0x100) return printable(static_cast<int>(c)) ? static_cast<int>(c) : -1;
  if (c >= 0x100 + 68) return -1;  // 68 bytes are not printable
  for (int b = 0; b < 256; ++b)
    if (alphabet().chars[b] == c) return b;
  return -1;
}

std::string byte_level_decode(std::string_view token, bool* out_mapped) {
  std::string bytes;
  for (size_t i = 0; i < token.size();) {
    const size_t n = utf8_sequence_length(token, i);
    const int b = n == 0 ? -1 : byte_level_byte(utf8_decode(token, i, n));
    if (b < 0) {
      if (out_mapped) *out_mapped = false;
      return std::string(token);
    }
    bytes.push_back(static_cast<char>(b));
    i += n;
  }
  if (out_mapped) *out_mapped = true;
  return bytes;
}

}  // namespace tir::tokenizer
