#include "tokenizer/normalizer.h"

#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/unistr.h>
#include <unicode/utypes.h>

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

}  // namespace

Result<std::string> Normalizer::normalize(std::string_view text) const {
  std::string out(text);
  for (const NormalizerStep& step : steps_) {
    switch (step.kind) {
      case Kind::kLowercase:
        out = lowercase(out);
        break;
      case Kind::kPrepend:
        if (!out.empty()) out.insert(0, step.prepend);
        break;
      default: {
        TIR_ASSIGN_OR_RETURN(out, normal_form(step.kind, out));
      }
    }
  }
  return out;
}

}  // namespace tir::tokenizer
