// Reading a whole file whose size the reader needs up front (prompt files, tokenizers,
// adapter configs, CSVs): only a regular file is read, opened without blocking (a FIFO where
// a file is expected fails at once instead of waiting for a writer), and only within the
// process's read limit (core/read_limits.h), checked before anything is allocated.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace tir {

/// The bytes of the regular file at `path`. Errors name `what` and the path: missing, not a
/// regular file (a FIFO, device, directory or socket), larger than read_limits().max_bytes, or a
/// failed read.
Result<std::string> read_regular_file(const std::string& path, std::string_view what);

/// What kind of file `mode` (a stat st_mode) is, for messages: "a FIFO", "a directory", ...
const char* file_kind(unsigned mode);

}  // namespace tir
