// State carried between runs: an LLM with its KV cache in registered buffers, exported as a
// `prefill` and a `decode` program (tests/data/gen_kv_cache.py), imported into one model.
// The prefill session fills the cache, decode sessions sharing its state extend it step by
// step; logits and greedy tokens must equal torch eager's, in both IR dialects (in-place
// `index_copy_` on the buffer / functional `index_put` + BUFFER_MUTATION output), and from
// one archive holding both programs.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using testing::TempDir;

std::string kv_dir() { return testing::fixture_dir() + "/kv_cache"; }

nlohmann::json kv_manifest() {
  std::ifstream f(kv_dir() + "/manifest.json");
  return nlohmann::json::parse(f);
}

HostTensor npy(const std::string& name) {
  auto t = npy_read(kv_dir() + "/" + name + ".npy");
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? std::move(*t) : HostTensor();
}

struct Model {
  TempDir tmp;
  std::shared_ptr<const DataSource> tir;
  std::shared_ptr<const WeightSet> weights;
};

/// "training" / "core": prefill.pt2 + decode.pt2 of that dialect as two methods;
/// "both": core/both.pt2, one archive holding both programs (package_pt2).
void import_dialect(const std::string& dialect, Model* m) {
  importer::ImportOptions o;
  if (dialect == "both") {
    o.methods = {{"ignored", kv_dir() + "/core/both.pt2"}};  // methods named by the archive
  } else {
    const std::string d = kv_dir() + "/" + dialect + "/";
    o.methods = {{"prefill", d + "prefill.pt2"}, {"decode", d + "decode.pt2"}};
  }
  o.model_path = m->tmp.file("llm.tir");
  o.weights_path = m->tmp.file("llm.bin");
  auto r = importer::import_pt2(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->methods.size(), 2u);
  EXPECT_EQ(r->methods[0] == "prefill" ? r->methods[1] : r->methods[0], "decode");
  auto tir = data_source_mmap(o.model_path);
  auto w = WeightSet::open(o.weights_path);
  ASSERT_TRUE(tir.ok() && w.ok());
  m->tir = *tir;
  m->weights = *w;
}

std::unique_ptr<Session> open(const Model& m, const std::string& method,
                              std::shared_ptr<SessionState> state) {
  SessionOptions o;
  o.method = method;
  o.state = std::move(state);
  auto s = Session::create(m.tir, m.weights, o);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(*s) : nullptr;
}

class KvCache : public ::testing::TestWithParam<std::string> {};

TEST_P(KvCache, PrefillThenDecodeStepsMatchTorch) {
  const nlohmann::json mf = kv_manifest();
  const double rtol = mf["rtol"], atol = mf["atol"];
  Model m;
  ASSERT_NO_FATAL_FAILURE(import_dialect(GetParam(), &m));
  auto prefill = open(m, "prefill", nullptr);
  ASSERT_NE(prefill, nullptr);
  auto decode = open(m, "decode", prefill->state());
  ASSERT_NE(decode, nullptr);

  const HostTensor ids = npy("prefill_ids"), pos = npy("prefill_pos");
  const HostTensor want = npy("prefill_logits");
  auto out = prefill->run(std::vector<Tensor>{ids.view(), pos.view()});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(testing::all_close((*out)[0], want.view(), rtol, atol)) << "prefill logits";
  EXPECT_GT(prefill->state()->size(), 0u) << "the caches must live in the state";

  int64_t token = testing::last_argmax((*out)[0]);
  const int steps = mf["steps"];
  for (int i = 0; i < steps; ++i) {
    const std::string step = "decode_" + std::to_string(i);
    EXPECT_EQ(token, mf["decode_tokens"][i].get<int64_t>()) << "greedy token of step " << i;
    HostTensor tok = npy(step + "_ids");
    tok.data<int64_t>()[0] = token;  // tir's own token: equal to torch's when all is well
    const HostTensor p = npy(step + "_pos"), expect = npy(step + "_logits");
    auto r = decode->run(std::vector<Tensor>{tok.view(), p.view()});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_TRUE(testing::all_close((*r)[0], expect.view(), rtol, atol)) << step << " logits";
    token = testing::last_argmax((*r)[0]);
  }

  // A fresh conversation: reset the state, and the prompt gives the prompt's logits again.
  ASSERT_TRUE(prefill->reset_state().ok());
  auto again = prefill->run(std::vector<Tensor>{ids.view(), pos.view()});
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(testing::all_close((*again)[0], want.view(), rtol, atol));
}

// Without the shared state the decode session starts from empty caches: its first step
// cannot match torch's (which attends over the prompt). Shows the test above can fail.
TEST_P(KvCache, DecodeWithoutThePrefillStateDiffers) {
  const nlohmann::json mf = kv_manifest();
  Model m;
  ASSERT_NO_FATAL_FAILURE(import_dialect(GetParam(), &m));
  auto decode = open(m, "decode", nullptr);
  ASSERT_NE(decode, nullptr);
  const HostTensor tok = npy("decode_0_ids"), p = npy("decode_0_pos");
  const HostTensor expect = npy("decode_0_logits");
  auto r = decode->run(std::vector<Tensor>{tok.view(), p.view()});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(testing::all_close((*r)[0], expect.view(), mf["rtol"], mf["atol"]));
}

INSTANTIATE_TEST_SUITE_P(Dialects, KvCache, ::testing::Values("training", "core", "both"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tir
