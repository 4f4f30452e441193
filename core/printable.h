// Untrusted text (op names, keys, member names read from files) made safe for a terminal:
// control characters, DEL and invalid UTF-8 bytes become \xNN, so a hostile file cannot
// send escape sequences to the user's terminal through an error message or `tirc inspect`.
#pragma once

#include <string>
#include <string_view>

namespace tir {

/// `s` with every byte < 0x20, 0x7f and every byte >= 0x80 written as \xNN; printable
/// ASCII unchanged. Newlines become \x0a too, so one message stays one line.
inline std::string printable(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace tir
