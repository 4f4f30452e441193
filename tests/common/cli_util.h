// Running the command-line tools from tests, as a user runs them: stdout/stderr captured,
// the error contract checked (non-zero exit, one line `error: ...`). The tool paths come from
// the environment (TIRC, TIRRUN), set by tests/tools/meson.build.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/common/test_util.h"

namespace tir::testing {

struct Proc {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Runs `$env_var args...` through the shell.
inline Proc run_tool(const char* env_var, const std::string& args) {
  const char* bin = std::getenv(env_var);
  EXPECT_NE(bin, nullptr) << env_var << " is not set (run through meson test)";
  TempDir io;
  const std::string cmd = std::string(bin ? bin : "false") + " " + args + " >" + io.file("out") +
                          " 2>" + io.file("err");
  const int status = std::system(cmd.c_str());
  Proc p;
  p.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  p.out = slurp(io.file("out"));
  p.err = slurp(io.file("err"));
  return p;
}
inline Proc tirc(const std::string& args) { return run_tool("TIRC", args); }
inline Proc tirrun(const std::string& args) { return run_tool("TIRRUN", args); }

/// The error contract: non-zero exit, exactly one line on stderr, starting "error: ".
inline void expect_one_error_line(const Proc& p, const std::string& needle) {
  EXPECT_NE(p.code, 0);
  EXPECT_EQ(p.err.rfind("error: ", 0), 0u) << p.err;
  EXPECT_EQ(std::count(p.err.begin(), p.err.end(), '\n'), 1) << p.err;
  EXPECT_NE(p.err.find(needle), std::string::npos) << "'" << needle << "' not in: " << p.err;
}

/// Single-quoted for the shell.
inline std::string q(const std::string& s) { return "'" + s + "'"; }

}  // namespace tir::testing
