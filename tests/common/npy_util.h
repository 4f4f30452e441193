// Reading a .npy file in a test: a failed read fails the test and gives an empty tensor.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "runtime/weights/npy.h"

namespace tir::testing {

inline HostTensor read_npy(const std::string& path) {
  auto t = npy_read(path);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? std::move(t).value() : HostTensor();
}

}  // namespace tir::testing
