// Unicode normalization form C (the NFC normalizer of Qwen2's tokenizer.json), through ICU.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace tir::tokenizer {

/// NFC of valid UTF-8 `text`.
Result<std::string> nfc(std::string_view text);

}  // namespace tir::tokenizer
