// The safetensors reader: files written by real torch + safetensors (tests/data/gen_weights.py)
// and every kind of malformed header, each with its exact error line.
#include "runtime/weights/safetensors.h"

#include <gtest/gtest.h>

#include <cstring>

#include "runtime/weights/data_loader.h"
#include "runtime/weights/weight_set.h"
#include "tests/common/test_util.h"

namespace tir {
namespace {

std::string weights_dir() { return testing::fixture_dir() + "/weights"; }

/// A safetensors file: the 8-byte length, `header`, then `data_bytes` bytes 0, 1, 2, ...
std::vector<uint8_t> st_bytes(const std::string& header, size_t data_bytes) {
  std::vector<uint8_t> out(8);
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = uint8_t(n >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  for (size_t i = 0; i < data_bytes; ++i) out.push_back(uint8_t(i));
  return out;
}

std::string parse_error(const std::string& header, size_t data_bytes) {
  const std::vector<uint8_t> f = st_bytes(header, data_bytes);
  const auto r = safetensors_parse(f, "t.safetensors");
  return r.ok() ? "parsed" : r.status().message();
}

constexpr char kPrefix[] = "safetensors file 't.safetensors': ";

TEST(Safetensors, ReadsTorchFileWithMetadata) {
  auto src = data_source_mmap(weights_dir() + "/partial.safetensors");
  ASSERT_TRUE(src.ok()) << src.status().message();
  auto f = safetensors_parse((*src)->bytes(), (*src)->name());
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->metadata.at("layer"), "model.transformer.h.1.");
  const nlohmann::json m = nlohmann::json::parse(std::ifstream(weights_dir() + "/manifest.json"));
  EXPECT_EQ(f->entries.size(), m["partial_tensors"].size());
  for (const SafetensorsEntry& e : f->entries) {
    EXPECT_EQ(e.name.rfind("model.transformer.h.1.", 0), 0u) << e.name;
    EXPECT_EQ(e.dtype, DType::kFloat32);
  }
  // File order is data order.
  for (size_t i = 1; i < f->entries.size(); ++i)
    EXPECT_LT(f->entries[i - 1].bytes.data(), f->entries[i].bytes.data());
}

TEST(Safetensors, ReadsBf16AndFp16) {
  for (const char* name : {"A_bf16.safetensors", "A_fp16.safetensors"}) {
    auto set = WeightSet::open(weights_dir() + "/" + name);
    ASSERT_TRUE(set.ok()) << set.status().message();
    const Tensor* t = (*set)->find("model.transformer.wte.weight");
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->dtype, name[2] == 'b' ? DType::kBFloat16 : DType::kFloat16);
    EXPECT_EQ(shape_str(t->shape()), "[64, 32]");
  }
}

TEST(Safetensors, EmptyHeaderPaddedWithSpacesIsAnEmptyFile) {
  const std::vector<uint8_t> f = st_bytes("{}      ", 0);
  auto r = safetensors_parse(f, "t.safetensors");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->entries.empty());
}

TEST(Safetensors, ZeroSizedTensorAndEveryDtype) {
  EXPECT_EQ(parse_error(R"({"e":{"dtype":"F32","shape":[0,4],"data_offsets":[0,0]},)"
                        R"("b":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]},)"
                        R"("h":{"dtype":"BF16","shape":[1],"data_offsets":[2,4]},)"
                        R"("i":{"dtype":"I64","shape":[],"data_offsets":[4,12]}})",
                        12),
            "parsed");
  EXPECT_EQ(safetensors_dtype("F64"), DType::kFloat64);
  EXPECT_EQ(safetensors_dtype("U8"), DType::kUInt8);
  EXPECT_EQ(safetensors_dtype("F8_E4M3"), DType::kUndefined);
}

TEST(Safetensors, RejectsTooShortFile) {
  const std::vector<uint8_t> f = {1, 2, 3, 4};
  EXPECT_EQ(safetensors_parse(f, "t.safetensors").status().message(),
            std::string(kPrefix) + "too short for a header (4 bytes)");
}

TEST(Safetensors, RejectsTruncatedHeader) {
  std::vector<uint8_t> f = st_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8);
  f.resize(30);
  EXPECT_EQ(safetensors_parse(f, "t.safetensors").status().message(),
            std::string(kPrefix) +
                "header length 54 runs past the end of the file (30 bytes; truncated?)");
}

TEST(Safetensors, RejectsTruncatedData) {
  EXPECT_EQ(parse_error(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 10),
            std::string(kPrefix) +
                "tensor 'a' has data_offsets [0, 16] past the end of the data (10 bytes)");
}

TEST(Safetensors, RejectsOffsetsThatLie) {
  // The header claims more data than the file holds, for a tensor whose size is consistent.
  EXPECT_EQ(parse_error(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},)"
                        R"("b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                        12),
            std::string(kPrefix) +
                "tensor 'a' has data_offsets [8, 16] past the end of the data (12 bytes)");
  EXPECT_EQ(parse_error(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", 8),
            std::string(kPrefix) + "tensor 'a' has data_offsets [8, 0] with begin > end");
}

TEST(Safetensors, RejectsOverlappingRanges) {
  EXPECT_EQ(
      parse_error(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                  R"("b":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}})",
                  24),
      std::string(kPrefix) + "tensor 'b' (data_offsets [8, 24]) overlaps tensor 'a' ([0, 16])");
}

TEST(Safetensors, RejectsHolesAndUnindexedBytes) {
  EXPECT_EQ(
      parse_error(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                  R"("b":{"dtype":"F32","shape":[2],"data_offsets":[16,24]}})",
                  24),
      std::string(kPrefix) + "tensor 'b' starts at 16 but the data before it ends at 8 (a hole)");
  EXPECT_EQ(parse_error(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 16),
            std::string(kPrefix) + "8 bytes after the last tensor are not part of any tensor");
}

TEST(Safetensors, RejectsBadDtype) {
  EXPECT_EQ(parse_error(R"({"a":{"dtype":"Q4","shape":[2],"data_offsets":[0,8]}})", 8),
            std::string(kPrefix) + "tensor 'a' has unknown or unsupported dtype 'Q4'");
  EXPECT_EQ(parse_error(R"({"a":{"dtype":7,"shape":[2],"data_offsets":[0,8]}})", 8),
            std::string(kPrefix) + "tensor 'a' has no dtype");
}

TEST(Safetensors, RejectsShapeSizeMismatch) {
  EXPECT_EQ(parse_error(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})", 20),
            std::string(kPrefix) +
                "tensor 'a' is float32[2, 3] (24 bytes) but its data_offsets [0, 20] hold 20");
  EXPECT_EQ(parse_error(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8),
            std::string(kPrefix) + "tensor 'a' has a dim that is not a non-negative integer");
  EXPECT_EQ(
      parse_error(R"({"a":{"dtype":"U8","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,1]}})", 1),
      std::string(kPrefix) + "tensor 'a' has no shape or more than 8 dims");
  EXPECT_EQ(parse_error(R"({"a":{"dtype":"F32","shape":[4611686018427387904,4],)"
                        R"("data_offsets":[0,8]}})",
                        8),
            std::string(kPrefix) + "tensor 'a' has a shape whose size overflows");
}

TEST(Safetensors, RejectsMalformedHeaders) {
  EXPECT_EQ(
      parse_error(R"({"a":)", 0).rfind(std::string(kPrefix) + "header is not valid JSON (", 0), 0u);
  EXPECT_EQ(parse_error("[1, 2]", 0), std::string(kPrefix) + "header is not a JSON object");
  EXPECT_EQ(parse_error(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                        R"("a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
                        2),
            std::string(kPrefix) + "header: key \"a\" appears twice in one object");
  // Inside a tensor's description too: which dtype would be meant?
  EXPECT_EQ(parse_error(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"dtype":"I8"}})", 1),
            std::string(kPrefix) + "header: key \"dtype\" appears twice in one object");
  EXPECT_EQ(parse_error(R"({"__metadata__":{"k":1}})", 0),
            std::string(kPrefix) + "__metadata__ value 'k' is not a string");
  EXPECT_EQ(parse_error(R"({"a":{"dtype":"U8","shape":[1]}})", 1),
            std::string(kPrefix) + "tensor 'a' has no data_offsets [begin, end]");
}

TEST(Safetensors, MisalignedTensorIsCopiedAlignedOneIsMapped) {
  // The data starts right after the header: pad it so the F32 tensor is 4-byte aligned,
  // then one more space so it is not.
  std::string header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  while ((8 + header.size()) % 4 != 0) header += ' ';
  for (const std::string& h : {header, header + " "}) {
    const bool aligned = h.size() == header.size();
    auto src = data_source_from_buffer(st_bytes(h, 8), "t.safetensors");
    auto set = WeightSet::from_source(src);
    ASSERT_TRUE(set.ok()) << set.status().message();
    const Tensor* t = (*set)->find("a");
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t->data) % 4, 0u);
    EXPECT_EQ(std::memcmp(t->data, src->bytes().data() + 8 + h.size(), 8), 0);
    EXPECT_EQ((*set)->owned_bytes(), aligned ? 0u : 8u) << h.size();
    const bool in_mapping =
        t->data >= src->bytes().data() && t->data < src->bytes().data() + src->bytes().size();
    EXPECT_EQ(in_mapping, aligned);
  }
}

}  // namespace
}  // namespace tir
