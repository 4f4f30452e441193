#include "tokenizer/normalizer.h"

#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utypes.h>

#include <algorithm>
#include <cstdint>

#include "tokenizer/utf8.h"

namespace tir::tokenizer {
namespace {

using Kind = NormalizerStep::Kind;

Result<std::string> normal_form(Kind kind, std::string_view text) {
  if (text.size() > INT32_MAX)
    return make_error(StatusCode::kInvalidArgument, "text of ", text.size(), " bytes: over 2 GiB");
  UErrorCode error = U_ZERO_ERROR;
  const icu::Normalizer2* normalizer =
      kind == Kind::kNfc    ? icu::Normalizer2::getNFCInstance(error)
      : kind == Kind::kNfd  ? icu::Normalizer2::getNFDInstance(error)
      : kind == Kind::kNfkc ? icu::Normalizer2::getNFKCInstance(error)
                            : icu::Normalizer2::getNFKDInstance(error);
  if (U_FAILURE(error)) return make_error(StatusCode::kInternal, "ICU: ", u_errorName(error));
  const icu::UnicodeString in = icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  if (normalizer->isNormalized(in, error) && U_SUCCESS(error)) return std::string(text);
  error = U_ZERO_ERROR;
  const icu::UnicodeString normalized = normalizer->normalize(in, error);
  if (U_FAILURE(error)) return make_error(StatusCode::kInternal, "ICU: ", u_errorName(error));
  std::string out;
  normalized.toUTF8String(out);
  return out;
}

/// Each character lowercased alone, so that no context rule (final sigma) applies.
std::string lowercase(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_sequence_length(text, i);
    icu::UnicodeString c = icu::UnicodeString::fromUTF8(
        icu::StringPiece(text.data() + i, static_cast<int32_t>(n == 0 ? 1 : n)));
    c.toLower(icu::Locale::getRoot()).toUTF8String(out);
    i += n == 0 ? 1 : n;
  }
  return out;
}

/// Each character of `text` for which `keep` is true.
template <typename Keep>
std::string filter(std::string_view text, Keep&& keep) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t n = std::max<size_t>(utf8_sequence_length(text, i), 1);
    if (keep(utf8_decode(text, i, n))) out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

std::string strip(std::string_view text, bool left, bool right) {
  size_t begin = 0, end = text.size();
  while (left && begin < end) {
    const size_t n = utf8_sequence_length(text, begin);
    if (n == 0 || !unicode_whitespace(utf8_decode(text, begin, n))) break;
    begin += n;
  }
  while (right && end > begin) {
    size_t start = end - 1;
    while (start > begin && (static_cast<uint8_t>(text[start]) & 0xC0) == 0x80) --start;
    if (!unicode_whitespace(utf8_decode(text, start, end - start))) break;
    end = start;
  }
  return std::string(text.substr(begin, end - begin));
}

/// Every match of `regex` replaced by `content` (the reference's NormalizedString::replace).
Result<std::string> replace(std::string_view text, const Regex& regex, std::string_view content) {
  if (text.empty()) return std::string();
  std::vector<SplitPiece> pieces;
  TIR_RETURN_IF_ERROR(regex.find_matches(text, &pieces));
  std::string out;
  size_t last_end = 0;
  for (const SplitPiece& p : pieces) {
    if (!p.is_match) continue;
    out.append(text.substr(last_end, p.begin - last_end)).append(content);
    last_end = p.end;
  }
  out.append(text.substr(last_end));
  return out;
}

}  // namespace

Result<std::string> Normalizer::normalize(std::string_view text) const {
  std::string out(text);
  for (const NormalizerStep& step : steps_) {
    switch (step.kind) {
      case Kind::kLowercase:
        out = lowercase(out);
        break;
      case Kind::kPrepend:
        if (!out.empty()) out.insert(0, step.text);
        break;
      case Kind::kReplace: {
        TIR_ASSIGN_OR_RETURN(out, replace(out, *step.regex, step.text));
        break;
      }
      case Kind::kStrip:
        out = strip(out, step.left, step.right);
        break;
      case Kind::kStripAccents:
        out = filter(out, [](char32_t c) {
          return (U_GET_GC_MASK(static_cast<UChar32>(c)) & U_GC_M_MASK) == 0;
        });
        break;
      default: {
        TIR_ASSIGN_OR_RETURN(out, normal_form(step.kind, out));
      }
    }
  }
  return out;
}

}  // namespace tir::tokenizer
