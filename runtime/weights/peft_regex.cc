#include "runtime/weights/peft_regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace tir {
namespace {

/// Match steps allowed per subject: module names are short, so a pattern needing more is
/// backtracking without end.
constexpr uint32_t kMatchLimit = 1'000'000;

std::string pcre2_message(int code) {
  PCRE2_UCHAR text[256];
  pcre2_get_error_message(code, text, sizeof(text));
  return reinterpret_cast<const char*>(text);
}

}  // namespace

Result<PeftRegex> PeftRegex::compile(const std::string& pattern, Anchor anchor,
                                     const std::string& where) {
  const uint32_t options =
      PCRE2_ANCHORED | (anchor == Anchor::kFull ? PCRE2_ENDANCHORED : uint32_t{0});
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   options, &error, &offset, nullptr);
  if (!code)
    return make_error(StatusCode::kInvalidArgument, where, ": pattern '", pattern,
                      "' is not a valid regular expression (", pcre2_message(error), " at offset ",
                      offset, ")");
  PeftRegex r;
  r.code_ =
      std::shared_ptr<void>(code, [](void* c) { pcre2_code_free(static_cast<pcre2_code*>(c)); });
  r.pattern_ = pattern;
  r.where_ = where;
  return r;
}

Result<bool> PeftRegex::match(std::string_view subject, std::string* out_idx) const {
  auto* code = static_cast<pcre2_code*>(code_.get());
  std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> data(
      pcre2_match_data_create_from_pattern(code, nullptr), &pcre2_match_data_free);
  std::unique_ptr<pcre2_match_context, decltype(&pcre2_match_context_free)> context(
      pcre2_match_context_create(nullptr), &pcre2_match_context_free);
  if (!data || !context) return make_error(StatusCode::kInternal, where_, ": out of memory");
  pcre2_set_match_limit(context.get(), kMatchLimit);
  const int rc = pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), 0,
                             0, data.get(), context.get());
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  if (rc < 0)
    return make_error(StatusCode::kInvalidArgument, where_, ": pattern '", pattern_,
                      "' cannot be matched against '", subject, "' (", pcre2_message(rc), ")");
  if (out_idx) {
    PCRE2_UCHAR* text = nullptr;
    PCRE2_SIZE size = 0;
    if (pcre2_substring_get_byname(data.get(), reinterpret_cast<PCRE2_SPTR>("idx"), &text, &size) ==
        0) {
      out_idx->assign(reinterpret_cast<const char*>(text), size);
      pcre2_substring_free(text);
    }
  }
  return true;
}

}  // namespace tir
