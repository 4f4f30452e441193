// Programs quantized by torch's PT2E flow (tests/data/gen_quant.py: X86InductorQuantizer,
// uint8 per-tensor activations, int8 per-channel weights; one dynamically quantized MLP),
// imported in both IRs and run against torch's quantized reference outputs two ways: by
// tir's reference kernels of the quantized_decomposed ops
// (kernels/reference/quantization/quantize.cc) and with the GEMMs on int8 weights rewritten into
// tir's int8 GEMM (runtime/passes/quant_rewrite.h).
//
// Bound: max |tir - torch| <= 1e-2 * max |torch| per output. The quantize ops reproduce
// torch's arithmetic bit for bit, so the only source of difference is the float32 ops between
// them (GEMMs, convolutions, attention summed in another order); a sum that lands on the other
// side of a rounding boundary moves one quantized activation by one step, 1/255 of that
// activation's calibrated range (~4e-3 of it), and a few such steps stay under 1e-2.
// The int8 GEMM path adds float32 rounding of its sums (the integer products are exact).
// Measured on these fixtures: reference path 0 (bit-identical), int8 path <= 2.4e-7 absolute
// (printed below).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "runtime/passes/exec_graph.h"
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

struct QuantCase {
  const char* dir;
  size_t int8_gemms;  // GEMMs runtime/passes/quant_rewrite.h turns into tir::quantized_linear
};

std::ostream& operator<<(std::ostream& os, const QuantCase& c) { return os << c.dir; }

class QuantImport : public ::testing::TestWithParam<QuantCase> {};

size_t count_nodes(const ExecGraph& g, std::string_view op) {
  return size_t(
      std::count_if(g.nodes.begin(), g.nodes.end(), [&](const ExecNode& n) { return n.op == op; }));
}

// Both paths against torch: SessionOptions::fuse on (the int8 GEMM rewrite) and off (every
// quantization op by its reference kernel, a float32 GEMM on dequantized operands); and the
// two paths against each other, within the same bound.
TEST_P(QuantImport, MatchesTorchQuantizedReference) {
  const std::string name = GetParam().dir;
  const nlohmann::json f = quant_fixture(name);
  ASSERT_FALSE(f.is_null());
  // the program really holds torch's quantization ops (else this test proves nothing)
  ASSERT_TRUE(f.contains("other_targets"));
  const size_t dequant_channel =
      f["other_targets"].value("torch.ops.quantized_decomposed.dequantize_per_channel.default", 0);
  ASSERT_GT(dequant_channel, 0u);
  const std::string dir = quant_dir() + "/" + name;
  TempDir tmp;
  ASSERT_TRUE(import_fixture(dir, tmp));
  const auto inputs = read_all(dir, f["inputs"]);
  const auto expected = read_all(dir, f["outputs"]);
  std::vector<HostTensor> got[2];
  for (const bool rewrite : {true, false}) {
    SessionOptions o;
    o.fuse = rewrite;
    auto session = Session::open(tmp.file("m.tir"), tmp.file("m.bin"), o);
    ASSERT_TRUE(session.ok()) << session.status().message();
    const ExecGraph& g = (*session)->exec_graph();
    const size_t int8_gemms = count_nodes(g, "tir::quantized_linear");
    EXPECT_EQ(int8_gemms, rewrite ? GetParam().int8_gemms : 0u);
    // a rewritten GEMM reads the int8 weight itself: its dequantize node is gone
    EXPECT_EQ(count_nodes(g, "quantized_decomposed::dequantize_per_channel"),
              dequant_channel - int8_gemms);
    auto out = (*session)->run(views(inputs));
    ASSERT_TRUE(out.ok()) << out.status().message();
    got[rewrite] = copies(*out);
    ASSERT_EQ(got[rewrite].size(), expected.size());
    for (size_t k = 0; k < expected.size(); ++k) {
      ASSERT_TRUE(got[rewrite][k].view().same_shape(expected[k].view()));
      const auto [err, scale] = max_abs_diff(got[rewrite][k].view(), expected[k].view());
      std::printf("[ quant    ] %s output %zu, %s: max|tir-torch| %.3g, max|torch| %.3g\n",
                  name.c_str(), k, rewrite ? "rewritten" : "reference", err, scale);
      EXPECT_LE(err, kQuantTolerance * scale) << "output " << k << (rewrite ? " (int8)" : "");
    }
  }
  for (size_t k = 0; k < expected.size(); ++k) {
    const auto [err, scale] = max_abs_diff(got[1][k].view(), got[0][k].view());
    EXPECT_LE(err, kQuantTolerance * scale) << "int8 path against reference path, output " << k;
  }
  // Streamed weights have no bytes at prepare: the rewritten GEMMs run their plain loop on
  // torch's dequantized operands instead of oneDNN (kernels/cpu/int8/quantized_linear_onednn.cc)
  SessionOptions streamed;
  streamed.weight_budget = size_t{16} << 20;
  auto session = Session::open(tmp.file("m.tir"), tmp.file("m.bin"), streamed);
  ASSERT_TRUE(session.ok()) << session.status().message();
  auto out = (*session)->run(views(inputs));
  ASSERT_TRUE(out.ok()) << out.status().message();
  for (size_t k = 0; k < expected.size(); ++k) {
    const auto [err, scale] = max_abs_diff((*out)[k], expected[k].view());
    std::printf("[ quant    ] %s output %zu, streamed: max|tir-torch| %.3g\n", name.c_str(), k,
                err);
    EXPECT_LE(err, kQuantTolerance * scale) << "streamed weights, output " << k;
  }
  // PT2E's int8 weights stay int8 in tir's weight file
  auto set = WeightSet::open(tmp.file("m.bin"));
  ASSERT_TRUE(set.ok()) << set.status().message();
  size_t int8_tensors = 0;
  for (size_t i = 0; i < (*set)->size(); ++i) {
    const Tensor* t = (*set)->find((*set)->names()[i]);
    int8_tensors += t && t->dtype == DType::kInt8;
  }
  EXPECT_EQ(int8_tensors, dequant_channel);
}

INSTANTIATE_TEST_SUITE_P(
    Pt2e, QuantImport,
    ::testing::Values(QuantCase{"mlp/training", 2}, QuantCase{"mlp/core", 2},
                      QuantCase{"conv/training", 1}, QuantCase{"conv/core", 1},
                      QuantCase{"gpt2_block/training", 4}, QuantCase{"gpt2_block/core", 4},
                      // dynamic activation scales (.tensor overloads): reference kernels only
                      QuantCase{"mlp_dynamic/training", 0}, QuantCase{"mlp_dynamic/core", 0}),
    [](const auto& info) { return testing::fixture_test_name(info.param.dir); });

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
