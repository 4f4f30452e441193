// Reading a tokenizer's files whole, within the process's read limits (core/read_limits.h).
#pragma once

#include <string>

#include "core/status.h"

namespace tir::tokenizer {

/// The bytes of `path`; kNotFound if it does not exist, kCorrupt above read_limits().max_bytes.
Result<std::string> read_tokenizer_file(const std::string& path);

}  // namespace tir::tokenizer
