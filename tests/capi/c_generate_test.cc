// The C ABI's generate loop (tir_generator_*) through libtir, on the transformers LLM fixtures
// (tests/data/gen_llm.py) imported with the built tirc: greedy tokens equal transformers'
// generate() for each family, the callback streams them and can stop, seeded sampling repeats,
// and misuse is a status naming the thing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "include/tir/tir.h"
#include "tests/common/test_util.h"

namespace tir {
namespace {

using testing::TempDir;

nlohmann::json manifest() {
  std::ifstream f(testing::fixture_dir() + "/llm/manifest.json");
  return nlohmann::json::parse(f);
}

/// `family`'s core prefill + decode imported with tirc into tmp/llm.tir + llm.bin.
bool import_llm(const std::string& family, const TempDir& tmp) {
  const char* tirc = std::getenv("TIRC");
  if (!tirc) {
    ADD_FAILURE() << "TIRC is not set";
    return false;
  }
  const std::string dir = testing::fixture_dir() + "/llm/" + family + "/core/";
  const std::string cmd = std::string(tirc) + " import prefill=" + dir +
                          "prefill.pt2 decode=" + dir + "decode.pt2 -o " + tmp.file("llm.tir") +
                          " --weights " + tmp.file("llm.bin") + " > /dev/null";
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << cmd;
  return rc == 0;
}

struct Stream {
  std::vector<int32_t> tokens;
  size_t stop_after = 0;  // 0: never
};

int on_token(int32_t token, void* user) {
  auto* s = static_cast<Stream*>(user);
  s->tokens.push_back(token);
  return s->stop_after == 0 || s->tokens.size() < s->stop_after;
}

TEST(CGenerate, GreedyEqualsTransformersGenerate) {
  const nlohmann::json m = manifest();
  const auto prompt = m["prompt"].get<std::vector<int32_t>>();
  for (const auto& family : m["families"]) {
    SCOPED_TRACE(family["family"].get<std::string>());
    TempDir tmp;
    ASSERT_TRUE(import_llm(family["family"], tmp));
    tir_generator* g = nullptr;
    ASSERT_EQ(
        tir_generator_open(tmp.file("llm.tir").c_str(), tmp.file("llm.bin").c_str(), nullptr, &g),
        TIR_OK)
        << tir_last_error();
    int64_t context = 0;
    ASSERT_EQ(tir_generator_max_context(g, &context), TIR_OK);
    EXPECT_EQ(context, m["max_context"].get<int64_t>());
    tir_generate_options* o = nullptr;
    ASSERT_EQ(tir_generate_options_create(&o), TIR_OK);
    ASSERT_EQ(tir_generate_options_set_max_new_tokens(o, 32), TIR_OK);
    Stream stream;
    const int32_t* tokens = nullptr;
    size_t count = 0;
    ASSERT_EQ(tir_generator_generate(g, prompt.data(), prompt.size(), o, on_token, &stream, &tokens,
                                     &count),
              TIR_OK)
        << tir_last_error();
    const auto want = family["tokens"].get<std::vector<int32_t>>();
    EXPECT_EQ(std::vector<int32_t>(tokens, tokens + count), want);
    EXPECT_EQ(stream.tokens, want);
    tir_generate_stats stats;
    ASSERT_EQ(tir_generator_stats(g, &stats), TIR_OK);
    EXPECT_EQ(stats.prompt_tokens, prompt.size());
    EXPECT_EQ(stats.new_tokens, 32u);
    EXPECT_STREQ(stats.stop, "max_new_tokens");
    EXPECT_GT(stats.decode_tokens_per_s, 0);
    tir_generate_options_free(o);
    tir_generator_free(g);
  }
}

class CGenerateLlama : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(import_llm("llama", tmp_));
    ASSERT_EQ(tir_generator_open(tmp_.file("llm.tir").c_str(), tmp_.file("llm.bin").c_str(),
                                 nullptr, &g_),
              TIR_OK)
        << tir_last_error();
    ASSERT_EQ(tir_generate_options_create(&o_), TIR_OK);
  }
  void TearDown() override {
    tir_generate_options_free(o_);
    tir_generator_free(g_);
  }
  std::vector<int32_t> generate(Stream* s = nullptr) {
    const int32_t* tokens = nullptr;
    size_t n = 0;
    EXPECT_EQ(tir_generator_generate(g_, prompt_.data(), prompt_.size(), o_, s ? on_token : nullptr,
                                     s, &tokens, &n),
              TIR_OK)
        << tir_last_error();
    return std::vector<int32_t>(tokens, tokens + n);
  }
  TempDir tmp_;
  tir_generator* g_ = nullptr;
  tir_generate_options* o_ = nullptr;
  const std::vector<int32_t> prompt_ = manifest()["prompt"].get<std::vector<int32_t>>();
};

TEST_F(CGenerateLlama, CallbackStopsAndEosStops) {
  Stream s;
  s.stop_after = 3;
  const auto three = generate(&s);
  EXPECT_EQ(three.size(), 3u);
  tir_generate_stats stats;
  ASSERT_EQ(tir_generator_stats(g_, &stats), TIR_OK);
  EXPECT_STREQ(stats.stop, "stopped");
  ASSERT_EQ(tir_generate_options_set_eos(o_, &three[1], 1), TIR_OK);
  const auto two = generate();
  EXPECT_EQ(two, std::vector<int32_t>(three.begin(), three.begin() + 2));
  ASSERT_EQ(tir_generator_stats(g_, &stats), TIR_OK);
  EXPECT_STREQ(stats.stop, "eos");
}

TEST_F(CGenerateLlama, SeededSamplingRepeats) {
  ASSERT_EQ(tir_generate_options_set_max_new_tokens(o_, 12), TIR_OK);
  ASSERT_EQ(tir_generate_options_set_sampling(o_, 1.0f, 50, 0.95f, 1.1f, 9), TIR_OK);
  const auto a = generate(), b = generate();
  EXPECT_EQ(a, b);
  ASSERT_EQ(tir_generate_options_set_sampling(o_, 1.0f, 50, 0.95f, 1.1f, 10), TIR_OK);
  EXPECT_NE(generate(), a);
}

TEST_F(CGenerateLlama, MisuseIsAStatusNamingIt) {
  EXPECT_EQ(tir_generate_options_set_sampling(o_, 1.0f, 0, 1.5f, 1.0f, 0), TIR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tir_last_error()).find("top_p"), std::string::npos);
  const int32_t bad[] = {1, 4000};
  EXPECT_EQ(tir_generator_generate(g_, bad, 2, o_, nullptr, nullptr, nullptr, nullptr),
            TIR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tir_last_error()).find("id 4000"), std::string::npos);
  EXPECT_EQ(tir_generator_generate(nullptr, bad, 2, o_, nullptr, nullptr, nullptr, nullptr),
            TIR_INVALID_ARGUMENT);
  EXPECT_EQ(tir_generator_generate(g_, nullptr, 2, o_, nullptr, nullptr, nullptr, nullptr),
            TIR_INVALID_ARGUMENT);
  tir_generator* none = nullptr;
  EXPECT_EQ(tir_generator_open(tmp_.file("nope.tir").c_str(), tmp_.file("llm.bin").c_str(), nullptr,
                               &none),
            TIR_NOT_FOUND);
  EXPECT_NE(std::string(tir_last_error()).find("nope.tir"), std::string::npos);
  EXPECT_EQ(none, nullptr);
}

// A generate on the handle from inside its own callback is refused (it would overwrite the
// tokens the outer call hands out); the outer call's tokens stay right.
struct Reenter {
  tir_generator* g = nullptr;
  const std::vector<int32_t>* prompt = nullptr;
  tir_status inner = TIR_OK;
  std::string message;
};

int reenter(int32_t, void* user) {
  auto* r = static_cast<Reenter*>(user);
  if (r->inner == TIR_OK) {
    r->inner = tir_generator_generate(r->g, r->prompt->data(), r->prompt->size(), nullptr, nullptr,
                                      nullptr, nullptr, nullptr);
    r->message = tir_last_error();
  }
  return 1;
}

TEST_F(CGenerateLlama, OverlappingCallOnOneHandleIsRefused) {
  ASSERT_EQ(tir_generate_options_set_max_new_tokens(o_, 5), TIR_OK);
  const auto want = generate();
  Reenter r{g_, &prompt_};
  const int32_t* tokens = nullptr;
  size_t n = 0;
  ASSERT_EQ(
      tir_generator_generate(g_, prompt_.data(), prompt_.size(), o_, reenter, &r, &tokens, &n),
      TIR_OK)
      << tir_last_error();
  EXPECT_EQ(r.inner, TIR_INVALID_ARGUMENT);
  EXPECT_NE(r.message.find("another generate is running on this handle"), std::string::npos)
      << r.message;
  EXPECT_EQ(std::vector<int32_t>(tokens, tokens + n), want);
}

}  // namespace
}  // namespace tir
