// Programs quantized by torch's PT2E flow (tests/data/gen_quant.py: X86InductorQuantizer,
// uint8 per-tensor activations, int8 per-channel weights; one dynamically quantized MLP),
// imported in both IRs and run by tir's reference kernels of the quantized_decomposed ops
// (kernels/reference/quantize_ref.cc) against torch's quantized reference outputs.
//
// Bound: max |tir - torch| <= 1e-2 * max |torch| per output. The quantize ops reproduce
// torch's arithmetic bit for bit, so the only source of difference is the float32 ops between
// them (GEMMs, convolutions, attention summed in another order); a sum that lands on the other
// side of a rounding boundary moves one quantized activation by one step, 1/255 of that
// activation's calibrated range (~4e-3 of it), and a few such steps stay under 1e-2.
// Measured on these fixtures: 0 (bit-identical outputs, printed below).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/runtime/fixture_session.h"
#include "tests/runtime/lowp_util.h"

namespace tir {
namespace {

using testing::copies;
using testing::import_fixture;
using testing::max_abs_diff;
using testing::read_all;
using testing::TempDir;
using testing::views;

constexpr double kQuantTolerance = 1e-2;

std::string quant_dir() { return testing::fixture_dir() + "/quant"; }

nlohmann::json quant_fixture(const std::string& dir) {
  std::ifstream in(quant_dir() + "/manifest.json");
  const nlohmann::json manifest = nlohmann::json::parse(in);
  for (const auto& f : manifest["fixtures"])
    if (f["dir"] == dir) return f;
  ADD_FAILURE() << "no fixture quant/" << dir;
  return {};
}

class QuantImport : public ::testing::TestWithParam<std::string> {};

TEST_P(QuantImport, MatchesTorchQuantizedReference) {
  const nlohmann::json f = quant_fixture(GetParam());
  ASSERT_FALSE(f.is_null());
  // the program really holds torch's quantization ops (else this test proves nothing)
  ASSERT_TRUE(f.contains("other_targets"));
  EXPECT_GT(
      f["other_targets"].value("torch.ops.quantized_decomposed.dequantize_per_channel.default", 0),
      0);
  const std::string dir = quant_dir() + "/" + GetParam();
  TempDir tmp;
  ASSERT_TRUE(import_fixture(dir, tmp));
  auto session = Session::open(tmp.file("m.tir"), tmp.file("m.bin"));
  ASSERT_TRUE(session.ok()) << session.status().message();
  const auto inputs = read_all(dir, f["inputs"]);
  const auto expected = read_all(dir, f["outputs"]);
  auto out = (*session)->run(views(inputs));
  ASSERT_TRUE(out.ok()) << out.status().message();
  const auto got = copies(*out);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    ASSERT_TRUE(got[k].view().same_shape(expected[k].view()));
    const auto [err, scale] = max_abs_diff(got[k].view(), expected[k].view());
    std::printf("[ quant    ] %s output %zu: max|tir-torch| %.3g, max|torch| %.3g\n",
                GetParam().c_str(), k, err, scale);
    EXPECT_LE(err, kQuantTolerance * scale) << "output " << k;
  }
  // PT2E's int8 weights stay int8 in tir's weight file (dequantized by the graph's own op)
  auto set = WeightSet::open(tmp.file("m.bin"));
  ASSERT_TRUE(set.ok()) << set.status().message();
  size_t int8_tensors = 0;
  for (size_t i = 0; i < (*set)->size(); ++i) {
    const Tensor* t = (*set)->find((*set)->names()[i]);
    int8_tensors += t && t->dtype == DType::kInt8;
  }
  EXPECT_GT(int8_tensors, 0u);
}

INSTANTIATE_TEST_SUITE_P(Pt2e, QuantImport,
                         ::testing::Values("mlp/training", "mlp/core", "conv/training", "conv/core",
                                           "gpt2_block/training", "gpt2_block/core",
                                           "mlp_dynamic/training", "mlp_dynamic/core"),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (char& c : s)
                             if (c == '/') c = '_';
                           return s;
                         });

// A quantization op without a kernel (quantize_per_channel of an activation) is refused at
// import with the usual listing of ops that have no kernel, in both IRs.
TEST(QuantImportUnsupported, ListsTheOp) {
  for (const char* dialect : {"training", "core"}) {
    importer::ImportOptions o;
    TempDir tmp;
    o.input = quant_dir() + "/unsupported/" + dialect + "/program.pt2";
    o.model_path = tmp.file("m.tir");
    o.weights_path = tmp.file("m.bin");
    const auto summary = importer::import_pt2(o);
    ASSERT_FALSE(summary.ok()) << dialect;
    EXPECT_NE(summary.status().message().find("quantized_decomposed::quantize_per_channel"),
              std::string::npos)
        << summary.status().message();
    EXPECT_FALSE(std::filesystem::exists(tmp.file("m.tir"))) << "no half-written output";
  }
}

}  // namespace
}  // namespace tir
