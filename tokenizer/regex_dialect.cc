#include "tokenizer/regex_dialect.h"

namespace tir::tokenizer {
namespace {

struct ClassEscape {
  char letter;             // the escape's letter; its upper case is the complement
  std::string_view items;  // the class's items, without brackets
};

constexpr ClassEscape kClassEscapes[] = {
    {'s', R"(\t-\r\x{85}\p{Z})"},
    {'w', R"(\p{L}\p{M}\p{Nd}\p{Pc})"},
    {'h', "0-9a-fA-F"},
};

Status refuse(std::string_view pattern, size_t at, std::string_view what) {
  return make_error(StatusCode::kUnsupported, "regex /", pattern, "/ at offset ", at, ": ", what,
                    " differs between Oniguruma (the tokenizers library) and PCRE2");
}

}  // namespace

Result<std::string> onig_to_pcre2(std::string_view pattern) {
  std::string out;
  out.reserve(pattern.size());
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '[') {
      if (!in_class) {
        in_class = true;
        out += c;
        // A ']' first in the class (after an optional '^') is a literal.
        if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
        if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];
        continue;
      }
      const size_t close = pattern.find(":]", i);
      if (i + 1 >= pattern.size() || pattern[i + 1] != ':' || close == std::string_view::npos)
        return refuse(pattern, i, "a class inside a class");
      out.append(pattern.substr(i, close + 2 - i));  // POSIX [:alpha:]
      i = close + 1;
      continue;
    }
    if (c == ']' && in_class) in_class = false;
    if (c == '&' && in_class && i + 1 < pattern.size() && pattern[i + 1] == '&')
      return refuse(pattern, i, "a class intersection (&&)");
    if (c != '\\' || i + 1 >= pattern.size()) {
      out += c;
      continue;
    }
    const char e = pattern[++i];
    bool done = false;
    for (const ClassEscape& escape : kClassEscapes) {
      const bool complement = e == escape.letter - 'a' + 'A';
      if (e != escape.letter && !complement) continue;
      if (in_class && complement)
        return refuse(pattern, i - 1, std::string("\\") + e + " inside a class");
      if (in_class) {
        out.append(escape.items);
      } else {
        out.append(complement ? "[^" : "[").append(escape.items).append("]");
      }
      done = true;
    }
    if (done) continue;
    if (e == 'v') {
      out += "\\x{0B}";
    } else if (e == 'V' || e == 'b' || e == 'B') {
      if (in_class && e == 'b') {  // a backspace in a class, in both
        out += "\\x{08}";
        continue;
      }
      return refuse(pattern, i - 1, std::string("\\") + e);
    } else {
      out += '\\';
      out += e;
    }
  }
  return out;
}

}  // namespace tir::tokenizer
