// bf16 compute (SessionOptions::precision, kernels/cpu/onednn/onednn_operand.h) on real torch
// fixtures: the bf16 output stays within the documented tolerance of torch's float32 output,
// and differs from tir's float32 output (so bf16 really ran: a kernel ignoring the knob
// fails), or, on a CPU without native bf16, equals it bit for bit (the session refused bf16);
// after a weight swap a bf16 session computes exactly what a fresh bf16 session computes
// (its packed weights were re-packed). Fixtures: tests/data/fixtures/{mlp,gpt2,bert} (gen.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ir/model.h"
#include "ir/weight_file.h"
#include "kernels/cpu/onednn/onednn_context.h"
#include "tests/runtime/fixture_session.h"
#include "tests/runtime/lowp_util.h"

namespace tir {
namespace {

using testing::copies;
using testing::find_fixture;
using testing::import_fixture;
using testing::max_abs_diff;
using testing::read_all;
using testing::TempDir;
using testing::views;

// max |bf16 - torch| / max |torch| over each output. Measured on these fixtures
// (docs/performance.md, "bf16 compute"): 2.2e-3 (mlp), 7.4e-3 (gpt2 logits), 6.1e-3 (bert hidden
// states), 2.4e-2 (bert pooler output, tanh of a linear of the first token); the bound leaves 2x
// headroom.
constexpr double kBf16Tolerance = 5e-2;

std::vector<HostTensor> run_once(const std::string& tir, const std::string& bin,
                                 const std::vector<HostTensor>& inputs, Precision precision) {
  SessionOptions o;
  o.precision = precision;
  auto session = Session::open(tir, bin, o);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return {};
  auto out = (*session)->run(views(inputs));
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? copies(*out) : std::vector<HostTensor>{};
}

/// Whether this CPU computes bf16 natively (else sessions asked for bf16 run float32).
bool native_bf16() { return kernels::cpu_precision(Precision::kBFloat16) == Precision::kBFloat16; }

class Bf16Family : public ::testing::TestWithParam<std::string> {};

TEST_P(Bf16Family, CloseToTorchFloat32AndNotTheFloat32Path) {
  const nlohmann::json f = find_fixture(GetParam());
  const std::string dir = testing::fixture_dir() + "/" + GetParam();
  TempDir tmp;
  ASSERT_TRUE(import_fixture(dir, tmp));
  const auto inputs = read_all(dir, f["inputs"]);
  const auto expected = read_all(dir, f["outputs"]);
  const auto f32 = run_once(tmp.file("m.tir"), tmp.file("m.bin"), inputs, Precision::kFloat32);
  const auto bf16 = run_once(tmp.file("m.tir"), tmp.file("m.bin"), inputs, Precision::kBFloat16);
  ASSERT_EQ(f32.size(), expected.size());
  ASSERT_EQ(bf16.size(), expected.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    const Tensor want = expected[k].view();
    if (want.dtype != DType::kFloat32) continue;
    ASSERT_TRUE(bf16[k].view().same_shape(want));
    EXPECT_TRUE(testing::all_close(f32[k].view(), want, f["rtol"], f["atol"])) << "f32 " << k;
    const auto [err, scale] = max_abs_diff(bf16[k].view(), want);
    const auto [from_f32, unused] = max_abs_diff(bf16[k].view(), f32[k].view());
    std::printf("[ bf16     ] %s output %zu: max|bf16-torch| %.3g, max|torch| %.3g, rel %.3g\n",
                GetParam().c_str(), k, err, scale, err / scale);
    EXPECT_LE(err, kBf16Tolerance * scale) << "output " << k;
    if (!native_bf16()) {  // refused at open: float32, bit for bit
      EXPECT_EQ(from_f32, 0.0) << "output " << k << ": no native bf16, yet not the f32 result";
      continue;
    }
    // bf16 rounding of the operands moves the result well beyond float32 reordering noise.
    EXPECT_GT(from_f32, 1e-4 * scale) << "output " << k << ": bf16 equals float32, not bf16";
  }
}

// Training IR: linear / addmm with the weight read as is (packed once); core IR: addmm on a
// permuted weight (converted per run), mm, and attention as bmm (activation x activation);
// convolutions (ResNet's, MobileNetV3's depthwise and 1x1) with folded batch norms.
INSTANTIATE_TEST_SUITE_P(Families, Bf16Family,
                         ::testing::Values("mlp/training", "mlp/core", "gpt2/training", "gpt2/core",
                                           "bert/training", "bert/core", "resnet_small/training",
                                           "mobilenet_v3_small/training"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '/', '_');
                           return n;
                         });

/// The weight file at `path` with every float32 tensor halved, as a second weight set.
std::shared_ptr<const WeightSet> halved_weights(const std::string& path) {
  auto bytes = read_file(path);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  if (!bytes.ok()) return nullptr;
  auto file = ir::WeightFileView::open(*bytes, path);
  EXPECT_TRUE(file.ok()) << file.status().message();
  if (!file.ok()) return nullptr;
  for (const fb::WeightEntry* e : *file->index().entries()) {
    if (ir::to_dtype(e->dtype()) != DType::kFloat32) continue;
    const std::span<const uint8_t> s = file->stored_bytes(*e);
    float* x = reinterpret_cast<float*>(const_cast<uint8_t*>(s.data()));
    for (size_t i = 0; i < s.size() / sizeof(float); ++i) x[i] *= 0.5f;
  }
  WeightSetOptions o;
  o.verify_checksums = false;  // the checksums are those of the original bytes
  auto set = WeightSet::from_source(data_source_from_buffer(std::move(*bytes), path + "/2"), o);
  EXPECT_TRUE(set.ok()) << set.status().message();
  return set.ok() ? *set : nullptr;
}

TEST(Bf16, WeightSwapRepacksLikeAFreshSession) {
  for (const char* rel : {"gpt2/training", "bert/core"}) {
    SCOPED_TRACE(rel);
    const std::string dir = testing::fixture_dir() + "/" + rel;
    TempDir tmp;
    ASSERT_TRUE(import_fixture(dir, tmp));
    const auto inputs = read_all(dir, find_fixture(rel)["inputs"]);
    auto model = data_source_mmap(tmp.file("m.tir"));
    auto original = WeightSet::open(tmp.file("m.bin"));
    ASSERT_TRUE(model.ok() && original.ok());
    const auto halved = halved_weights(tmp.file("m.bin"));
    ASSERT_NE(halved, nullptr);
    SessionOptions o;
    o.precision = Precision::kBFloat16;

    auto fresh = Session::create(*model, halved, o);
    ASSERT_TRUE(fresh.ok()) << fresh.status().message();
    auto want = (*fresh)->run(views(inputs));
    ASSERT_TRUE(want.ok()) << want.status().message();
    const auto want_copy = copies(*want);

    auto swapped = Session::create(*model, *original, o);
    ASSERT_TRUE(swapped.ok()) << swapped.status().message();
    auto before = (*swapped)->run(views(inputs));
    ASSERT_TRUE(before.ok()) << before.status().message();
    EXPECT_FALSE(testing::bitwise_equal(*before, want_copy));  // the swap must matter
    ASSERT_TRUE((*swapped)->swap_weights(halved).ok());
    auto after = (*swapped)->run(views(inputs));
    ASSERT_TRUE(after.ok()) << after.status().message();
    EXPECT_TRUE(testing::bitwise_equal(*after, want_copy));
  }
}

// Run by the `bf16_fallback` meson test with ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI: oneDNN
// then sees a CPU without native bf16 (as on a Xeon before Cooper Lake), and a bf16 session
// must compute float32, bit for bit, instead of the slower emulated bf16.
TEST(Bf16Fallback, CpuWithoutNativeBf16RunsFloat32) {
  const char* isa = std::getenv("ONEDNN_MAX_CPU_ISA");
  ASSERT_TRUE(isa && std::string(isa) == "AVX512_CORE_VNNI") << "run by the bf16_fallback test";
  EXPECT_EQ(kernels::cpu_precision(Precision::kBFloat16), Precision::kFloat32);
  const std::string rel = "gpt2/training";
  const std::string dir = testing::fixture_dir() + "/" + rel;
  TempDir tmp;
  ASSERT_TRUE(import_fixture(dir, tmp));
  const auto inputs = read_all(dir, find_fixture(rel)["inputs"]);
  const auto f32 = run_once(tmp.file("m.tir"), tmp.file("m.bin"), inputs, Precision::kFloat32);
  const auto bf16 = run_once(tmp.file("m.tir"), tmp.file("m.bin"), inputs, Precision::kBFloat16);
  ASSERT_EQ(f32.size(), bf16.size());
  for (size_t k = 0; k < f32.size(); ++k) {
    const Tensor a = f32[k].view(), b = bf16[k].view();
    ASSERT_TRUE(a.same_shape(b));
    EXPECT_EQ(std::memcmp(a.data, b.data, a.nbytes()), 0) << "output " << k;
  }
}

}  // namespace
}  // namespace tir
