#include "tokenizer/added_tokens.h"

#include <unicode/uchar.h>

#include <algorithm>

#include "tokenizer/utf8.h"

namespace tir::tokenizer {
namespace {

/// Where the whitespace that ends at `end` starts (not before `floor`).
size_t whitespace_before(std::string_view text, size_t end, size_t floor) {
  while (end > floor) {
    size_t start = end - 1;  // back to the lead byte of the previous character
    while (start > floor && (static_cast<uint8_t>(text[start]) & 0xC0) == 0x80) --start;
    if (!unicode_whitespace(utf8_decode(text, start, end - start))) break;
    end = start;
  }
  return end;
}

size_t whitespace_after(std::string_view text, size_t begin) {
  while (begin < text.size()) {
    const size_t n = utf8_sequence_length(text, begin);
    if (n == 0 || !unicode_whitespace(utf8_decode(text, begin, n))) break;
    begin += n;
  }
  return begin;
}

/// Rust regex's Unicode \w: Alphabetic, marks, decimal digits, connector punctuation and
/// Join_Control.
bool word_char(char32_t c) {
  const auto u = static_cast<UChar32>(c);
  return u_hasBinaryProperty(u, UCHAR_ALPHABETIC) || u_hasBinaryProperty(u, UCHAR_JOIN_CONTROL) ||
         (U_GET_GC_MASK(u) & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0;
}

bool ends_with_word(std::string_view text, size_t end) {
  if (end == 0) return false;
  size_t start = end - 1;
  while (start > 0 && (static_cast<uint8_t>(text[start]) & 0xC0) == 0x80) --start;
  return word_char(utf8_decode(text, start, end - start));
}

bool starts_with_word(std::string_view text, size_t begin) {
  const size_t n = begin < text.size() ? utf8_sequence_length(text, begin) : 0;
  return n > 0 && word_char(utf8_decode(text, begin, n));
}

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(const std::vector<AddedToken>& tokens, bool normalized) {
  for (const AddedToken& t : tokens)
    if (t.normalized == normalized && !t.match_text.empty())
      by_first_byte_[static_cast<uint8_t>(t.match_text[0])].push_back(t);
  for (auto& list : by_first_byte_)
    std::stable_sort(list.begin(), list.end(), [](const AddedToken& a, const AddedToken& b) {
      return a.match_text.size() > b.match_text.size();
    });
}

void AddedTokenMatcher::split(std::string_view text, std::vector<Segment>* out) const {
  size_t gap = 0;  // start of the text not yet emitted
  for (size_t i = 0; i < text.size();) {
    const AddedToken* found = nullptr;
    for (const AddedToken& t : by_first_byte_[static_cast<uint8_t>(text[i])]) {
      if (text.compare(i, t.match_text.size(), t.match_text) == 0) {
        found = &t;
        break;
      }
    }
    if (found == nullptr) {
      ++i;
      continue;
    }
    size_t begin = i, end = i + found->match_text.size();
    i = end;  // the next match is searched for after this one, whatever becomes of it
    if (found->single_word && (ends_with_word(text, begin) || starts_with_word(text, end)))
      continue;
    if (found->lstrip) begin = std::max(whitespace_before(text, begin, 0), gap);
    if (found->rstrip) end = whitespace_after(text, end);
    if (begin > gap) out->push_back({std::string(text.substr(gap, begin - gap)), -1});
    out->push_back({std::string(), found->id});
    gap = end;
  }
  if (gap < text.size()) out->push_back({std::string(text.substr(gap)), -1});
}

}  // namespace tir::tokenizer
