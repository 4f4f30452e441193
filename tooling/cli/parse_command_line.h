// How every tool reads its command line: CLI11 parses it; --help prints and ends with 0; a
// usage error is one `error:` line pointing at --help and ends with 2 (a run that fails on
// its files or inputs ends with 1); --version prints "<tool> <version>" and ends with 0.
#pragma once

#include <CLI/CLI.hpp>
#include <csignal>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <string_view>

#include "core/printable.h"
#include "core/status.h"
#include "core/version.h"

namespace tir::tools {

/// Parses argv into `app`. nullopt: go on. Otherwise the exit code, after printing the help
/// (0) or one error line naming `tool` (2); with `print` false nothing is printed (MPI ranks
/// other than 0).
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv,
                                             std::string_view tool, bool print = true) {
  // A file size limit (ulimit -f) then makes a write fail with EFBIG, reported as an error
  // line with the half-written temporary removed, instead of killing the tool mid-write.
  std::signal(SIGXFSZ, SIG_IGN);
  app.set_version_flag("--version", std::string(tool) + " " + tir::version_string(),
                       "print the version (and git revision) and exit");
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return print ? app.exit(e) : 0;
    if (print) std::cerr << "error: " << e.what() << " (see " << tool << " --help)\n";
    return 2;
  }
}

/// A command's exit status for `s`: 0, or 1 after one `error:` line on stderr (stdout
/// flushed first, so the line comes after what the command printed).
inline int exit_status(const Status& s) {
  if (s.ok()) return 0;
  std::cout << std::flush;
  std::cerr << "error: " << printable(s.message()) << "\n";
  return 1;
}

/// A tool's main body run so that an exception escaping it (an allocation that failed, a
/// thread the system would not start) ends the tool with one `error:` line and exit 1, with
/// destructors run (half-written outputs removed), instead of an abort.
template <typename Body>
int guarded_main(std::string_view tool, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    std::cout << std::flush;
    std::cerr << "error: " << tool << ": out of memory\n";
  } catch (const std::exception& e) {
    std::cout << std::flush;
    std::cerr << "error: " << tool << ": " << printable(e.what()) << "\n";
  }
  return 1;
}

}  // namespace tir::tools
