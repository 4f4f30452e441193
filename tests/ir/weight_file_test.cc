#include "ir/weight_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace tir::ir {
namespace {

/// Builds a valid two-tensor weight file by the layout in ir/weight_file.h; `fc_stored`
/// and `step_stored` set the entries' stored_dtype.
std::vector<uint8_t> make_file(fb::DType fc_stored = fb::DType::Undefined,
                               fb::DType step_stored = fb::DType::Undefined) {
  std::vector<uint8_t> file(64, 0);
  std::vector<float> a = {1, 2, 3, 4, 5, 6};
  std::vector<int64_t> b = {7};
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::WeightEntry>> entries;
  SignatureBuilder sig;
  auto add = [&](const char* name, DType dtype, std::vector<int64_t> shape, const void* p, size_t n,
                 fb::DType stored) {
    const uint64_t offset = file.size();
    file.insert(file.end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n);
    file.resize((file.size() + 63) / 64 * 64, 0);
    sig.add(name, dtype, shape);
    entries.push_back(fb::CreateWeightEntryDirect(fbb, name, nullptr, fb::DType(dtype), &shape,
                                                  offset, n, n, fb::Compression::None,
                                                  content_hash(p, n), stored));
  };
  add("fc.weight", DType::kFloat32, {2, 3}, a.data(), fc_stored == fb::DType::BFloat16 ? 12 : 24,
      fc_stored);
  add("step", DType::kInt64, {1}, b.data(), 8, step_stored);
  const uint64_t signature = sig.finish();
  fbb.Finish(fb::CreateWeightIndexDirect(fbb, &entries, signature), "TIRW");
  WeightFileHeader h{};
  std::memcpy(h.magic, kWeightFileMagic, 8);
  h.version = kWeightFileVersion;
  h.alignment = 64;
  h.index_offset = file.size();
  h.index_size = fbb.GetSize();
  h.signature = signature;
  file.insert(file.end(), fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  h.file_size = file.size();
  std::memcpy(file.data(), &h, sizeof(h));
  return file;
}

TEST(WeightFile, OpensValidFileAndFindsTensors) {
  const auto file = make_file();
  auto view = WeightFileView::open(file, "w.bin");
  ASSERT_TRUE(view.ok()) << view.status().message();
  const fb::WeightEntry* e = view->find("fc.weight");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->byte_size(), 24u);
  EXPECT_EQ(view->stored_bytes(*e).size(), 24u);
  EXPECT_TRUE(verify_entry_checksum(*view, *e, "w.bin").ok());
  EXPECT_EQ(view->find("nope"), nullptr);
}

TEST(WeightFile, RejectsBadMagic) {
  auto file = make_file();
  file[0] = 'X';
  auto view = WeightFileView::open(file, "w.bin");
  ASSERT_FALSE(view.ok());
  EXPECT_NE(view.status().message().find("w.bin"), std::string::npos);
  EXPECT_NE(view.status().message().find("magic"), std::string::npos);
}

TEST(WeightFile, RejectsTruncatedFile) {
  auto file = make_file();
  file.resize(file.size() - 10);
  auto view = WeightFileView::open(file, "w.bin");
  ASSERT_FALSE(view.ok());
  EXPECT_NE(view.status().message().find("truncated"), std::string::npos);
}

TEST(WeightFile, RejectsSignatureThatDoesNotMatchIndex) {
  auto file = make_file();
  WeightFileHeader h;
  std::memcpy(&h, file.data(), sizeof(h));
  h.signature ^= 1;
  std::memcpy(file.data(), &h, sizeof(h));
  EXPECT_FALSE(WeightFileView::open(file, "w.bin").ok());
}

TEST(WeightFile, ChecksumCatchesFlippedByte) {
  auto file = make_file();
  file[64] ^= 0xff;  // first byte of fc.weight
  auto view = WeightFileView::open(file, "w.bin");
  ASSERT_TRUE(view.ok());
  const Status s = verify_entry_checksum(*view, *view->find("fc.weight"), "w.bin");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("fc.weight"), std::string::npos);
}

TEST(WeightFile, RejectsCorruptIndex) {
  auto file = make_file();
  WeightFileHeader h;
  std::memcpy(&h, file.data(), sizeof(h));
  for (size_t i = h.index_offset; i < file.size(); ++i) file[i] = 0xAB;
  EXPECT_FALSE(WeightFileView::open(file, "w.bin").ok());
}

TEST(WeightFile, NarrowStorageIsOnlyForFloat32AndSizedByTheStoredDtype) {
  // fc.weight (float32[2, 3]) stored as bfloat16: 12 bytes.
  const auto narrow = make_file(fb::DType::BFloat16);  // outlives the view
  auto ok = WeightFileView::open(narrow, "w.bin");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(entry_stored_dtype(*ok->find("fc.weight")), DType::kBFloat16);
  EXPECT_EQ(entry_stored_dtype(*ok->find("step")), DType::kInt64);
  const auto wrong = make_file(fb::DType::Undefined, fb::DType::BFloat16);
  auto bad = WeightFileView::open(wrong, "w.bin");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "weight file 'w.bin': tensor 'step' is int64 stored as bfloat16 (only float32 may be "
            "narrowed)");
}

}  // namespace
}  // namespace tir::ir
