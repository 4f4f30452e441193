// The reference library runs pre-tokenizer regexes on Oniguruma; tir runs them on PCRE2. The
// two agree on the syntax real tokenizers use except for a few escapes, which are rewritten
// here into what Oniguruma means by them (Unicode mode):
//   \s \S   [\t-\r\x{85}\p{Z}] and its complement (PCRE2 also counts U+180E)
//   \w \W   [\p{L}\p{M}\p{Nd}\p{Pc}] and its complement (PCRE2: \p{L}\p{N}_)
//   \h \H   a hex digit [0-9a-fA-F] and its complement (PCRE2: horizontal space)
//   \v      the vertical tab U+000B (PCRE2: vertical space)
// Refused, as having no PCRE2 spelling or another meaning: \S \W \H inside a class, \V, \b,
// \B (PCRE2's word boundary is its own \w), classes inside classes and && intersections.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace tir::tokenizer {

/// `pattern` (Oniguruma syntax) spelled for PCRE2 with UTF and UCP; kUnsupported naming the
/// construct it cannot carry over.
Result<std::string> onig_to_pcre2(std::string_view pattern);

}  // namespace tir::tokenizer
