// Grouped-query attention read in place (runtime/passes/gqa_attention.h) on the LLM fixtures
// transformers exported (tests/data/gen_llm.py, training IR: 4 query heads over 2 key/value
// heads, 2 layers): every attention reads the cache with enable_gqa instead of a widened copy,
// the copies' nodes are gone, and the logits equal those of the graph left as exported.
// GPT-2 (one kv head per query head) is left as it is. (The core IR decomposes attention into
// bmm and softmax, which this pass does not touch.)
#include "runtime/passes/gqa_attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "runtime/passes/node_match.h"
#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using testing::TempDir;

class GqaAttentionTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string dir = testing::fixture_dir() + "/llm/" + GetParam() + "/training/";
    importer::ImportOptions o;
    o.methods = {{"prefill", dir + "prefill.pt2"}};  // training IR: prefill decodes too
    o.model_path = tmp_.file("llm.tir");
    o.weights_path = tmp_.file("llm.bin");
    auto imported = importer::import_pt2(o);
    ASSERT_TRUE(imported.ok()) << imported.status().message();
  }

  bool grouped() const { return GetParam() != "gpt2"; }

  /// The prefill's logits for a 7-token prompt in a fresh session.
  std::vector<float> prefill_logits(bool fuse) {
    SessionOptions so;
    so.method = "prefill";
    so.fuse = fuse;
    auto s = Session::open(tmp_.file("llm.tir"), tmp_.file("llm.bin"), so);
    EXPECT_TRUE(s.ok()) << s.status().message();
    if (!s.ok()) return {};
    auto out = testing::run_test_prompt(**s);
    EXPECT_TRUE(out.ok()) << out.status().message();
    if (!out.ok()) return {};
    const Tensor& t = (*out)[0];
    return {static_cast<const float*>(t.data), static_cast<const float*>(t.data) + t.numel()};
  }

  TempDir tmp_;
};

TEST_P(GqaAttentionTest, AttentionReadsTheCacheWithoutWidenedCopies) {
  auto bytes = read_file(tmp_.file("llm.tir"));
  ASSERT_TRUE(bytes.ok());
  auto view = ir::ModelView::open(*bytes, "llm.tir");
  ASSERT_TRUE(view.ok()) << view.status().message();
  {
    const char* method = "prefill";
    auto g = exec_graph_lower(*view, *view->method(method));
    ASSERT_TRUE(g.ok()) << g.status().message();
    DefUse du = exec_graph_def_use(*g);
    const size_t rewritten = read_grouped_kv_in_place(*g, du);
    exec_graph_remove_dead(*g);
    EXPECT_EQ(rewritten, grouped() ? 2u : 0u) << method;
    size_t attentions = 0, widened = 0;
    for (const ExecNode& n : g->nodes) {
      if (n.op == "aten::expand" && declared_rank(g->values[size_t(n.outputs[0])]) == 5) ++widened;
      if (n.op != "aten::scaled_dot_product_attention") continue;
      ++attentions;
      const int64_t kv_heads = g->values[size_t(tensor_at(n, 1))].ir->sizes()->Get(1)->value();
      EXPECT_EQ(n.args[7].i, grouped() ? 1 : 0) << method;
      if (grouped()) EXPECT_EQ(kv_heads, 2) << method << ": the cache's own heads";
    }
    EXPECT_EQ(attentions, 2u) << method;
    EXPECT_EQ(widened, 0u) << method;
  }
}

TEST_P(GqaAttentionTest, LogitsEqualTheGraphAsExported) {
  const std::vector<float> as_exported = prefill_logits(/*fuse=*/false);
  const std::vector<float> in_place = prefill_logits(/*fuse=*/true);
  ASSERT_FALSE(as_exported.empty());
  ASSERT_EQ(in_place.size(), as_exported.size());
  double worst = 0;
  for (size_t k = 0; k < in_place.size(); ++k)
    worst = std::max(worst, double(std::abs(in_place[k] - as_exported[k])));
  EXPECT_LT(worst, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Families, GqaAttentionTest,
                         ::testing::Values("gpt2", "llama", "qwen3", "gemma", "phi3"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tir
