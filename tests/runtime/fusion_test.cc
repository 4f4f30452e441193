// Load-time GEMM/conv + activation fusion (runtime/passes/fusion.h): real torch fixtures run fused
// and unfused (SessionOptions::fuse), both match torch and each other, fusion really
// happened (groups formed, fewer kernel calls), and a group whose intermediate escapes is
// not formed. Conv + eval batch norm (+ activation) groups fold the norm into the conv, also
// after a weight swap that changes only the norm's statistics; a residual add (+ activation)
// after them joins the group (ResNet / MobileNetV3 blocks), not when the sum escapes or the
// addend broadcasts. Fixtures:
// tests/data/fixtures/{gpt2,bert,...} (gen.py) and fixtures/fusion/ (gen_fusion.py).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>

#include "kernels/registry.h"
#include "runtime/exec/profiler.h"
#include "runtime/weights/weight_set.h"
#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using testing::import_fixture;
using testing::read_all;
using testing::TempDir;
using testing::views;

struct FusionRun {
  size_t groups = 0;
  uint64_t calls = 0;
  std::vector<HostTensor> outputs;
};

/// Imports `dir`, runs its inputs once with fusion on or off.
FusionRun run_fixture(const std::string& dir, const nlohmann::json& f, bool fuse) {
  FusionRun r;
  TempDir tmp;
  SessionOptions o;
  o.fuse = fuse;
  testing::FixtureRun run = testing::run_fixture_once(dir, f, tmp, o);
  if (!run.session) return r;
  r.outputs = std::move(run.outputs);
  r.groups = run.session->num_fused_groups();
  r.calls = run.session->kernel_calls();
  return r;
}

nlohmann::json find_fixture(const nlohmann::json& manifest, const std::string& dir) {
  for (const auto& f : manifest["fixtures"])
    if (f["dir"] == dir) return f;
  ADD_FAILURE() << "no fixture " << dir;
  return {};
}

nlohmann::json fusion_manifest() {
  std::ifstream in(testing::fixture_dir() + "/fusion/manifest.json");
  return nlohmann::json::parse(in);
}

/// Runs fused and unfused; both match torch, they agree within 1e-5; returns the fused run.
FusionRun expect_fused_matches(const std::string& root, const nlohmann::json& f) {
  const std::string dir = root + "/" + f["dir"].get<std::string>();
  FusionRun fused = run_fixture(dir, f, true);
  FusionRun plain = run_fixture(dir, f, false);
  const auto expected = read_all(dir, f["outputs"]);
  EXPECT_EQ(plain.groups, 0u);
  EXPECT_EQ(fused.outputs.size(), expected.size());
  EXPECT_EQ(plain.outputs.size(), expected.size());
  for (size_t k = 0; k < expected.size() && k < fused.outputs.size() && k < plain.outputs.size();
       ++k) {
    EXPECT_TRUE(
        testing::all_close(fused.outputs[k].view(), expected[k].view(), f["rtol"], f["atol"]))
        << "fused output " << k;
    EXPECT_TRUE(testing::all_close(fused.outputs[k].view(), plain.outputs[k].view(), 1e-5, 1e-5))
        << "fused vs unfused output " << k;
  }
  if (fused.groups > 0) {
    EXPECT_LT(fused.calls, plain.calls);
  }
  return fused;
}

struct FamilyCase {
  std::string dir;
  size_t min_groups;
};

class FusionFamily : public ::testing::TestWithParam<FamilyCase> {};

TEST_P(FusionFamily, FusesAndMatchesUnfused) {
  const nlohmann::json f = find_fixture(testing::manifest(), GetParam().dir);
  const FusionRun fused = expect_fused_matches(testing::fixture_dir(), f);
  EXPECT_GE(fused.groups, GetParam().min_groups);
}

// GPT-2: NewGELU's 8-node chain after each MLP addmm (2 layers); BERT: gelu after each
// intermediate linear/addmm; MobileNetV3: the SE block's conv + relu and conv + hardsigmoid
// (decomposed in the core IR), the classifier's linear + hardswish and all 34 conv + batch
// norm (+ relu/hardswish); ResNet: its 6 conv + batch norm (+ relu).
INSTANTIATE_TEST_SUITE_P(
    Families, FusionFamily,
    ::testing::Values(FamilyCase{"gpt2/training", 2}, FamilyCase{"gpt2/core", 2},
                      FamilyCase{"bert/training", 2}, FamilyCase{"bert/core", 2},
                      FamilyCase{"mobilenet_v3_small/training", 53},
                      FamilyCase{"mobilenet_v3_small/core", 53},
                      FamilyCase{"resnet_small/training", 6}, FamilyCase{"resnet_small/core", 6}),
    [](const auto& info) {
      std::string n = info.param.dir;
      for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return n;
    });

TEST(Fusion, EveryActivationKindMatchesTorch) {
  const nlohmann::json m = fusion_manifest();
  for (const char* dialect : {"training", "core"}) {
    SCOPED_TRACE(dialect);
    const nlohmann::json f = find_fixture(m, std::string("activations/") + dialect);
    // silu, sigmoid, tanh, gelu(tanh) after linear; hardswish, hardsigmoid, relu after conv;
    // relu after mm (core IR; the training IR's aten::matmul is not a fusable producer)
    const size_t want = std::string(dialect) == "core" ? 8 : 7;
    EXPECT_EQ(expect_fused_matches(testing::fixture_dir() + "/fusion", f).groups, want);
  }
}

TEST(Fusion, NotFusedWhenAnIntermediateEscapes) {
  const nlohmann::json m = fusion_manifest();
  for (const char* dir : {"escape/training", "escape/core", "shared/training", "shared/core"}) {
    SCOPED_TRACE(dir);
    EXPECT_EQ(expect_fused_matches(testing::fixture_dir() + "/fusion", find_fixture(m, dir)).groups,
              0u);
  }
}

TEST(Fusion, ProfileNamesTheEpilogue) {
  const std::string dir = testing::fixture_dir() + "/gpt2/core";
  TempDir tmp;
  auto session = testing::open_fixture(dir, tmp);
  ASSERT_TRUE(session.ok()) << session.status().message();
  Profiler profiler;
  ASSERT_TRUE((*session)->set_profiler(&profiler).ok());
  const auto f = find_fixture(testing::manifest(), "gpt2/core");
  const auto inputs = read_all(dir, f["inputs"]);
  ASSERT_TRUE((*session)->run(views(inputs)).ok());
  size_t fused = 0;
  for (const ProfileEvent& e : profiler.events()) {
    fused += e.op == "aten::addmm+gelu_tanh";
    EXPECT_NE(e.op, "aten::tanh") << "a fused node ran on its own";
  }
  EXPECT_EQ(fused, 2u);
  ASSERT_TRUE((*session)->set_profiler(nullptr).ok());
}

TEST(Fusion, WeightSwapRepreparesFusedNodes) {
  const nlohmann::json f = find_fixture(fusion_manifest(), "activations/core");
  const std::string dir = testing::fixture_dir() + "/fusion/activations/core";
  TempDir tmp;
  auto session = testing::open_fixture(dir, tmp);
  ASSERT_TRUE(session.ok()) << session.status().message();
  const auto inputs = read_all(dir, f["inputs"]);
  const auto expected = read_all(dir, f["outputs"]);
  ASSERT_TRUE((*session)->run(views(inputs)).ok());
  // The same values at new addresses: every fused conv re-prepares (repacks its weights).
  auto again = WeightSet::open(tmp.file("m.bin"));
  ASSERT_TRUE(again.ok()) << again.status().message();
  ASSERT_TRUE((*session)->swap_weights(std::move(*again)).ok());
  auto outputs = (*session)->run(views(inputs));
  ASSERT_TRUE(outputs.ok()) << outputs.status().message();
  EXPECT_EQ((*session)->num_fused_groups(), 8u);
  for (size_t k = 0; k < expected.size(); ++k)
    EXPECT_TRUE(testing::all_close((*outputs)[k], expected[k].view(), f["rtol"], f["atol"]));
}

/// A partial weight set (an in-memory safetensors file) holding, for every float32 tensor of
/// `base` whose name ends in `suffix`, its values times `scale`; overlaid on `base` it
/// replaces those tensors only: every other tensor keeps its address.
std::shared_ptr<const WeightSet> scaled_delta(const WeightSet& base, std::string_view suffix,
                                              float scale) {
  nlohmann::json header = nlohmann::json::object();
  std::vector<float> data;
  for (size_t i = 0; i < base.size(); ++i) {
    const std::string& name = base.names()[i];
    const Tensor& t = base.tensor(i);
    if (!name.ends_with(suffix) || t.dtype != DType::kFloat32) continue;
    const size_t at = data.size() * sizeof(float);
    for (int64_t k = 0; k < t.numel(); ++k) data.push_back(t.data_as<const float>()[k] * scale);
    header[name] = {{"dtype", "F32"},
                    {"shape", t.shape()},
                    {"data_offsets", {at, data.size() * sizeof(float)}}};
  }
  EXPECT_FALSE(header.empty()) << "no weight named *" << suffix;
  const std::string text = header.dump();
  std::vector<uint8_t> bytes(8 + text.size() + data.size() * sizeof(float));
  const uint64_t n = text.size();
  std::memcpy(bytes.data(), &n, 8);  // little-endian length
  std::memcpy(bytes.data() + 8, text.data(), text.size());
  std::memcpy(bytes.data() + 8 + text.size(), data.data(), data.size() * sizeof(float));
  auto set = WeightSet::from_source(data_source_from_buffer(std::move(bytes), "delta"));
  EXPECT_TRUE(set.ok()) << set.status().message();
  return set.ok() ? *set : nullptr;
}

// conv+BN+relu, depthwise conv(bias=False)+BN+hardswish, 1x1 conv(bias=False)+BN, grouped
// conv+BN(affine=False)+relu: four groups, and the fused run calls the four convs only.
TEST(FusionBatchNorm, FoldsIntoConvAndMatchesTorch) {
  const nlohmann::json m = fusion_manifest();
  for (const char* dialect : {"training", "core"}) {
    SCOPED_TRACE(dialect);
    const nlohmann::json f = find_fixture(m, std::string("conv_bn/") + dialect);
    const FusionRun fused = expect_fused_matches(testing::fixture_dir() + "/fusion", f);
    EXPECT_EQ(fused.groups, 4u);
    EXPECT_EQ(fused.calls, 4u) << "a batch norm or activation ran on its own";
  }
}

TEST(FusionBatchNorm, NotFoldedWhenTheConvOutputEscapes) {
  const nlohmann::json m = fusion_manifest();
  for (const char* dir : {"conv_bn_escape/training", "conv_bn_escape/core"}) {
    SCOPED_TRACE(dir);
    EXPECT_EQ(expect_fused_matches(testing::fixture_dir() + "/fusion", find_fixture(m, dir)).groups,
              0u);
  }
}

TEST(FusionBatchNorm, ProfileNamesTheFoldedNorm) {
  const nlohmann::json f = find_fixture(fusion_manifest(), "conv_bn/training");
  const std::string dir = testing::fixture_dir() + "/fusion/conv_bn/training";
  TempDir tmp;
  auto session = testing::open_fixture(dir, tmp);
  ASSERT_TRUE(session.ok()) << session.status().message();
  Profiler profiler;
  ASSERT_TRUE((*session)->set_profiler(&profiler).ok());
  const auto inputs = read_all(dir, f["inputs"]);
  ASSERT_TRUE((*session)->run(views(inputs)).ok());
  std::vector<std::string> ops;
  for (const ProfileEvent& e : profiler.events()) ops.emplace_back(e.op);
  EXPECT_EQ(ops, (std::vector<std::string>{
                     "aten::conv2d+batch_norm+relu", "aten::conv2d+batch_norm+hardswish",
                     "aten::conv2d+batch_norm", "aten::conv2d+batch_norm+relu"}));
  ASSERT_TRUE((*session)->set_profiler(nullptr).ok());
}

// A swap that changes only the norms' running_var (an overlay: the conv weights and the
// norms' other tensors keep their addresses) must fold again: the swapped session computes
// what a fresh one does.
TEST(FusionBatchNorm, SwapOfOnlyTheNormStatisticsFoldsAgain) {
  const nlohmann::json m = fusion_manifest();
  for (const char* dialect : {"training", "core"}) {
    SCOPED_TRACE(dialect);
    const nlohmann::json f = find_fixture(m, std::string("conv_bn/") + dialect);
    const std::string dir = testing::fixture_dir() + "/fusion/" + f["dir"].get<std::string>();
    TempDir tmp;
    ASSERT_NO_FATAL_FAILURE(import_fixture(dir, tmp));
    const auto inputs = read_all(dir, f["inputs"]);
    auto model = data_source_mmap(tmp.file("m.tir"));
    auto base = WeightSet::open(tmp.file("m.bin"));
    ASSERT_TRUE(model.ok() && base.ok());
    const std::shared_ptr<const WeightSet> delta = scaled_delta(**base, "running_var", 3.0f);
    ASSERT_NE(delta, nullptr);
    auto changed = WeightSet::overlay(*base, {&delta, 1});
    ASSERT_TRUE(changed.ok()) << changed.status().message();
    EXPECT_EQ((*changed)->num_replaced(), 4u);

    auto session = Session::create(*model, *base);
    ASSERT_TRUE(session.ok()) << session.status().message();
    auto before = (*session)->run(views(inputs));
    ASSERT_TRUE(before.ok()) << before.status().message();
    const std::vector<HostTensor> original = testing::copies(*before);
    ASSERT_TRUE((*session)->swap_weights(*changed).ok());
    auto swapped = (*session)->run(views(inputs));
    ASSERT_TRUE(swapped.ok()) << swapped.status().message();
    const std::vector<HostTensor> got = testing::copies(*swapped);

    auto fresh = Session::create(*model, *changed);
    ASSERT_TRUE(fresh.ok()) << fresh.status().message();
    auto want = (*fresh)->run(views(inputs));
    ASSERT_TRUE(want.ok()) << want.status().message();
    EXPECT_EQ((*fresh)->num_fused_groups(), 4u);
    ASSERT_EQ(got.size(), want->size());
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_TRUE(testing::all_close(got[k].view(), (*want)[k], 1e-6, 1e-6)) << "output " << k;
      EXPECT_FALSE(testing::all_close(got[k].view(), original[k].view(), 1e-2, 1e-2))
          << "the new running_var must change output " << k;
    }
  }
}

/// The profile's op labels of one run of fixture `dir` (under fixtures/fusion), fused.
std::vector<std::string> fused_ops(const std::string& dir) {
  const nlohmann::json f = find_fixture(fusion_manifest(), dir);
  const std::string path = testing::fixture_dir() + "/fusion/" + dir;
  TempDir tmp;
  if (!import_fixture(path, tmp)) return {};
  auto session = Session::open(tmp.file("m.tir"), tmp.file("m.bin"));
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return {};
  Profiler profiler;
  EXPECT_TRUE((*session)->set_profiler(&profiler).ok());
  const auto inputs = read_all(path, f["inputs"]);
  EXPECT_TRUE((*session)->run(views(inputs)).ok());
  std::vector<std::string> ops;
  for (const ProfileEvent& e : profiler.events()) ops.emplace_back(e.op);
  EXPECT_TRUE((*session)->set_profiler(nullptr).ok());
  return ops;
}

// Two ResNet BasicBlocks (downsampling, then plain; add_ + relu_ in the training IR) and a
// MobileNetV3 inverted residual (x + project conv + BN, no activation): every add (+ relu)
// runs inside the conv before it, so the fused run calls the convs only.
TEST(FusionResidual, FoldsTheAddIntoTheConvAndMatchesTorch) {
  const nlohmann::json m = fusion_manifest();
  for (const auto& [model, convs] : {std::pair{"residual_block", 5u}, {"inverted_residual", 3u}})
    for (const char* dialect : {"training", "core"}) {
      SCOPED_TRACE(std::string(model) + "/" + dialect);
      const nlohmann::json f = find_fixture(m, std::string(model) + "/" + dialect);
      const FusionRun fused = expect_fused_matches(testing::fixture_dir() + "/fusion", f);
      EXPECT_EQ(fused.groups, convs);
      EXPECT_EQ(fused.calls, convs) << "an add or activation ran on its own";
    }
}

// The downsampling block computes its identity (1x1 conv + BN) after conv2 + bn2: that
// group runs at the add's place, once the identity exists.
TEST(FusionResidual, ProfileNamesTheAddAndRunsAfterTheIdentity) {
  for (const auto& [dialect, conv] :
       {std::pair{"training", "aten::conv2d"}, std::pair{"core", "aten::convolution"}}) {
    SCOPED_TRACE(dialect);
    const std::string c = conv;
    EXPECT_EQ(fused_ops(std::string("residual_block/") + dialect),
              (std::vector<std::string>{c + "+batch_norm+relu", c + "+batch_norm",
                                        c + "+batch_norm+add+relu", c + "+batch_norm+relu",
                                        c + "+batch_norm+add+relu"}));
  }
  EXPECT_EQ(fused_ops("inverted_residual/core"),
            (std::vector<std::string>{"aten::convolution+batch_norm+relu",
                                      "aten::convolution+batch_norm+hardswish",
                                      "aten::convolution+batch_norm+add"}));
}

// relu(bn(conv(x)) + x) where bn(conv(x)) is also returned, and relu(conv(x) + shift) with
// shift [C, 1, 1] (broadcast): neither add is absorbed (the first conv still folds its BN).
TEST(FusionResidual, NotFoldedWhenTheSumEscapesOrBroadcasts) {
  const nlohmann::json m = fusion_manifest();
  for (const char* dialect : {"training", "core"}) {
    SCOPED_TRACE(dialect);
    const std::string dir = std::string("residual_no_fuse/") + dialect;
    const FusionRun fused =
        expect_fused_matches(testing::fixture_dir() + "/fusion", find_fixture(m, dir));
    EXPECT_EQ(fused.groups, 1u);
    EXPECT_EQ(fused.calls, 6u);  // conv + BN, add, relu, conv, add, relu
    for (const std::string& op : fused_ops(dir)) EXPECT_EQ(op.find("+add"), std::string::npos);
  }
}

/// run_conv's tensors: x, weight, bias, the norm's weight, bias, mean, var, the residual.
std::vector<std::vector<float>> conv_data() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  const auto random = [&](size_t n, float lo, float hi) {
    std::vector<float> v(n);
    for (float& x : v) x = lo + (hi - lo) * (u(rng) + 1.f) / 2.f;
    return v;
  };
  return {random(2 * 6 * 7 * 7, -1, 1),
          random(6 * 3 * 9, -1, 1),
          random(6, -1, 1),
          random(6, -2, 2),
          random(6, -1, 1),
          random(6, -1, 1),
          random(6, 0.2f, 2),
          random(2 * 6 * 7 * 7, -2, 2)};
}

/// One grouped conv2d (x [2, 6, 7, 7], weight [6, 3, 3, 3], groups 2, bias) run by the
/// registered kernel `impl`, with `bn` folded (its four tensors after the conv's three inputs)
/// and `act`, and a residual [2, 6, 7, 7] added (after them) when `with_residual`. Weights
/// have their bytes during prepare (as frozen weights do) when `weights_at_prepare`, else
/// only at run.
std::vector<float> run_conv(kernels::KernelImpl impl, bool with_bn,
                            std::optional<kernels::ops::UnaryKind> act, bool weights_at_prepare,
                            bool with_residual = false) {
  std::vector<std::vector<float>> data = conv_data();
  const std::vector<std::vector<int64_t>> shapes = {{2, 6, 7, 7}, {6, 3, 3, 3}, {6}, {6},
                                                    {6},          {6},          {6}, {2, 6, 7, 7}};
  std::vector<size_t> which = {0, 1, 2};  // data/shapes entries, in input order
  if (with_bn) which.insert(which.end(), {3, 4, 5, 6});
  if (with_residual) which.push_back(7);
  std::vector<Tensor> in(which.size());
  for (size_t k = 0; k < in.size(); ++k) {
    in[k] = make_tensor(DType::kFloat32, shapes[which[k]], data[which[k]].data());
    if (k == 0 || which[k] == 7 || !weights_at_prepare) in[k].data = nullptr;
  }
  const int64_t one[] = {1, 1};
  std::vector<kernels::Arg> args(7);
  for (int k = 0; k < 3; ++k) args[k] = {kernels::ArgKind::kTensor, k};
  for (int k = 3; k < 6; ++k) args[k] = {kernels::ArgKind::kInts, 0, 0, one};
  args[6] = {kernels::ArgKind::kInt, 2};
  std::vector<Tensor> out(1);
  kernels::KernelCall call{"aten::conv2d", "conv", args, in, out};
  call.epilogue = act;
  if (with_bn) call.batch_norm = {3, 4, 5, 6, 1e-3};
  if (with_residual) call.residual = int(in.size() - 1);
  const kernels::KernelEntry* e = kernels::KernelRegistry::global().find_exact(
      "aten::conv2d", DeviceType::kCpu, DType::kFloat32, impl);
  EXPECT_NE(e, nullptr);
  if (!e) return {};
  auto kernel = e->factory();
  kernels::PrepareInfo info;
  const Status st = kernel->prepare(call, &info);
  EXPECT_TRUE(st.ok()) << st.message();
  if (!st.ok()) return {};
  for (size_t k = 0; k < in.size(); ++k) in[k].data = data[which[k]].data();
  std::vector<float> y(size_t(out[0].numel()));
  out[0].data = y.data();
  std::vector<uint64_t> scratch(info.scratch_bytes / 8 + 16);
  void* aligned =
      reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t{63});
  const Status ran = kernel->run(call, aligned);
  EXPECT_TRUE(ran.ok()) << ran.message();
  if (with_bn || with_residual || act) return y;
  // No fold asked: apply the norm here, by its definition, for the comparison below.
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 6; ++c)
      for (int64_t i = 0; i < 49; ++i) {
        float& v = y[(n * 6 + c) * 49 + i];
        v = float((v - data[5][c]) / std::sqrt(double(data[6][c]) + 1e-3) * data[3][c] +
                  data[4][c]);
      }
  return y;
}

// The reference kernel (used where oneDNN is not) folds the same norm the oneDNN kernel does,
// with or without the weights' bytes at prepare, and both equal conv, then batch norm.
TEST(FusionBatchNorm, ReferenceAndOneDnnKernelsFoldAlike) {
  using kernels::KernelImpl;
  using kernels::ops::UnaryKind;
  const std::vector<float> want = run_conv(KernelImpl::kReference, false, std::nullopt, true);
  ASSERT_FALSE(want.empty());
  for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized})
    for (bool at_prepare : {true, false}) {
      SCOPED_TRACE(std::string(impl == KernelImpl::kReference ? "reference" : "onednn") +
                   (at_prepare ? ", weights at prepare" : ", weights at run"));
      const std::vector<float> got = run_conv(impl, true, std::nullopt, at_prepare);
      const std::vector<float> relu = run_conv(impl, true, UnaryKind::kRelu, at_prepare);
      ASSERT_EQ(got.size(), want.size());
      ASSERT_EQ(relu.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << i;
        ASSERT_NEAR(relu[i], std::max(want[i], 0.f), 1e-4 * (1 + std::abs(want[i]))) << i;
      }
    }
}

// Both kernels add the residual after the folded norm and before the activation:
// relu(bn(conv(x)) + r), with the weights' bytes at prepare or only at run.
TEST(FusionResidual, ReferenceAndOneDnnKernelsAddTheResidualAlike) {
  using kernels::KernelImpl;
  using kernels::ops::UnaryKind;
  std::vector<float> want = run_conv(KernelImpl::kReference, false, std::nullopt, true);
  const std::vector<float> residual = conv_data().back();
  ASSERT_EQ(want.size(), residual.size());
  for (size_t i = 0; i < want.size(); ++i) want[i] += residual[i];
  for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized})
    for (bool at_prepare : {true, false}) {
      SCOPED_TRACE(std::string(impl == KernelImpl::kReference ? "reference" : "onednn") +
                   (at_prepare ? ", weights at prepare" : ", weights at run"));
      const std::vector<float> sum = run_conv(impl, true, std::nullopt, at_prepare, true);
      const std::vector<float> relu = run_conv(impl, true, UnaryKind::kRelu, at_prepare, true);
      ASSERT_EQ(sum.size(), want.size());
      ASSERT_EQ(relu.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(sum[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << i;
        ASSERT_NEAR(relu[i], std::max(want[i], 0.f), 1e-4 * (1 + std::abs(want[i]))) << i;
      }
    }
}

}  // namespace
}  // namespace tir
