#include "runtime/weights/npy.h"

#include <gtest/gtest.h>

#include "runtime/weights/data_loader.h"
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

TEST(Npy, ReadsFortranOrderAsRowMajor) {
  // np.save of a transposed view writes fortran_order: True (tests/data/gen_npy.py).
  auto f = npy_read(testing::fixture_dir() + "/npy/fortran_order.npy");
  auto c = npy_read(testing::fixture_dir() + "/npy/c_order.npy");
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(shape_str(f->view().shape()), "[2, 3, 4]");
  EXPECT_TRUE(testing::all_close(f->view(), c->view(), 0, 0));
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

namespace tir {
namespace {

/// A version-1 .npy with header text `dict` (padded as numpy pads) and `data_bytes` zeros.
std::vector<uint8_t> npy_with_header(std::string dict, size_t data_bytes) {
  std::string header = dict;
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> out = {0x93,
                              'N',
                              'U',
                              'M',
                              'P',
                              'Y',
                              1,
                              0,
                              uint8_t(header.size() & 0xff),
                              uint8_t(header.size() >> 8)};
  out.insert(out.end(), header.begin(), header.end());
  out.resize(out.size() + data_bytes, 0);
  return out;
}

std::string npy_error(const std::vector<uint8_t>& bytes) {
  auto r = npy_parse(bytes, "x.npy");
  return r.ok() ? "" : r.status().message();
}

TEST(NpyHostile, HugeShapeWithoutDataIsRefusedBeforeAllocating) {
  // 2^30 float32 elements (4 GiB) declared in a 128-byte file: main allocated and zeroed them.
  EXPECT_EQ(npy_error(npy_with_header("{'descr': '<f4', 'fortran_order': False, "
                                      "'shape': (1073741824,), }",
                                      0)),
            "'x.npy': not a valid .npy file: has 0 data bytes, shape [1073741824] needs "
            "4294967296");
  // 2^40 elements: more than the 1 TiB limit.
  EXPECT_EQ(npy_error(npy_with_header(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }", 0)),
            "'x.npy': shape declares 4398046511104 bytes, more than the limit of 1099511627776 "
            "(--max-bytes)");
  // A byte count that wraps 64 bits must not pass as a small one, even beside a zero
  // (found by npy_fuzzer: Tensor::numel overflowed int64).
  EXPECT_EQ(npy_error(npy_with_header("{'descr': '<f8', 'fortran_order': False, "
                                      "'shape': (4294967296, 4294967296, 0, 1), }",
                                      0)),
            "'x.npy': shape overflows 64-bit byte counts");
  EXPECT_EQ(npy_error(npy_with_header("{'descr': '<f8', 'fortran_order': False, "
                                      "'shape': (4, 0, 1), }",
                                      0)),
            "");
  EXPECT_EQ(npy_error(npy_with_header("{'descr': '<f8', 'fortran_order': False, "
                                      "'shape': (4294967296, 4294967296), }",
                                      0)),
            "'x.npy': shape overflows 64-bit byte counts");
}

TEST(NpyHostile, HeaderIsParsedAsStrictlyAsNumpyDoes) {
  const std::string ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  EXPECT_EQ(npy_error(npy_with_header(ok, 8)), "");
  EXPECT_EQ(
      npy_error(npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", 8)), "");
  // numpy keeps the last of duplicate keys; main read the first. Both differ: refuse.
  EXPECT_EQ(npy_error(npy_with_header(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'shape': (1,), }", 8)),
            "'x.npy': not a valid .npy file: header has an unexpected or repeated key 'shape'");
  EXPECT_EQ(npy_error(npy_with_header(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1, }", 8)),
            "'x.npy': not a valid .npy file: header has an unexpected or repeated key 'extra'");
  EXPECT_EQ(npy_error(npy_with_header(ok + "junk", 8)),
            "'x.npy': not a valid .npy file: junk after the header dict");
  EXPECT_EQ(
      npy_error(npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", 8)),
      "'x.npy': not a valid .npy file: bad shape (at most 8 sizes)");
  EXPECT_EQ(npy_error(npy_with_header("{'descr': '<f4', 'fortran_order': False, "
                                      "'shape': (1,1,1,1,1,1,1,1,1,), }",
                                      4)),
            "'x.npy': not a valid .npy file: bad shape (at most 8 sizes)");
}

}  // namespace
}  // namespace tir
