#include "tokenizer/pre_tokenizer.h"

#include <memory>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "tokenizer/utf8.h"

namespace tir::tokenizer {

Result<std::shared_ptr<const Regex>> Regex::compile(std::string_view pattern, bool literal) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  const uint32_t options = PCRE2_UTF | PCRE2_UCP | (literal ? PCRE2_LITERAL : 0);
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   options, &error, &offset, nullptr);
  if (code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof(message));
    return make_error(StatusCode::kUnsupported, "regex /", pattern, "/ at offset ", offset, ": ",
                      reinterpret_cast<const char*>(message));
  }
  // JIT is an optimization only: without it (unsupported CPU) matching is interpreted.
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
  std::shared_ptr<Regex> regex(new Regex());
  regex->code_ = code;
  return std::shared_ptr<const Regex>(std::move(regex));
}

Regex::~Regex() { pcre2_code_free(static_cast<pcre2_code*>(code_)); }

Status Regex::split(std::string_view text, bool keep_gaps, std::vector<std::string>* out) const {
  auto* code = static_cast<pcre2_code*>(code_);
  std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> data(
      pcre2_match_data_create_from_pattern(code, nullptr), &pcre2_match_data_free);
  if (!data) return Status(StatusCode::kInternal, "out of memory for a regex match");
  pcre2_match_data* match = data.get();
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t start = 0, gap = 0;
  while (start <= text.size()) {
    // The text was checked once, at encode: no UTF check per match.
    const int rc =
        pcre2_match(code, subject, text.size(), start, PCRE2_NO_UTF_CHECK, match, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;  // the rest is one gap
    if (rc < 0) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(rc, message, sizeof(message));
      return make_error(StatusCode::kInternal, "pre-tokenizer regex on ", text.size(),
                        " bytes: ", reinterpret_cast<const char*>(message));
    }
    const PCRE2_SIZE* range = pcre2_get_ovector_pointer(match);
    const size_t begin = range[0], end = range[1];
    if (end == begin) {  // an empty match cuts nothing; step over one character
      if (begin >= text.size()) break;
      const size_t n = utf8_sequence_length(text, begin);
      start = begin + (n == 0 ? 1 : n);
      continue;
    }
    if (keep_gaps && begin > gap) out->emplace_back(text.substr(gap, begin - gap));
    out->emplace_back(text.substr(begin, end - begin));
    gap = start = end;
  }
  if (keep_gaps && gap < text.size()) out->emplace_back(text.substr(gap));
  return ok_status();
}

Result<std::vector<std::string>> PreTokenizer::words(std::string_view text) const {
  std::vector<std::string> pieces{std::string(text)}, next;
  for (const Step& step : steps_) {
    next.clear();
    for (std::string& piece : pieces) {
      if (step.add_prefix_space && (piece.empty() || piece.front() != ' '))
        piece.insert(piece.begin(), ' ');
      if (step.regex) {
        TIR_RETURN_IF_ERROR(step.regex->split(piece, step.keep_gaps, &next));
      } else {
        next.push_back(std::move(piece));
      }
    }
    pieces.swap(next);
  }
  return pieces;
}

}  // namespace tir::tokenizer
