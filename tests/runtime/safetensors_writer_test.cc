// The safetensors writer against the reader: torch's own file re-serialized reads back with
// the same names, dtypes, shapes, bytes and metadata, and bad entries are rejected by name.
#include "runtime/weights/safetensors_writer.h"

#include <gtest/gtest.h>

#include <cstring>

#include "runtime/weights/data_loader.h"
#include "tests/common/test_util.h"

namespace tir {
namespace {

TEST(SafetensorsWriter, TorchFileRoundTripsExactly) {
  auto src = data_source_mmap(testing::fixture_dir() + "/weights/partial.safetensors");
  ASSERT_TRUE(src.ok()) << src.status().message();
  auto torch_file = safetensors_parse((*src)->bytes(), "partial.safetensors");
  ASSERT_TRUE(torch_file.ok()) << torch_file.status().message();
  ASSERT_FALSE(torch_file->entries.empty());
  auto bytes = safetensors_serialize(torch_file->entries, torch_file->metadata);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  uint64_t header = 0;
  for (int i = 7; i >= 0; --i) header = (header << 8) | (*bytes)[i];
  EXPECT_EQ((8 + header) % 8, 0u);  // data 8-byte aligned
  auto back = safetensors_parse(*bytes, "written");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->metadata, torch_file->metadata);
  ASSERT_EQ(back->entries.size(), torch_file->entries.size());
  for (size_t i = 0; i < back->entries.size(); ++i) {
    const SafetensorsEntry& a = torch_file->entries[i];
    const SafetensorsEntry& b = back->entries[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.dtype, b.dtype);
    EXPECT_EQ(a.shape, b.shape);
    ASSERT_EQ(a.bytes.size(), b.bytes.size());
    EXPECT_EQ(std::memcmp(a.bytes.data(), b.bytes.data(), a.bytes.size()), 0) << a.name;
  }
}

TEST(SafetensorsWriter, RejectsBadEntriesByName) {
  const float data[6] = {1, 2, 3, 4, 5, 6};
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(data), sizeof data);
  auto error = [](std::vector<SafetensorsEntry> e) {
    auto r = safetensors_serialize(e);
    return r.ok() ? std::string("ok") : r.status().message();
  };
  EXPECT_EQ(error({{"w", DType::kFloat32, {2, 3}, bytes}}), "ok");
  EXPECT_EQ(error({{"w", DType::kFloat32, {2, 2}, bytes}}),
            "safetensors: tensor 'w' is float32[2, 2] but has 24 bytes");
  EXPECT_EQ(error({{"w", DType::kFloat32, {2, 3}, bytes}, {"w", DType::kFloat32, {6}, bytes}}),
            "safetensors: tensor 'w' appears twice");
  EXPECT_EQ(error({{"__metadata__", DType::kFloat32, {6}, bytes}}),
            "safetensors: tensor '__metadata__' has a reserved or empty name");
  EXPECT_EQ(error({{"w", DType::kUndefined, {6}, bytes}}),
            "safetensors: tensor 'w' has a dtype safetensors cannot store");
  // Found by the tir fuzzer: nlohmann's serializer threw (abort) on a name from a hostile file.
  EXPECT_EQ(error({{"w\xff", DType::kFloat32, {6}, bytes}}),
            "safetensors: tensor 'w\xff' has a name that is not valid UTF-8 (JSON needs it)");
  auto meta = safetensors_serialize({}, {{"format", "\xc3"}});
  ASSERT_FALSE(meta.ok());
  EXPECT_EQ(meta.status().message(), "safetensors: metadata is not valid UTF-8");
}

TEST(SafetensorsWriter, WriteFailsCleanlyOnABadPath) {
  const Status st = safetensors_write("/nonexistent-dir/x.safetensors", {});
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("/nonexistent-dir/x.safetensors"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace tir
