// Whole-number flags checked at the edge. CLI11 reads "-1" into an unsigned flag as 2^64 - 1
// and an overflowing number as the type's largest value; a count or a seed given that way is
// a typing mistake, not a request for "as many as possible". `whole_number(lo, hi)` accepts
// only decimal digits whose value lies in [lo, hi], and names the flag otherwise:
//
//   app.add_option("--seed", seed, "...")->check(whole_number(0, UINT64_MAX));
#pragma once

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <string>

namespace tir::tools {

inline CLI::Validator whole_number(uint64_t lo, uint64_t hi) {
  const std::string range = std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        uint64_t v = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, v);
        const bool digits = !text.empty() && text[0] >= '0' && text[0] <= '9';
        if (!digits || ec != std::errc() || ptr != end || v < lo || v > hi)
          return "expected a whole number from " + range + ", got '" + text + "'";
        return std::string();
      },
      "UINT in [" + range + "]");
}

}  // namespace tir::tools
