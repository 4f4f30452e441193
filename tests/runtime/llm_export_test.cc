// Decoder-only LLMs exported as transformers exports them for native runtimes
// (tools/export_llm.py, tests/data/gen_llm.py): GPT-2, Llama, Qwen3, Gemma and Phi-3 with a
// static KV cache in non-persistent buffers the program mutates. The cache is session state
// initialised from the program's constants; a prefill and a decode method imported into one
// model share the weights and the cache. Greedy decoding must pick, token for token, what
// transformers' generate() picked, in both IRs (core: index_put + BUFFER_MUTATION outputs;
// training: copy_ / index_copy_ / add_ into the buffers).
#include <gtest/gtest.h>

#include <fstream>

#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using testing::TempDir;

std::string llm_dir() { return testing::fixture_dir() + "/llm"; }

const nlohmann::json& llm_manifest() {
  static const nlohmann::json m = [] {
    std::ifstream f(llm_dir() + "/manifest.json");
    return nlohmann::json::parse(f);
  }();
  return m;
}

struct LlmCase {
  std::string family, dialect;
};

/// The family's programs imported into one model: core has prefill and decode methods,
/// training one prefill method that also decodes (seq 1 is in its range).
struct Llm {
  TempDir tmp;
  std::unique_ptr<Session> prefill, decode;
};

void open_llm(const LlmCase& c, Llm* m, Precision precision = Precision::kFloat32) {
  const std::string dir = llm_dir() + "/" + c.family + "/" + c.dialect + "/";
  importer::ImportOptions o;
  o.methods = {{"prefill", dir + "prefill.pt2"}};
  if (c.dialect == "core") o.methods.push_back({"decode", dir + "decode.pt2"});
  o.model_path = m->tmp.file("llm.tir");
  o.weights_path = m->tmp.file("llm.bin");
  auto imported = importer::import_pt2(o);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  SessionOptions so;
  so.method = "prefill";
  so.precision = precision;
  auto prefill = Session::open(o.model_path, o.weights_path, so);
  ASSERT_TRUE(prefill.ok()) << prefill.status().message();
  m->prefill = std::move(*prefill);
  so.method = c.dialect == "core" ? "decode" : "prefill";
  so.state = m->prefill->state();  // one cache for both methods
  auto decode = Session::open(o.model_path, o.weights_path, so);
  ASSERT_TRUE(decode.ok()) << decode.status().message();
  m->decode = std::move(*decode);
}

/// Greedy: the prompt, then one token at a time; the tokens picked.
std::vector<int64_t> generate(Llm& m, std::vector<int64_t> prompt, size_t new_tokens,
                              std::vector<float>* prompt_logits) {
  std::vector<int64_t> positions(prompt.size());
  for (size_t k = 0; k < prompt.size(); ++k) positions[k] = int64_t(k);
  const int64_t n = int64_t(prompt.size());
  auto out = m.prefill->run(
      std::vector<Tensor>{make_tensor(DType::kInt64, std::vector<int64_t>{1, n}, prompt.data()),
                          make_tensor(DType::kInt64, std::vector<int64_t>{n}, positions.data())});
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return {};
  const Tensor& logits = (*out)[0];
  const int64_t vocab = logits.shape().back();
  const float* last = static_cast<const float*>(logits.data) + logits.numel() - vocab;
  prompt_logits->assign(last, last + vocab);
  std::vector<int64_t> tokens = {testing::last_argmax(logits)};
  while (tokens.size() < new_tokens) {
    int64_t token = tokens.back(), position = n + int64_t(tokens.size()) - 1;
    auto step = m.decode->run(
        std::vector<Tensor>{make_tensor(DType::kInt64, std::vector<int64_t>{1, 1}, &token),
                            make_tensor(DType::kInt64, std::vector<int64_t>{1}, &position)});
    EXPECT_TRUE(step.ok()) << step.status().message();
    if (!step.ok()) break;
    tokens.push_back(testing::last_argmax((*step)[0]));
  }
  return tokens;
}

class LlmExport : public ::testing::TestWithParam<LlmCase> {};

TEST_P(LlmExport, GreedyTokensEqualTransformersGenerate) {
  const nlohmann::json& mf = llm_manifest();
  nlohmann::json entry;
  for (const auto& f : mf["families"])
    if (f["family"] == GetParam().family) entry = f;
  ASSERT_FALSE(entry.is_null());
  const auto want = entry["tokens"].get<std::vector<int64_t>>();
  Llm m;
  ASSERT_NO_FATAL_FAILURE(open_llm(GetParam(), &m));
  std::vector<float> logits;
  const auto prompt = mf["prompt"].get<std::vector<int64_t>>();
  EXPECT_EQ(generate(m, prompt, want.size(), &logits), want);
  const auto want_logits = entry["last_logits"].get<std::vector<float>>();
  ASSERT_EQ(logits.size(), want_logits.size());
  for (size_t k = 0; k < logits.size(); ++k)
    EXPECT_NEAR(logits[k], want_logits[k], 1e-4 + 1e-4 * std::abs(want_logits[k])) << k;
  EXPECT_GT(m.prefill->state()->size(), 0u) << "the cache must live in the session state";
  // The cache is written in place (runtime/passes/state_update.h), never copied whole per token.
  for (const Session* s : {m.prefill.get(), m.decode.get()}) {
    size_t in_place = 0;
    for (const ExecNode& n : s->exec_graph().nodes) {
      EXPECT_NE(n.op, "aten::index_put") << n.name << " copies a whole buffer";
      in_place += n.op == "aten::index_put_" || n.op == "aten::index_copy_";
    }
    EXPECT_GT(in_place, 0u);
  }

  // A new conversation: reset the state and the same prompt gives the same tokens.
  ASSERT_TRUE(m.prefill->reset_state().ok());
  EXPECT_EQ(generate(m, prompt, 4, &logits), std::vector<int64_t>(want.begin(), want.begin() + 4));
}

// Decoding without the prompt's cache (the state reset after the prompt) gives other logits:
// the cache is what carries the prompt, and the test above can fail.
TEST_P(LlmExport, DecodeWithoutThePromptsCacheDiffers) {
  Llm m;
  ASSERT_NO_FATAL_FAILURE(open_llm(GetParam(), &m));
  std::vector<float> logits;
  const auto prompt = llm_manifest()["prompt"].get<std::vector<int64_t>>();
  const auto tokens = generate(m, prompt, 1, &logits);
  ASSERT_EQ(tokens.size(), 1u);
  int64_t token = tokens[0], position = int64_t(prompt.size());
  const std::vector<Tensor> step = {make_tensor(DType::kInt64, std::vector<int64_t>{1, 1}, &token),
                                    make_tensor(DType::kInt64, std::vector<int64_t>{1}, &position)};
  auto with_cache = m.decode->run(step);
  ASSERT_TRUE(with_cache.ok()) << with_cache.status().message();
  const std::vector<HostTensor> want = testing::copies(*with_cache);
  ASSERT_TRUE(m.prefill->reset_state().ok());  // the decode session shares it: empty caches
  auto without = m.decode->run(step);
  ASSERT_TRUE(without.ok()) << without.status().message();
  EXPECT_FALSE(testing::all_close((*without)[0], want[0].view(), 1e-3, 1e-3));
}

/// The prompt's logits from the prefill session.
std::vector<float> prompt_logits(Llm& m) {
  const auto prompt = llm_manifest()["prompt"].get<std::vector<int64_t>>();
  std::vector<float> logits;
  generate(m, prompt, 1, &logits);
  return logits;
}

// The core IR's mm(x, permute(W)) / addmm(b, x, permute(W)) run as linear(x, W[, b])
// (runtime/passes/linear_rewrite.h), so int8 weights apply to them as to the training IR's
// linear: core and training int8 logits are the same computation, and differ from float32.
TEST(LlmExportCore, WeightGemmsRunAsLinearSoInt8Applies) {
  for (const char* family : {"llama", "qwen3", "phi3"}) {
    SCOPED_TRACE(family);
    Llm core, core_int8, training_int8;
    ASSERT_NO_FATAL_FAILURE(open_llm({family, "core"}, &core));
    ASSERT_NO_FATAL_FAILURE(open_llm({family, "core"}, &core_int8, Precision::kInt8));
    ASSERT_NO_FATAL_FAILURE(open_llm({family, "training"}, &training_int8, Precision::kInt8));
    size_t linear = 0;
    for (const ExecNode& n : core.prefill->exec_graph().nodes) {
      linear += n.op == "aten::linear";
      EXPECT_NE(n.op, "aten::mm") << n.name << ": a GEMM on a weight left as mm";
    }
    EXPECT_GT(linear, 0u);
    const auto f32 = prompt_logits(core), a = prompt_logits(core_int8),
               b = prompt_logits(training_int8);
    ASSERT_EQ(a.size(), b.size());
    double int8_vs_int8 = 0, int8_vs_f32 = 0;
    for (size_t k = 0; k < a.size(); ++k) {
      int8_vs_int8 = std::max(int8_vs_int8, double(std::abs(a[k] - b[k])));
      int8_vs_f32 = std::max(int8_vs_f32, double(std::abs(a[k] - f32[k])));
    }
    EXPECT_LT(int8_vs_int8, 1e-4);
    EXPECT_GT(int8_vs_f32, 1e-3) << "the core program did not compute in int8";
  }
}

std::vector<LlmCase> llm_cases() {
  std::vector<LlmCase> out;
  for (const char* family : {"gpt2", "llama", "qwen3", "gemma", "phi3"})
    for (const char* dialect : {"core", "training"}) out.push_back({family, dialect});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Families, LlmExport, ::testing::ValuesIn(llm_cases()),
                         [](const auto& info) {
                           return info.param.family + "_" + info.param.dialect;
                         });

}  // namespace
}  // namespace tir
