// PeftRegex: a pattern of a PEFT adapter config (target_modules, exclude_modules,
// layers_pattern, rank_pattern, ...) matched the way PEFT matches it with Python's `re`.
//
// PCRE2 reads Python's syntax for what these patterns use (groups, classes, (?P<name>...)).
// A match is bounded (PCRE2's match limit) so that a pathological pattern is an error, not a
// hang. Immutable after compile; thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace tir {

class PeftRegex {
 public:
  enum class Anchor {
    kFull,   // re.fullmatch: the whole subject
    kStart,  // re.match: a prefix of the subject
  };

  /// Compiles `pattern`; errors name `where` (e.g. "adapter config 'f': target_modules").
  static Result<PeftRegex> compile(const std::string& pattern, Anchor anchor,
                                   const std::string& where);

  /// Whether `subject` matches. On a match, `*out_idx` (when given) receives the text of the
  /// group named "idx", or stays empty where the pattern has none.
  Result<bool> match(std::string_view subject, std::string* out_idx = nullptr) const;

 private:
  std::shared_ptr<void> code_;  // pcre2_code
  std::string pattern_, where_;
};

}  // namespace tir
