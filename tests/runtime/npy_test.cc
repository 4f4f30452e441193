#include "runtime/npy.h"

#include <gtest/gtest.h>

#include "runtime/data_loader.h"
#include "tests/common/test_util.h"

namespace tir {
namespace {

TEST(Npy, RoundTripsThroughWriteAndRead) {
  testing::TempDir dir;
  HostTensor t(DType::kFloat32, std::vector<int64_t>{2, 3});
  for (int i = 0; i < 6; ++i) t.data<float>()[i] = float(i) * 0.5f;
  ASSERT_TRUE(npy_write(dir.file("a.npy"), t.view()).ok());
  auto back = npy_read(dir.file("a.npy"));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(testing::all_close(back->view(), t.view(), 0, 0));
}

TEST(Npy, ReadsFilesWrittenByNumpy) {
  // A fixture input written by numpy (tests/data/gen.py).
  auto t = npy_read(testing::fixture_dir() + "/mlp/training/input_0.npy");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->view().dtype, DType::kFloat32);
  EXPECT_EQ(shape_str(t->view().shape()), "[4, 16]");
}

TEST(Npy, ScalarAndOneDimShapes) {
  testing::TempDir dir;
  HostTensor s(DType::kInt64, std::vector<int64_t>{});
  *s.data<int64_t>() = 42;
  ASSERT_TRUE(npy_write(dir.file("s.npy"), s.view()).ok());
  auto back = npy_read(dir.file("s.npy"));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->view().rank, 0);
  EXPECT_EQ(*back->data<int64_t>(), 42);
  HostTensor v(DType::kFloat32, std::vector<int64_t>{5});
  ASSERT_TRUE(npy_write(dir.file("v.npy"), v.view()).ok());
  EXPECT_EQ(npy_read(dir.file("v.npy"))->view().rank, 1);
}

TEST(Npy, RejectsMalformedFiles) {
  const std::string path = testing::fixture_dir() + "/mlp/training/input_0.npy";
  auto bytes = read_file(path);
  ASSERT_TRUE(bytes.ok());
  std::vector<uint8_t> truncated(bytes->begin(), bytes->end() - 4);
  auto r = npy_parse(truncated, "x.npy");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("x.npy"), std::string::npos);
  std::vector<uint8_t> bad_magic = *bytes;
  bad_magic[1] = 'X';
  EXPECT_FALSE(npy_parse(bad_magic, "x.npy").ok());
  EXPECT_FALSE(npy_parse(std::vector<uint8_t>(5, 0), "x.npy").ok());
  EXPECT_EQ(npy_read("/nonexistent/x.npy").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace tir
