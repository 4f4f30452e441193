// --max-bytes and --max-nodes, shared by tirc import and tirrun: the limits on sizes a file
// may declare (core/read_limits.h), checked before anything is allocated for them.
#pragma once

#include <CLI/CLI.hpp>

#include "core/read_limits.h"
#include "tooling/cli/number_flags.h"

namespace tir::tools {

/// A byte size as --max-bytes takes it: digits with an optional unit (64G, 1T, 4096), no sign
/// (CLI11's size reader takes "-5" as 2^64 - 5).
inline CLI::Validator size_text() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.empty() || text[0] < '0' || text[0] > '9')
          return "expected a byte size such as 4096, 64G or 1T, got '" + text + "'";
        return std::string();
      },
      "SIZE");
}

/// Adds the two options to `app`, writing into `limits` (start from the defaults); call
/// set_read_limits(*limits) after parsing.
inline void add_read_limit_flags(CLI::App* app, ReadLimits* limits) {
  app->add_option("--max-bytes", limits->max_bytes,
                  "largest tensor a file may declare, in bytes (64G, 1T; default 1T)")
      ->check(size_text())
      ->transform(CLI::AsSizeValue(false));
  app->add_option("--max-nodes", limits->max_nodes, "most nodes one graph may have")
      ->check(whole_number(1, kMaxReadLimit))
      ->capture_default_str();
}

}  // namespace tir::tools
