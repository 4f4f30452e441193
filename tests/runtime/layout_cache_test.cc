// The layout cache (runtime/weights/layout_cache.h): GEMM weights packed by one session are
// written beside the weight file, and a later weight set maps them instead of packing, with
// bitwise the same outputs. A cache that is corrupt, truncated, for another weight file's
// bytes, or keyed for another oneDNN/CPU is ignored (packed at run time, then rewritten),
// never used wrongly. BERT's GEMMs have 2 x 8 = 16 rows, enough to pack (into any layout
// oneDNN prefers, testing::pack_every_gemm_weight: on AVX2 it prefers no blocked one); a small
// ResNet's convolutions pack their weights (batch norms folded in) into oneDNN's blocked
// layouts on every CPU, from the first run.
#include "runtime/weights/layout_cache.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "kernels/packed_cache.h"
#include "runtime/weights/weight_set.h"
#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using testing::bitwise_equal;
using testing::copies;
using testing::TempDir;

class LayoutCache : public ::testing::TestWithParam<std::string> {
 protected:
  const testing::ScopedEnv pack_ = testing::pack_every_gemm_weight();  // on AVX2 too

  void SetUp() override {
    set_num_threads(1);  // bitwise comparisons
    dir_ = testing::fixture_dir() + "/" + GetParam();
    ASSERT_TRUE(testing::import_fixture(dir_, tmp_));
    const nlohmann::json manifest = testing::manifest();  // outlives the loop
    for (const auto& e : manifest["fixtures"])
      if (testing::fixture_dir() + "/" + e["dir"].get<std::string>() == dir_)
        inputs_ = testing::read_all(dir_, e["inputs"]);
    ASSERT_FALSE(inputs_.empty());
    bin_ = tmp_.file("m.bin");
    cache_ = layout_cache_path(bin_);
  }

  /// A fresh weight set and session; `runs` runs; the last run's outputs.
  std::vector<HostTensor> run(int runs, bool layout_cache = true) {
    WeightSetOptions o;
    o.layout_cache = layout_cache;
    auto set = WeightSet::open(bin_, o);
    EXPECT_TRUE(set.ok()) << set.status().message();
    auto model = data_source_mmap(tmp_.file("m.tir"));
    EXPECT_TRUE(model.ok());
    auto session = Session::create(*model, *set);
    EXPECT_TRUE(session.ok()) << session.status().message();
    std::vector<HostTensor> out;
    for (int r = 0; r < runs; ++r) {
      auto got = (*session)->run(testing::views(inputs_));
      EXPECT_TRUE(got.ok()) << got.status().message();
      if (got.ok()) out = copies(*got);
    }
    return out;
  }

  /// Outputs of a session that packs at run time, the cache off.
  std::vector<HostTensor> reference() { return run(3, false); }
  bool cache_exists() const { return std::ifstream(cache_).good(); }
  /// GEMMs pack from the second run; convolutions from the first.
  bool packs_from_second_run() const { return GetParam().rfind("bert/", 0) == 0; }

  void write_cache_bytes(const std::vector<char>& bytes) {
    std::ofstream(cache_, std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size());
  }
  std::vector<char> read_cache_bytes() {
    std::ifstream f(cache_, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  }

  TempDir tmp_;
  std::string dir_, bin_, cache_;
  std::vector<HostTensor> inputs_;
};

TEST_P(LayoutCache, SecondProcessMapsInsteadOfPackingSameBits) {
  const std::vector<HostTensor> want = reference();
  EXPECT_FALSE(cache_exists()) << "the cache turned off writes nothing";
  const kernels::PackedCounts c0 = kernels::packed_counts();
  if (packs_from_second_run()) {
    (void)run(1);
    EXPECT_FALSE(cache_exists()) << "one run packs nothing, so writes nothing";
  }
  const std::vector<HostTensor> packing = run(3);
  ASSERT_TRUE(cache_exists());
  const kernels::PackedCounts c1 = kernels::packed_counts();
  EXPECT_GT(c1.packed, c0.packed);
  EXPECT_TRUE(bitwise_equal(testing::views(packing), want));

  // A new set maps the packed copies: nothing is packed, from the first run on.
  const std::vector<HostTensor> first = run(1);
  const kernels::PackedCounts c2 = kernels::packed_counts();
  EXPECT_EQ(c2.packed, c1.packed);
  EXPECT_EQ(c2.loaded - c1.loaded, c1.packed - c0.packed);
  EXPECT_TRUE(bitwise_equal(testing::views(first), want));
  EXPECT_TRUE(bitwise_equal(testing::views(run(3)), want));
  EXPECT_EQ(kernels::packed_counts().packed, c1.packed);
}

TEST_P(LayoutCache, CorruptPackedBytesArePackedAgainAndRewritten) {
  const std::vector<HostTensor> want = reference();
  (void)run(2);
  std::vector<char> bytes = read_cache_bytes();
  ASSERT_GT(bytes.size(), 8192u);
  bytes[bytes.size() - 1] ^= 0x40;  // the last entry's last byte (a float's exponent)
  write_cache_bytes(bytes);
  const kernels::PackedCounts c0 = kernels::packed_counts();
  EXPECT_TRUE(bitwise_equal(testing::views(run(2)), want));
  EXPECT_EQ(kernels::packed_counts().packed, c0.packed + 1) << "only the bad entry";
  EXPECT_NE(read_cache_bytes(), bytes) << "rewritten after packing";
  const kernels::PackedCounts c1 = kernels::packed_counts();
  EXPECT_TRUE(bitwise_equal(testing::views(run(1)), want));
  EXPECT_EQ(kernels::packed_counts().packed, c1.packed) << "the rewritten cache is whole";
}

TEST_P(LayoutCache, BadFilesAreIgnored) {
  const std::vector<HostTensor> want = reference();
  (void)run(2);
  const std::vector<char> good = read_cache_bytes();
  std::vector<std::vector<char>> bad = {
      {},                                                               // empty
      std::vector<char>(good.begin(), good.begin() + good.size() / 2),  // truncated
      good,
      good,
      good};
  bad[2][0] = 'X';  // magic
  bad[3][70] ^= 1;  // the index (its checksum)
  bad[4][16] ^= 1;  // the weight file's signature
  for (size_t k = 0; k < bad.size(); ++k) {
    write_cache_bytes(bad[k]);
    const kernels::PackedCounts c0 = kernels::packed_counts();
    EXPECT_TRUE(bitwise_equal(testing::views(run(2)), want)) << "bad file " << k;
    EXPECT_GT(kernels::packed_counts().packed, c0.packed) << "bad file " << k;
    EXPECT_EQ(kernels::packed_counts().loaded, c0.loaded) << "bad file " << k;
  }
}

TEST_P(LayoutCache, ForeignOrStaleEntriesAreNotUsed) {
  const std::vector<HostTensor> want = reference();
  auto set = WeightSet::open(bin_);
  ASSERT_TRUE(set.ok());
  auto model = data_source_mmap(tmp_.file("m.tir"));
  auto session = Session::create(*model, *set);
  ASSERT_TRUE(session.ok());
  for (int r = 0; r < 2; ++r) ASSERT_TRUE((*session)->run(testing::views(inputs_)).ok());
  const uint64_t gen = (*set)->generation(0);
  std::vector<kernels::PackedCache::Stored> entries = (*set)->packed_cache().storable(gen);
  ASSERT_FALSE(entries.empty());
  std::vector<uint64_t> hashes;
  {
    auto bytes = read_file(bin_);
    ASSERT_TRUE(bytes.ok());
    auto file = ir::WeightFileView::open(*bytes, bin_);
    ASSERT_TRUE(file.ok());
    for (const ir::fb::WeightEntry* e : *file->index().entries()) hashes.push_back(e->xxh3());
  }
  // Another CPU ISA (the key names it): every entry misses.
  std::vector<kernels::PackedCache::Stored> foreign = entries;
  for (auto& e : foreign) e.how.replace(e.how.find(" isa ") + 5, 1, "Z");
  ASSERT_TRUE(layout_cache_write(cache_, {(*set)->signature(), hashes, 0}, foreign).ok());
  kernels::PackedCounts c0 = kernels::packed_counts();
  EXPECT_TRUE(bitwise_equal(testing::views(run(2)), want));
  EXPECT_EQ(kernels::packed_counts().loaded, c0.loaded);
  EXPECT_EQ(kernels::packed_counts().packed - c0.packed, entries.size());
  // Entries made from other bytes (the weight file since rewritten): stale, not used.
  std::vector<uint64_t> stale = hashes;
  for (uint64_t& h : stale) h ^= 1;
  ASSERT_TRUE(layout_cache_write(cache_, {(*set)->signature(), stale, 0}, entries).ok());
  c0 = kernels::packed_counts();
  EXPECT_TRUE(bitwise_equal(testing::views(run(2)), want));
  EXPECT_EQ(kernels::packed_counts().loaded, c0.loaded);
  EXPECT_EQ(kernels::packed_counts().packed - c0.packed, entries.size());
  // The same entries for the right bytes are used.
  ASSERT_TRUE(layout_cache_write(cache_, {(*set)->signature(), hashes, 0}, entries).ok());
  c0 = kernels::packed_counts();
  EXPECT_TRUE(bitwise_equal(testing::views(run(1)), want));
  EXPECT_EQ(kernels::packed_counts().packed, c0.packed);
  EXPECT_EQ(kernels::packed_counts().loaded - c0.loaded, entries.size());
}

TEST_P(LayoutCache, SwappedAndOverlaidWeightsAreNotReadFromTheCache) {
  (void)run(2);  // writes the cache of m.bin
  ASSERT_TRUE(cache_exists());
  auto base = WeightSet::open(bin_);
  ASSERT_TRUE(base.ok());
  auto model = data_source_mmap(tmp_.file("m.tir"));
  // Another set of the same model (scaled weights, in memory): a swap repacks its own.
  const auto scaled = testing::scaled_weights(bin_, 0.5f);
  ASSERT_NE(scaled, nullptr);
  auto fresh = Session::create(*model, scaled);
  ASSERT_TRUE(fresh.ok());
  std::vector<HostTensor> want;
  for (int r = 0; r < 3; ++r) {
    auto out = (*fresh)->run(testing::views(inputs_));
    ASSERT_TRUE(out.ok());
    want = copies(*out);
  }
  auto session = Session::create(*model, *base);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->run(testing::views(inputs_)).ok());
  ASSERT_TRUE((*session)->swap_weights(scaled).ok());
  for (int r = 0; r < 3; ++r) {
    auto out = (*session)->run(testing::views(inputs_));
    ASSERT_TRUE(out.ok());
    if (r == 2) EXPECT_TRUE(bitwise_equal(*out, want));
  }
}

INSTANTIATE_TEST_SUITE_P(GemmAndConv, LayoutCache,
                         ::testing::Values("bert/training", "resnet_small/training",
                                           "resnet_small/core"),
                         [](const auto& info) { return testing::fixture_test_name(info.param); });

}  // namespace
}  // namespace tir
