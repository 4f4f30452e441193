// Only the last position of an output (runtime/passes/last_position.h) on the LLM fixtures
// transformers exported (tests/data/gen_llm.py), both IRs: the narrowed prefill returns
// [1, 1, vocab] equal to the last row of the whole program's logits, and the final norm and
// lm_head really compute one row (the slice sits before them, not after).
#include "runtime/passes/last_position.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using testing::TempDir;

struct LastPositionCase {
  std::string family, dialect;
};

class LastPositionTest : public ::testing::TestWithParam<LastPositionCase> {
 protected:
  void SetUp() override {
    const std::string dir =
        testing::fixture_dir() + "/llm/" + GetParam().family + "/" + GetParam().dialect + "/";
    importer::ImportOptions o;
    o.methods = {{"prefill", dir + "prefill.pt2"}};
    o.model_path = tmp_.file("llm.tir");
    o.weights_path = tmp_.file("llm.bin");
    auto imported = importer::import_pt2(o);
    ASSERT_TRUE(imported.ok()) << imported.status().message();
  }

  /// The prefill's logits for a 7-token prompt, in a session of its own (its own cache).
  Tensor prefill_logits(const SessionOptions& options, std::vector<float>* values) {
    SessionOptions so = options;
    so.method = "prefill";
    auto s = Session::open(tmp_.file("llm.tir"), tmp_.file("llm.bin"), so);
    EXPECT_TRUE(s.ok()) << s.status().message();
    if (!s.ok()) return {};
    auto out = testing::run_test_prompt(**s);
    EXPECT_TRUE(out.ok()) << out.status().message();
    if (!out.ok()) return {};
    const Tensor& t = (*out)[0];
    EXPECT_EQ(t.dtype, DType::kFloat32);
    values->assign(static_cast<const float*>(t.data),
                   static_cast<const float*>(t.data) + t.numel());
    if (options.last_position.size() == 1) {  // the declared output says so too
      EXPECT_EQ((*s)->outputs()[0].shape[1], 1);
    }
    return t;
  }

  TempDir tmp_;
};

TEST_P(LastPositionTest, EqualsTheLastRowOfTheWholeLogits) {
  std::vector<float> whole, last;
  const Tensor full = prefill_logits({}, &whole);
  SessionOptions narrowed;
  narrowed.last_position = {{0, -2}};
  const Tensor one = prefill_logits(narrowed, &last);
  ASSERT_EQ(full.rank, 3);
  ASSERT_EQ(one.rank, 3);
  EXPECT_EQ(full.size(1), 7);
  EXPECT_EQ(one.size(1), 1);
  const int64_t vocab = full.size(2);
  ASSERT_EQ(int64_t(last.size()), vocab);
  double worst = 0;
  for (int64_t k = 0; k < vocab; ++k)
    worst = std::max(worst, double(std::abs(last[size_t(k)] - whole[size_t(6 * vocab + k)])));
  EXPECT_LT(worst, 1e-5);  // one row through the GEMMs instead of 7: the same sums
}

TEST_P(LastPositionTest, TheNormAndLmHeadComputeOneRow) {
  auto bytes = read_file(tmp_.file("llm.tir"));
  ASSERT_TRUE(bytes.ok());
  auto view = ir::ModelView::open(*bytes, "llm.tir");
  ASSERT_TRUE(view.ok()) << view.status().message();
  auto g = exec_graph_lower(*view, *view->method("prefill"));
  ASSERT_TRUE(g.ok()) << g.status().message();
  const size_t before = g->nodes.size();
  const LastPosition want[] = {{0, -2}};
  auto narrowed = keep_last_position(*g, want);
  ASSERT_TRUE(narrowed.ok()) << narrowed.status().message();
  // At least the norm's ops and the lm_head GEMM (more where the last layer's MLP follows).
  EXPECT_GE(*narrowed, 3u);
  const size_t slices = g->nodes.size() - before;
  EXPECT_GE(slices, 1u);  // attention mixes positions: the slice is a node somewhere
  const int32_t out = g->outputs[0];
  EXPECT_EQ(g->values[size_t(out)].last_position_dim, 1);
  const auto producer = std::find_if(g->nodes.begin(), g->nodes.end(), [&](const ExecNode& n) {
    return std::find(n.outputs.begin(), n.outputs.end(), out) != n.outputs.end();
  });
  ASSERT_NE(producer, g->nodes.end());
  EXPECT_NE(producer->op, "aten::slice.Tensor") << "only sliced at the end";
  // Every added slice reads a value computed for all positions and keeps the last one.
  for (const ExecNode& n : g->nodes)
    if (n.index < 0 && n.op == "aten::slice.Tensor") {
      EXPECT_EQ(g->values[size_t(n.inputs[0])].last_position_dim, -1);
      EXPECT_GE(g->values[size_t(n.outputs[0])].last_position_dim, 0);
    }
}

TEST_P(LastPositionTest, BadRequestsAreErrors) {
  SessionOptions so;
  so.method = "prefill";
  so.last_position = {{5, -2}};
  auto s = Session::open(tmp_.file("llm.tir"), tmp_.file("llm.bin"), so);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("last position of output 5"), std::string::npos)
      << s.status().message();
  so.last_position = {{0, 7}};
  s = Session::open(tmp_.file("llm.tir"), tmp_.file("llm.bin"), so);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("has no dim 7"), std::string::npos) << s.status().message();
}

std::vector<LastPositionCase> last_position_cases() {
  std::vector<LastPositionCase> out;
  for (const char* family : {"gpt2", "llama", "qwen3", "gemma", "phi3"})
    for (const char* dialect : {"core", "training"}) out.push_back({family, dialect});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Families, LastPositionTest, ::testing::ValuesIn(last_position_cases()),
                         [](const auto& info) {
                           return info.param.family + "_" + info.param.dialect;
                         });

}  // namespace
}  // namespace tir
