// The C ABI suites import their fixtures with the built tirc ($TIRC), so they link libtir alone.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "tests/common/test_util.h"

namespace tir::testing {

/// `tirc import <dir>/program.pt2 -o tmp/m.tir --weights tmp/m.bin`; false (with a gtest
/// failure naming the command) when it fails.
inline bool tirc_import(const std::string& dir, const TempDir& tmp) {
  const char* tirc = std::getenv("TIRC");
  if (!tirc) {
    ADD_FAILURE() << "TIRC is not set";
    return false;
  }
  const std::string cmd = std::string(tirc) + " import " + dir + "/program.pt2 -o " +
                          tmp.file("m.tir") + " --weights " + tmp.file("m.bin") + " > /dev/null";
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << cmd;
  return rc == 0;
}

}  // namespace tir::testing
