// int8 compute (SessionOptions::precision kInt8, kernels/cpu/int8/gemm_int8.h) and int8 weight
// files (`tirc weights pack --dtype int8`) on real torch fixtures:
//  - the int8 output stays within the documented bound of torch's float32 output and differs
//    from tir's float32 output (the GEMMs really ran in int8);
//  - a weight file packed to int8 holds the bytes the kernels quantize the float32 file to
//    (one quantization, core/quantize.h), runs its GEMMs in int8 in any precision, is
//    smaller, and where only GEMMs read quantized tensors (no embedding table) runs
//    bit-identically to the float32 file with --dtype int8;
//  - after a weight swap an int8 session computes what a fresh one computes (repacked).
// Fixtures: tests/data/fixtures/{mlp,gpt2,bert} (gen.py), training IR, where linear and
// addmm read their weights directly (core IR reads a permuted weight: those GEMMs keep
// float32, see docs/guide/low-precision.md); resnet_small and mobilenet_v3_small in both IRs for
// int8 convolutions (kernels/cpu/int8/conv_int8_onednn.h): every conv weight stored int8, and a
// swap of conv weights (batch norms folded) repacks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/quantize.h"
#include "importer/weight_writer.h"
#include "kernels/packed_cache.h"
#include "runtime/weights/layout_cache.h"
#include "runtime/weights/safetensors_writer.h"
#include "tests/runtime/fixture_session.h"
#include "tests/runtime/lowp_util.h"
#include "tooling/weights/weights_tool.h"

namespace tir {
namespace {

using testing::copies;
using testing::find_fixture;
using testing::import_fixture;
using testing::kInt8Tolerance;
using testing::max_abs_diff;
using testing::read_all;
using testing::TempDir;
using testing::views;

std::vector<HostTensor> run_once(const std::string& tir, std::shared_ptr<const WeightSet> weights,
                                 const std::vector<HostTensor>& inputs, Precision precision) {
  auto model = data_source_mmap(tir);
  EXPECT_TRUE(model.ok()) << model.status().message();
  if (!model.ok()) return {};
  SessionOptions o;
  o.precision = precision;
  auto session = Session::create(*model, std::move(weights), o);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return {};
  auto out = (*session)->run(views(inputs));
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? copies(*out) : std::vector<HostTensor>{};
}

std::shared_ptr<const WeightSet> open_set(const std::string& path, bool layout_cache = true) {
  WeightSetOptions o;
  o.layout_cache = layout_cache;
  auto set = WeightSet::open(path, o);
  EXPECT_TRUE(set.ok()) << set.status().message();
  return set.ok() ? *set : nullptr;
}

bool bitwise_equal(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    const Tensor x = a[k].view(), y = b[k].view();
    if (!x.same_shape(y) || x.dtype != y.dtype || std::memcmp(x.data, y.data, x.nbytes()) != 0)
      return false;
  }
  return true;
}

/// `tirc weights pack --dtype int8` of tmp/`source` (m.bin) into tmp/`output` for tmp/m.tir.
Status pack_int8(const TempDir& tmp, const std::string& source = "m.bin",
                 const std::string& output = "m.int8.bin") {
  tools::PackOptions p;
  p.source = tmp.file(source);
  p.output = tmp.file(output);
  p.narrow = DType::kInt8;
  p.model = tmp.file("m.tir");
  std::ostringstream log;
  return tools::weights_pack(p, log);
}

class Int8Family : public ::testing::TestWithParam<std::string> {};

TEST_P(Int8Family, CloseToTorchAndTheInt8FileRunsTheSame) {
  const nlohmann::json f = find_fixture(GetParam());
  const std::string dir = testing::fixture_dir() + "/" + GetParam();
  TempDir tmp;
  ASSERT_TRUE(import_fixture(dir, tmp));
  const auto inputs = read_all(dir, f["inputs"]);
  const auto expected = read_all(dir, f["outputs"]);
  const auto f32_set = open_set(tmp.file("m.bin"));
  const auto f32 = run_once(tmp.file("m.tir"), f32_set, inputs, Precision::kFloat32);
  const auto int8 = run_once(tmp.file("m.tir"), f32_set, inputs, Precision::kInt8);
  ASSERT_EQ(int8.size(), expected.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    const Tensor want = expected[k].view();
    if (want.dtype != DType::kFloat32) continue;
    ASSERT_TRUE(int8[k].view().same_shape(want));
    const auto [err, scale] = max_abs_diff(int8[k].view(), want);
    const auto [from_f32, unused] = max_abs_diff(int8[k].view(), f32[k].view());
    std::printf("[ int8     ] %s output %zu: max|int8-torch| %.3g, max|torch| %.3g, rel %.3g\n",
                GetParam().c_str(), k, err, scale, err / scale);
    EXPECT_LE(err, kInt8Tolerance * scale) << "output " << k;
    EXPECT_GT(from_f32, 1e-4 * scale) << "output " << k << ": int8 equals float32";
  }
  // The packed int8 file: int8 storage, smaller, and the same bits in f32 or int8 precision.
  const Status packed = pack_int8(tmp);
  ASSERT_TRUE(packed.ok()) << packed.message();
  const auto int8_set = open_set(tmp.file("m.int8.bin"));
  ASSERT_NE(int8_set, nullptr);
  size_t quantized = 0;
  for (size_t i = 0; i < int8_set->size(); ++i) quantized += int8_set->quantized(i) != nullptr;
  EXPECT_GT(quantized, 0u);
  EXPECT_LT(std::filesystem::file_size(tmp.file("m.int8.bin")),
            std::filesystem::file_size(tmp.file("m.bin")));
  for (size_t i = 0; i < int8_set->size(); ++i) {
    const kernels::QuantizedWeight* q = int8_set->quantized(i);
    if (!q) continue;
    const Tensor* original = f32_set->find(int8_set->names()[i]);
    ASSERT_NE(original, nullptr);
    std::vector<int8_t> bytes(size_t(q->rows * q->cols));
    std::vector<float> scales(size_t(q->axis == 0 ? q->rows : q->cols));
    quantize_int8_per_channel(original->data_as<const float>(), q->rows, q->cols, q->axis,
                              bytes.data(), scales.data());
    EXPECT_EQ(std::memcmp(bytes.data(), q->data, bytes.size()), 0) << int8_set->names()[i];
    EXPECT_EQ(std::memcmp(scales.data(), q->scales, scales.size() * 4), 0) << int8_set->names()[i];
  }
  const auto from_file = run_once(tmp.file("m.tir"), int8_set, inputs, Precision::kInt8);
  EXPECT_TRUE(
      bitwise_equal(run_once(tmp.file("m.tir"), int8_set, inputs, Precision::kFloat32), from_file))
      << "weights stored int8 run their GEMMs in int8 whatever the precision";
  for (size_t k = 0; k < expected.size(); ++k) {
    if (expected[k].view().dtype != DType::kFloat32) continue;
    const auto [err, scale] = max_abs_diff(from_file[k].view(), expected[k].view());
    EXPECT_LE(err, kInt8Tolerance * scale) << "int8 file, output " << k;
  }
  // No embedding and every quantized weight read by an int8 kernel: the same bits. (GPT-2 and
  // BERT dequantize an embedding table; the CNNs' short, depthwise and squeeze-excite convs
  // compute in float32 on the dequantized weights, kernels/cpu/int8/conv_int8_onednn.h.)
  if (GetParam().rfind("mlp", 0) == 0) EXPECT_TRUE(bitwise_equal(from_file, int8));
  if (GetParam().find("resnet") != std::string::npos ||
      GetParam().find("mobilenet") != std::string::npos) {  // every conv weight is stored int8
    size_t convs = 0, saved = 0;  // bytes int8 storage saves on them (q + scales vs float32)
    for (size_t i = 0; i < int8_set->size(); ++i)
      if (const Tensor& t = int8_set->tensor(i); t.rank == 4) {
        EXPECT_NE(int8_set->quantized(i), nullptr) << int8_set->names()[i];
        ++convs;
        saved += t.nbytes() - int8_stored_bytes(t.numel(), t.shape()[0]);
      }
    EXPECT_GT(convs, 0u);
    // The file shrinks by that much, give or take each entry's 64-byte alignment.
    EXPECT_GE(std::filesystem::file_size(tmp.file("m.bin")),
              std::filesystem::file_size(tmp.file("m.int8.bin")) + saved - 64 * convs);
  }
}

INSTANTIATE_TEST_SUITE_P(Families, Int8Family,
                         ::testing::Values("mlp/training", "gpt2/training", "bert/training",
                                           "resnet_small/training", "resnet_small/core",
                                           "mobilenet_v3_small/training",
                                           "mobilenet_v3_small/core"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '/', '_');
                           return n;
                         });

TEST(Int8, PackWithoutModelIsRefused) {
  TempDir tmp;
  ASSERT_TRUE(import_fixture(testing::fixture_dir() + "/mlp/training", tmp));
  tools::PackOptions p;
  p.source = tmp.file("m.bin");
  p.output = tmp.file("m.int8.bin");
  p.narrow = DType::kInt8;
  std::ostringstream log;
  const Status s = tools::weights_pack(p, log);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--model"), std::string::npos) << s.message();
  EXPECT_FALSE(std::filesystem::exists(tmp.file("m.int8.bin")));
}

/// After swap_weights an int8 session computes what a fresh one on the new weights computes.
void check_swap_repacks(const std::string& rel) {
  const std::string dir = testing::fixture_dir() + "/" + rel;
  TempDir tmp;
  ASSERT_TRUE(import_fixture(dir, tmp));
  const auto inputs = read_all(dir, find_fixture(rel)["inputs"]);
  // A second weight set: the same file with every float32 tensor halved.
  auto bytes = read_file(tmp.file("m.bin"));
  ASSERT_TRUE(bytes.ok());
  auto file = ir::WeightFileView::open(*bytes, "m.bin");
  ASSERT_TRUE(file.ok());
  for (const fb::WeightEntry* e : *file->index().entries()) {
    if (ir::to_dtype(e->dtype()) != DType::kFloat32) continue;
    const std::span<const uint8_t> s = file->stored_bytes(*e);
    float* x = reinterpret_cast<float*>(const_cast<uint8_t*>(s.data()));
    for (size_t i = 0; i < s.size() / sizeof(float); ++i) x[i] *= 0.5f;
  }
  WeightSetOptions wo;
  wo.verify_checksums = false;  // the checksums are those of the original bytes
  auto halved = WeightSet::from_source(data_source_from_buffer(std::move(*bytes), "halved"), wo);
  ASSERT_TRUE(halved.ok()) << halved.status().message();
  const auto want = run_once(tmp.file("m.tir"), *halved, inputs, Precision::kInt8);

  auto model = data_source_mmap(tmp.file("m.tir"));
  ASSERT_TRUE(model.ok());
  SessionOptions o;
  o.precision = Precision::kInt8;
  auto session = Session::create(*model, open_set(tmp.file("m.bin")), o);
  ASSERT_TRUE(session.ok()) << session.status().message();
  const auto before = (*session)->run(views(inputs));
  ASSERT_TRUE(before.ok());
  const auto before_copy = copies(*before);
  ASSERT_TRUE((*session)->swap_weights(*halved).ok());
  const auto after = (*session)->run(views(inputs));
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_TRUE(bitwise_equal(copies(*after), want));
  EXPECT_FALSE(bitwise_equal(before_copy, want));
}

/// Writes one float32 tensor of `shape` stored int8 along `axis` (its values all zero).
Status write_int8_entry(const std::string& path, std::vector<int64_t> shape, int axis) {
  importer::WeightEntrySpec spec;
  spec.name = "w";
  spec.dtype = DType::kFloat32;
  spec.shape = shape;
  spec.stored_dtype = DType::kInt8;
  spec.quant_axis = int8_t(axis);
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  std::vector<uint8_t> bytes(int8_stored_bytes(numel, shape[size_t(axis)]), 0);
  TIR_ASSIGN_OR_RETURN(auto writer, importer::WeightWriter::create(path, {}));
  TIR_RETURN_IF_ERROR(writer->add(spec, bytes.size(), [&](const importer::ChunkSink& sink) {
    return sink({bytes.data(), bytes.size()});
  }));
  TIR_RETURN_IF_ERROR(writer->finish().status());
  return writer->commit();
}

TEST(Int8, ConvShapedEntriesNeedChannelAxisZero) {
  TempDir tmp;
  ASSERT_TRUE(write_int8_entry(tmp.file("ok.bin"), {4, 3, 2, 2}, 0).ok());
  const auto ok = WeightSet::open(tmp.file("ok.bin"));
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  const kernels::QuantizedWeight* q = (*ok)->quantized(0);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->rows, 4);  // [OC, C/groups * KH * KW]
  EXPECT_EQ(q->cols, 12);
  ASSERT_TRUE(write_int8_entry(tmp.file("bad.bin"), {4, 3, 2, 2}, 1).ok());
  const auto bad = WeightSet::open(tmp.file("bad.bin"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("stored int8"), std::string::npos)
      << bad.status().message();
}

TEST(Int8, WeightSwapRepacksLikeAFreshSession) { check_swap_repacks("gpt2/training"); }

/// The GPT-2 fixture imported and its weights packed to int8 (m.int8.bin).
void gpt2_int8(const TempDir& tmp, std::vector<HostTensor>* inputs) {
  const std::string dir = testing::fixture_dir() + "/gpt2/training";
  ASSERT_TRUE(import_fixture(dir, tmp));
  *inputs = read_all(dir, find_fixture("gpt2/training")["inputs"]);
  const Status packed = pack_int8(tmp);
  ASSERT_TRUE(packed.ok()) << packed.message();
}

// Int8-stored weights that only int8 kernels read (GPT-2's GEMMs and its tied embedding, read
// row by row) are never dequantized into float32: no float32 copy of the model in memory. The
// results are bitwise those of a set where every tensor was dequantized first.
TEST(Int8, StoredWeightsStayInt8WhereOnlyInt8KernelsReadThem) {
  TempDir tmp;
  std::vector<HostTensor> inputs;
  ASSERT_NO_FATAL_FAILURE(gpt2_int8(tmp, &inputs));
  const auto lazy = open_set(tmp.file("m.int8.bin"));
  const auto eager = open_set(tmp.file("m.int8.bin"));
  ASSERT_TRUE(lazy && eager);
  for (size_t i = 0; i < eager->size(); ++i) (void)eager->tensor(i);  // dequantizes them all
  const auto got = run_once(tmp.file("m.tir"), lazy, inputs, Precision::kFloat32);
  const auto want = run_once(tmp.file("m.tir"), eager, inputs, Precision::kFloat32);
  EXPECT_TRUE(bitwise_equal(got, want));
  size_t quantized = 0, dequantized = 0;
  for (size_t i = 0; i < lazy->size(); ++i) {
    if (!lazy->quantized(i)) continue;
    ++quantized;
    dequantized += lazy->dequantized(i);
    EXPECT_TRUE(eager->dequantized(i)) << eager->names()[i];
  }
  EXPECT_GT(quantized, 0u);
  EXPECT_EQ(dequantized, 0u) << "of " << quantized << " int8 tensors";
  // Asking for a tensor by name still gives its float32 values.
  const std::string name = lazy->names()[0];
  const Tensor* t = lazy->find(name);
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(lazy->dequantized(0));
  EXPECT_EQ(std::memcmp(t->data, eager->tensor(0).data, t->nbytes()), 0) << name;
}

// The int8 GEMMs' packed B (int8 bytes in oneDNN's layout, with the scales and zero-point
// sums) goes into the layout cache beside the int8 file: the next weight set maps it and packs
// nothing, with bitwise the same outputs; a damaged entry is packed again, never used.
TEST(Int8, PackedWeightsComeFromTheLayoutCacheInTheNextProcess) {
  TempDir tmp;
  std::vector<HostTensor> inputs;
  ASSERT_NO_FATAL_FAILURE(gpt2_int8(tmp, &inputs));
  const std::string bin = tmp.file("m.int8.bin"), cache = layout_cache_path(bin);
  const auto run = [&](bool layout_cache) {
    return run_once(tmp.file("m.tir"), open_set(bin, layout_cache), inputs, Precision::kFloat32);
  };
  const std::vector<HostTensor> want = run(false);
  ASSERT_FALSE(want.empty());
  ASSERT_FALSE(std::filesystem::exists(cache));
  const kernels::PackedCounts c0 = kernels::packed_counts();
  EXPECT_TRUE(bitwise_equal(run(true), want));
  ASSERT_TRUE(std::filesystem::exists(cache)) << "the first run packs B, then writes it";
  const kernels::PackedCounts c1 = kernels::packed_counts();
  ASSERT_GT(c1.packed, c0.packed);
  EXPECT_TRUE(bitwise_equal(run(true), want));
  const kernels::PackedCounts c2 = kernels::packed_counts();
  EXPECT_EQ(c2.packed, c1.packed) << "nothing packed when the cache has it";
  EXPECT_EQ(c2.loaded - c1.loaded, c1.packed - c0.packed);

  // The last entry's last bytes are a channel's scales and sums: changed, that entry (only)
  // is packed again from the int8 file.
  std::vector<char> bytes;
  {
    std::ifstream f(cache, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  ASSERT_GT(bytes.size(), 4096u);
  bytes[bytes.size() - 2] ^= 0x10;
  std::ofstream(cache, std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size());
  EXPECT_TRUE(bitwise_equal(run(true), want));
  EXPECT_EQ(kernels::packed_counts().packed, c2.packed + 1);
}

// Swapping one int8 weight set for another, neither dequantized: the session computes what a
// fresh one on the new set computes (the kernels tell the sets apart by their int8 storage).
TEST(Int8, SwapBetweenInt8SetsBoundWithoutFloatBytes) {
  TempDir tmp;
  std::vector<HostTensor> inputs;
  ASSERT_NO_FATAL_FAILURE(gpt2_int8(tmp, &inputs));
  // A second int8 set: the float32 weights halved (written as safetensors), packed the same.
  const auto f32 = open_set(tmp.file("m.bin"));
  std::vector<std::vector<float>> halves;
  std::vector<SafetensorsEntry> entries;
  for (size_t i = 0; i < f32->size(); ++i) {
    const Tensor& t = f32->tensor(i);
    ASSERT_EQ(t.dtype, DType::kFloat32);
    const float* x = t.data_as<const float>();
    std::vector<float>& h = halves.emplace_back(x, x + t.numel());
    for (float& v : h) v *= 0.5f;
    entries.push_back({f32->names()[i],
                       DType::kFloat32,
                       std::vector<int64_t>(t.shape().begin(), t.shape().end()),
                       {reinterpret_cast<const uint8_t*>(h.data()), h.size() * sizeof(float)}});
  }
  ASSERT_TRUE(safetensors_write(tmp.file("half.safetensors"), entries).ok());
  const Status packed = pack_int8(tmp, "half.safetensors", "half.int8.bin");
  ASSERT_TRUE(packed.ok()) << packed.message();
  const auto base = open_set(tmp.file("m.int8.bin"));
  const auto halved = open_set(tmp.file("half.int8.bin"));
  ASSERT_TRUE(base && halved);
  const auto want = run_once(tmp.file("m.tir"), halved, inputs, Precision::kFloat32);
  auto model = data_source_mmap(tmp.file("m.tir"));
  ASSERT_TRUE(model.ok());
  auto session = Session::create(*model, base);
  ASSERT_TRUE(session.ok()) << session.status().message();
  const auto before = (*session)->run(views(inputs));
  ASSERT_TRUE(before.ok());
  const auto before_copy = copies(*before);
  ASSERT_TRUE((*session)->swap_weights(halved).ok());
  const auto after = (*session)->run(views(inputs));
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_TRUE(bitwise_equal(copies(*after), want));
  EXPECT_FALSE(bitwise_equal(before_copy, want));
}

TEST(Int8, ConvWeightSwapRepacksLikeAFreshSession) {
  check_swap_repacks("resnet_small/training");  // conv weights and the folded batch norms
}

}  // namespace
}  // namespace tir
