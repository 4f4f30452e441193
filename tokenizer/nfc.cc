#include "tokenizer/nfc.h"

#include <unicode/normalizer2.h>
#include <unicode/unistr.h>
#include <unicode/utypes.h>

#include <cstdint>

namespace tir::tokenizer {

Result<std::string> nfc(std::string_view text) {
  if (text.size() > INT32_MAX)
    return make_error(StatusCode::kInvalidArgument, "text of ", text.size(), " bytes: over 2 GiB");
  UErrorCode error = U_ZERO_ERROR;
  const icu::Normalizer2* normalizer = icu::Normalizer2::getNFCInstance(error);
  if (U_FAILURE(error)) return make_error(StatusCode::kInternal, "ICU NFC: ", u_errorName(error));
  const icu::UnicodeString in = icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  if (normalizer->isNormalized(in, error) && U_SUCCESS(error)) return std::string(text);
  error = U_ZERO_ERROR;
  const icu::UnicodeString normalized = normalizer->normalize(in, error);
  if (U_FAILURE(error)) return make_error(StatusCode::kInternal, "ICU NFC: ", u_errorName(error));
  std::string out;
  normalized.toUTF8String(out);
  return out;
}

}  // namespace tir::tokenizer
