#include "tokenizer/pre_tokenizer.h"

#include <algorithm>
#include <memory>
#include <optional>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "tokenizer/regex_dialect.h"
#include "tokenizer/utf8.h"

namespace tir::tokenizer {

Result<std::shared_ptr<const Regex>> Regex::compile(std::string_view onig_pattern, bool literal) {
  std::string pattern(onig_pattern);
  if (!literal) {
    TIR_ASSIGN_OR_RETURN(pattern, onig_to_pcre2(onig_pattern));
  }
  int error = 0;
  PCRE2_SIZE offset = 0;
  // PCRE2_LITERAL refuses PCRE2_UCP (it has no classes to apply it to).
  const uint32_t options = PCRE2_UTF | (literal ? PCRE2_LITERAL : PCRE2_UCP);
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

Status Regex::find_matches(std::string_view text, std::vector<SplitPiece>* out) const {
  auto* code = static_cast<pcre2_code*>(code_);
  std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> data(
      pcre2_match_data_create_from_pattern(code, nullptr), &pcre2_match_data_free);
  if (!data) return Status(StatusCode::kInternal, "out of memory for a regex match");
  pcre2_match_data* match = data.get();
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t search = 0, covered = 0;
  std::optional<size_t> last_match_end;
  while (search <= text.size()) {
    // The text was checked once, at encode: no UTF check per match.
    const int rc =
        pcre2_match(code, subject, text.size(), search, PCRE2_NO_UTF_CHECK, match, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(rc, message, sizeof(message));
      return make_error(StatusCode::kInternal, "pre-tokenizer regex on ", text.size(),
                        " bytes: ", reinterpret_cast<const char*>(message));
    }
    const PCRE2_SIZE* range = pcre2_get_ovector_pointer(match);
    const size_t begin = range[0], end = range[1];
    if (begin == end && last_match_end == end) {  // no empty match right after a match
      if (search >= text.size()) break;
      const size_t n = utf8_sequence_length(text, search);
      search += n == 0 ? 1 : n;
      continue;
    }
    if (begin > covered) out->push_back({covered, begin, false});
    out->push_back({begin, end, true});
    covered = search = end;
    last_match_end = end;
  }
  if (covered < text.size()) out->push_back({covered, text.size(), false});
  return ok_status();
}

bool Regex::may_match_empty() const {
  uint32_t min_length = 0;
  pcre2_pattern_info(static_cast<pcre2_code*>(code_), PCRE2_INFO_MINLENGTH, &min_length);
  return min_length == 0;
}

std::vector<SplitPiece> apply_split_behavior(std::vector<SplitPiece> pieces, SplitBehavior behavior,
                                             bool invert) {
  if (invert)
    for (SplitPiece& p : pieces) p.is_match = !p.is_match;
  std::vector<SplitPiece> out;
  out.reserve(pieces.size());
  bool previous_match = false;
  // The folds of the reference's NormalizedString::split, piece by piece.
  switch (behavior) {
    case SplitBehavior::kRemoved:
      for (const SplitPiece& p : pieces)
        if (!p.is_match) out.push_back(p);
      break;
    case SplitBehavior::kIsolated:
      out = std::move(pieces);
      break;
    case SplitBehavior::kMergedWithPrevious:
      for (const SplitPiece& p : pieces) {
        if (p.is_match && !previous_match && !out.empty()) {
          out.back().end = p.end;
        } else {
          out.push_back(p);
        }
        previous_match = p.is_match;
      }
      break;
    case SplitBehavior::kMergedWithNext:
      for (auto p = pieces.rbegin(); p != pieces.rend(); ++p) {
        if (p->is_match && !previous_match && !out.empty()) {
          out.back().begin = p->begin;
        } else {
          out.push_back(*p);
        }
        previous_match = p->is_match;
      }
      std::reverse(out.begin(), out.end());
      break;
    case SplitBehavior::kContiguous:
      for (const SplitPiece& p : pieces) {
        if (p.is_match == previous_match && !out.empty()) {
          out.back().end = p.end;
        } else {
          out.push_back(p);
        }
        previous_match = p.is_match;
      }
      break;
  }
  std::erase_if(out, [](const SplitPiece& p) { return p.begin == p.end; });
  return out;
}

Result<std::vector<std::string>> PreTokenizer::words(std::string_view text) const {
  std::vector<std::string> pieces{std::string(text)}, next;
  std::vector<SplitPiece> matches;
  for (const Step& step : steps_) {
    next.clear();
    for (std::string& piece : pieces) {
      if (step.add_prefix_space && (piece.empty() || piece.front() != ' '))
        piece.insert(piece.begin(), ' ');
      if (!step.regex) {
        next.push_back(std::move(piece));
        continue;
      }
      matches.clear();
      TIR_RETURN_IF_ERROR(step.regex->find_matches(piece, &matches));
      for (const SplitPiece& p :
           apply_split_behavior(std::move(matches), step.behavior, step.invert))
        next.push_back(piece.substr(p.begin, p.end - p.begin));
    }
    pieces.swap(next);
  }
  return pieces;
}

}  // namespace tir::tokenizer
