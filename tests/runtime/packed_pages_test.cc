// Mapped weight pages of convolutions that hold a packed copy (PrepareInfo::packed_inputs,
// WeightSet::drop_pages): after the first run of the real ResNet fixture (its convolutions
// fold their batch norms and pack), the weight file's resident pages in this process shrink,
// and every later run, the packed copies' source pages gone, gives the same bits and torch's
// outputs. Resident pages are read from /proc/self/smaps (Linux).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "runtime/weights/weight_set.h"
#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using testing::TempDir;

/// Resident bytes of this process's mappings of `path` (0 when it is not mapped).
size_t mapped_rss(const std::string& path) {
  std::ifstream f("/proc/self/smaps");
  std::string line;
  bool in_file = false;
  size_t kb = 0;
  while (std::getline(f, line)) {
    std::istringstream ls(line);
    std::string head;
    ls >> head;
    if (head.find('-') != std::string::npos && head.back() != ':') {
      in_file = line.size() >= path.size() &&
                line.compare(line.size() - path.size(), path.size(), path) == 0;
    } else if (in_file && head == "Rss:") {
      size_t v = 0;
      ls >> v;
      kb += v;
    }
  }
  return kb * 1024;
}

TEST(PackedPages, ConvWeightsLeaveTheMappingAndRunsKeepTheirBits) {
  TempDir tmp;
  const std::string dir = testing::fixture_dir() + "/resnet_small/core";
  ASSERT_TRUE(testing::import_fixture(dir, tmp));
  const std::string bin = tmp.file("m.bin");
  SessionOptions o;
  o.weights.verify_checksums = true;  // reads every page of the file at open
  auto session = Session::open(tmp.file("m.tir"), bin, o);
  ASSERT_TRUE(session.ok()) << session.status().message();
  const size_t before = mapped_rss(bin);
  ASSERT_GT(before, 0u);

  auto input = npy_read(dir + "/input_0.npy");
  ASSERT_TRUE(input.ok()) << input.status().message();
  const std::vector<Tensor> in = {input->view()};
  auto first = (*session)->run(in);
  ASSERT_TRUE(first.ok()) << first.status().message();
  const std::vector<HostTensor> kept = testing::copies(*first);
  const size_t after = mapped_rss(bin);
  // Packed conv weights are most of the file; at least a page of them went.
  EXPECT_LT(after, before) << "resident pages of " << bin << ": " << before << " -> " << after;

  auto again = (*session)->run(in);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_TRUE(testing::bitwise_equal(*again, kept));

  // A fresh session (its convs pack from the dropped pages, read from the file again)
  // computes the same bits, and they are torch's within the fixture tolerance.
  auto fresh = Session::open(tmp.file("m.tir"), bin, o);
  ASSERT_TRUE(fresh.ok()) << fresh.status().message();
  auto third = (*fresh)->run(in);
  ASSERT_TRUE(third.ok()) << third.status().message();
  EXPECT_TRUE(testing::bitwise_equal(*third, kept));
  auto want = npy_read(dir + "/output_0.npy");
  ASSERT_TRUE(want.ok()) << want.status().message();
  const float* got = static_cast<const float*>((*third)[0].data);
  const float* ref = static_cast<const float*>(want->view().data);
  ASSERT_EQ((*third)[0].numel(), want->view().numel());
  for (int64_t i = 0; i < want->view().numel(); ++i) EXPECT_NEAR(got[i], ref[i], 1e-4) << i;
}

TEST(PackedPages, DropPagesKeepsTheBytes) {
  TempDir tmp;
  const std::string dir = testing::fixture_dir() + "/resnet_small/core";
  ASSERT_TRUE(testing::import_fixture(dir, tmp));
  auto set = WeightSet::open(tmp.file("m.bin"));
  ASSERT_TRUE(set.ok()) << set.status().message();
  for (size_t i = 0; i < (*set)->size(); ++i) {
    const Tensor& t = (*set)->tensor(i);
    const std::vector<uint8_t> copy(static_cast<const uint8_t*>(t.data),
                                    static_cast<const uint8_t*>(t.data) + t.nbytes());
    (*set)->drop_pages(i);
    EXPECT_EQ(std::memcmp(copy.data(), t.data, t.nbytes()), 0) << (*set)->names()[i];
  }
  EXPECT_GT(mapped_rss(tmp.file("m.bin")), 0u);  // the reads above mapped them again
}

}  // namespace
}  // namespace tir
