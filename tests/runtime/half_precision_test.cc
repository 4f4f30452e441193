// float16 and bfloat16 programs (runtime/passes/narrow_dtypes.h) on the gen_half.py fixtures:
// the pass leaves element moves (embedding, views) in the program's dtype and widens only what
// computes; the weights stay half-precision in memory, from a tir weight file or straight
// from a safetensors file of F16/BF16 tensors (no widening, no owned copy).
#include <gtest/gtest.h>

#include <cstring>

#include "kernels/ops/catalogue.h"
#include "kernels/registry.h"
#include "runtime/exec/lowered_method.h"
#include "runtime/exec/session.h"
#include "runtime/passes/narrow_dtypes.h"
#include "runtime/weights/safetensors_writer.h"
#include "tests/runtime/exec_fixture.h"
#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using testing::LoadedModel;

bool is_half(DType d) { return d == DType::kFloat16 || d == DType::kBFloat16; }

class HalfProgram : public ::testing::TestWithParam<const char*> {};

TEST_P(HalfProgram, OnlyComputeIsWidenedAndRoundedBack) {
  LoadedModel m;
  ASSERT_NO_FATAL_FAILURE(testing::load_model(std::string("half/") + GetParam(), &m));
  auto g = exec_graph_lower(*m.view, *m.forward);
  ASSERT_TRUE(g.ok()) << g.status().message();
  const size_t before = g->nodes.size();
  const size_t widened = compute_narrow_dtypes_wide(*g);
  EXPECT_GT(widened, 0u);
  EXPECT_GT(g->nodes.size(), before + widened);  // at least one cast in and one out per node
  size_t embeddings = 0;
  for (const ExecNode& n : g->nodes) {
    const kernels::OpRow* row = kernels::find_op_row(n.op);
    ASSERT_NE(row, nullptr) << n.op;
    bool reads_half = false;
    for (int32_t v : n.inputs)
      reads_half |= v >= 0 && g->values[v].is_tensor && is_half(g->values[v].dtype);
    if (n.op == "aten::embedding") {
      ++embeddings;
      EXPECT_TRUE(reads_half) << "the embedding gathers half-precision rows as they are";
    }
    // What still reads a half-precision tensor moves or casts elements, or lists the dtype.
    if (reads_half)
      EXPECT_TRUE(row->caps.all_dtypes || n.op == "aten::embedding") << n.op << " " << n.name;
  }
  if (std::string(GetParam()).starts_with("gpt2")) EXPECT_EQ(embeddings, 2u);  // wte, wpe
}

TEST_P(HalfProgram, WeightsStayHalfFromTirAndSafetensorsFiles) {
  LoadedModel m;
  ASSERT_NO_FATAL_FAILURE(testing::load_model(std::string("half/") + GetParam(), &m));
  const std::string want_dtype =
      std::string(GetParam()).find("bfloat16") != std::string::npos ? "bfloat16" : "float16";
  // Every float weight is stored and mapped in the program's dtype: nothing widened or owned.
  std::vector<SafetensorsEntry> entries;
  size_t half_bytes = 0;
  for (size_t i = 0; i < m.weights->size(); ++i) {
    const Tensor& t = m.weights->tensor(i);
    if (dtype_is_float(t.dtype)) {
      EXPECT_EQ(dtype_name(t.dtype), want_dtype) << m.weights->names()[i];
      half_bytes += t.nbytes();
    }
    entries.push_back({m.weights->names()[i],
                       t.dtype,
                       std::vector<int64_t>(t.shape().begin(), t.shape().end()),
                       {static_cast<const uint8_t*>(t.data), t.nbytes()}});
  }
  EXPECT_GT(half_bytes, 0u);
  EXPECT_EQ(m.weights->owned_bytes(), 0u);
  const std::string st = m.tmp.file("w.safetensors");
  ASSERT_TRUE(safetensors_write(st, entries).ok());
  auto from_st = WeightSet::open(st);
  ASSERT_TRUE(from_st.ok()) << from_st.status().message();
  EXPECT_EQ((*from_st)->owned_bytes(), 0u);  // F16/BF16 bytes bound where they lie

  // Both weight files give the same bytes out, close to torch's.
  const nlohmann::json f = testing::fixture_entry(GetParam(), "half/manifest.json");
  const auto inputs = testing::read_all(m.dir, f["inputs"]);
  const auto expected = testing::read_all(m.dir, f["outputs"]);
  std::vector<std::vector<uint8_t>> first;
  for (const auto& weights : {m.weights, *from_st}) {
    auto s = Session::create(m.bytes, weights);
    ASSERT_TRUE(s.ok()) << s.status().message();
    auto out = (*s)->run(testing::views(inputs));
    ASSERT_TRUE(out.ok()) << out.status().message();
    ASSERT_EQ(out->size(), expected.size());
    for (size_t k = 0; k < out->size(); ++k) {
      const Tensor& t = (*out)[k];
      EXPECT_EQ(dtype_name(t.dtype), want_dtype);
      EXPECT_TRUE(testing::all_close(t, expected[k].view(), f["rtol"], f["atol"]));
      const auto* b = static_cast<const uint8_t*>(t.data);
      if (first.size() <= k) {
        first.emplace_back(b, b + t.nbytes());
      } else {
        EXPECT_EQ(std::memcmp(first[k].data(), b, t.nbytes()), 0) << "output " << k;
      }
    }
  }
}

// After placement the CPU's GEMMs read their half-precision weights as stored
// (read_half_weights_as_stored): no float32 copy of a GEMM weight is made, per run or once.
TEST_P(HalfProgram, GemmsReadHalfWeightsAsStored) {
  LoadedModel m;
  ASSERT_NO_FATAL_FAILURE(testing::load_model(std::string("half/") + GetParam(), &m));
  auto lowered = LoweredMethod::create(*m.view, *m.forward, {});
  ASSERT_TRUE(lowered.ok()) << lowered.status().message();
  const ExecGraph& g = (*lowered)->graph();
  size_t gemms = 0;
  for (const ExecNode& n : g.nodes) {
    for (int32_t v : n.inputs) {
      const ExecValue& in = g.values[v];
      if (in.weight < 0 || !is_half(in.dtype)) continue;
      if (n.op == "aten::_to_copy") {  // what is still widened is no GEMM's B (a bias may be)
        for (const ExecNode& user : g.nodes)
          for (size_t k = 0; k < user.args.size() && k < 8; ++k)
            if ((user.kernel->caps.half_weight >> k & 1u) != 0)
              EXPECT_NE(user.inputs[size_t(user.args[k].i)], n.outputs[0]) << user.name;
      }
      if (n.kernel != nullptr && n.kernel->caps.half_weight != 0 && in.ir->sizes() != nullptr &&
          in.ir->sizes()->size() == 2)
        ++gemms;
    }
  }
  EXPECT_GT(gemms, 0u);
}

INSTANTIATE_TEST_SUITE_P(Families, HalfProgram,
                         ::testing::Values("gpt2_bfloat16/core", "gpt2_float16/training",
                                           "vit_bfloat16/training", "llama_float16/core"),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (char& c : s)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return s;
                         });

}  // namespace
}  // namespace tir
