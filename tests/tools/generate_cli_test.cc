// `tirrun generate` on the transformers LLM fixtures (gen_llm.py, gen_generate.py): the greedy
// tokens of transformers' generate() from the command line (ids and JSON; text through the
// tokenizer found beside the model), the streamed text and the summary line, seeded sampling
// reproducible, and bad input as one error line.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/common/cli_util.h"

namespace tir::tools {
namespace {

using testing::expect_one_error_line;
using testing::Proc;
using testing::q;
using testing::TempDir;
using testing::tirc;
using testing::tirrun;

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

/// `family`'s core programs imported as tmp/llm.tir + llm.bin; the model arguments.
std::string import_llm(const TempDir& tmp, const std::string& family) {
  const std::string dir = testing::fixture_dir() + "/llm/" + family + "/core/";
  const Proc p =
      tirc("import prefill=" + q(dir + "prefill.pt2") + " decode=" + q(dir + "decode.pt2") +
           " -o " + q(tmp.file("llm.tir")) + " --weights " + q(tmp.file("llm.bin")));
  EXPECT_EQ(p.code, 0) << p.err;
  return "generate " + q(tmp.file("llm.tir")) + " -w " + q(tmp.file("llm.bin"));
}

std::string ids_arg(const nlohmann::json& ids) {
  std::string s;
  for (const auto& id : ids) s += (s.empty() ? "" : ",") + std::to_string(id.get<int>());
  return s;
}

TEST(GenerateCli, JsonTokensEqualTransformersGenerate) {
  const nlohmann::json m = read_json(testing::fixture_dir() + "/llm/manifest.json");
  for (const auto& family : m["families"]) {
    SCOPED_TRACE(family["family"].get<std::string>());
    TempDir tmp;
    const Proc p = tirrun(import_llm(tmp, family["family"]) + " --prompt-ids " +
                          ids_arg(m["prompt"]) + " -n 32 --json");
    ASSERT_EQ(p.code, 0) << p.err;
    const nlohmann::json j = nlohmann::json::parse(p.out);
    EXPECT_EQ(j["tokens"], family["tokens"]);
    EXPECT_EQ(j["prompt_tokens"], m["prompt"].size());
    EXPECT_EQ(j["new_tokens"], 32);
    EXPECT_EQ(j["stop"], "max_new_tokens");
    EXPECT_EQ(j["max_context"], m["max_context"]);
    for (const char* key :
         {"time_to_first_token_ms", "prefill_tokens_per_s", "decode_tokens_per_s"})
      EXPECT_GT(j[key].get<double>(), 0) << key;
  }
}

TEST(GenerateCli, TextStreamsWithTheTokenizerBesideTheModel) {
  const nlohmann::json ref = read_json(testing::fixture_dir() + "/llm/generate.json")["text"];
  TempDir tmp;
  const std::string args = import_llm(tmp, ref["family"]);
  std::filesystem::copy_file(testing::fixture_dir() + "/" + ref["tokenizer"].get<std::string>(),
                             tmp.file("tokenizer.json"));
  const Proc p = tirrun(args + " --prompt " + q(ref["prompt"]) + " -n 32 --ignore-eos");
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(p.out, ref["text"].get<std::string>() + "\n");
  EXPECT_NE(p.err.find("prompt 7 tokens, 32 new (stop: max_new_tokens)"), std::string::npos)
      << p.err;
  EXPECT_NE(p.err.find("decode "), std::string::npos);
  EXPECT_NE(p.err.find(" tokens/s"), std::string::npos);

  const Proc js = tirrun(args + " --prompt " + q(ref["prompt"]) + " -n 32 --ignore-eos --json");
  ASSERT_EQ(js.code, 0) << js.err;
  const nlohmann::json j = nlohmann::json::parse(js.out);
  EXPECT_EQ(j["prompt_ids"], ref["prompt_ids"]);
  EXPECT_EQ(j["tokens"], ref["tokens"]);
  EXPECT_EQ(j["text"], ref["text"]);
}

TEST(GenerateCli, SeededSamplingIsReproducible) {
  TempDir tmp;
  const std::string args = import_llm(tmp, "qwen3") + " --prompt-ids 3,17,42 -n 12 --json";
  const Proc a = tirrun(args + " --temperature 0.9 --top-k 40 --top-p 0.95 --seed 5");
  const Proc b = tirrun(args + " --temperature 0.9 --top-k 40 --top-p 0.95 --seed 5");
  const Proc c = tirrun(args + " --temperature 0.9 --top-k 40 --top-p 0.95 --seed 6");
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(c.code, 0) << c.err;
  const auto tokens = [](const Proc& p) { return nlohmann::json::parse(p.out)["tokens"]; };
  EXPECT_EQ(tokens(a), tokens(b));
  EXPECT_NE(tokens(a), tokens(c));
}

TEST(GenerateCli, BadInputIsOneErrorLine) {
  TempDir tmp;
  const std::string args = import_llm(tmp, "gpt2");
  expect_one_error_line(tirrun(args + " --prompt-ids 3,999"), "prompt token 1 is id 999");
  expect_one_error_line(tirrun(args + " --prompt-ids 3,x"), "item 2 'x', not a token id");
  expect_one_error_line(tirrun(args + " --prompt hello"), "needs a tokenizer");
  expect_one_error_line(tirrun(args + " --prompt-ids 3 --top-p 2"), "top_p");
  expect_one_error_line(tirrun(args + " --prompt-ids 3 --prefill-method nope"),
                        "has no method 'nope'");
  expect_one_error_line(tirrun(args + " --prompt-ids 3 --tokenizer " + q(tmp.file("none.json"))),
                        "none.json");
  expect_one_error_line(tirrun("generate " + q(tmp.file("llm.tir")) + " --prompt-ids 3"),
                        "--weights");
}

// Numbers are checked where they enter: a negative or overflowing count or seed used to be
// read as 2^64 - 1 (CLI11 wraps it), "1,,2" as "1,2", and a context beyond the exported cache
// failed after tokens had been printed.
TEST(GenerateCli, NumbersAreCheckedAtTheEdge) {
  TempDir tmp;
  const std::string args = import_llm(tmp, "gpt2") + " --prompt-ids 3,17";
  expect_one_error_line(tirrun(args + " -n -1"), "--max-new-tokens");
  expect_one_error_line(tirrun(args + " -n 99999999999999999999"), "--max-new-tokens");
  expect_one_error_line(tirrun(args + " --seed -1"), "--seed");
  expect_one_error_line(tirrun(args + " --seed 18446744073709551617"), "--seed");
  expect_one_error_line(tirrun(args + " --top-k -2"), "--top-k");
  expect_one_error_line(tirrun(args + " -t -1"), "--threads");
  expect_one_error_line(tirrun(args + " --eos -3"), "--eos");
  expect_one_error_line(tirrun(args + " --max-context -1"), "--max-context");
  const std::string ids = import_llm(tmp, "gpt2");
  expect_one_error_line(tirrun(ids + " --prompt-ids 1,,2"), "item 2 is empty");
  expect_one_error_line(tirrun(ids + " --prompt-ids 1,2,"), "a comma ends the list");
  expect_one_error_line(tirrun(ids + " --prompt-ids ,1"), "item 1 is empty");
  EXPECT_EQ(tirrun(ids + " --prompt-ids '1, 2 3' -n 1 --json").code, 0);
  const nlohmann::json m = read_json(testing::fixture_dir() + "/llm/manifest.json");
  const int64_t exported = m["max_context"].get<int64_t>();
  const Proc beyond = tirrun(args + " -n 500 --max-context " + std::to_string(exported + 1));
  expect_one_error_line(beyond, "max_context " + std::to_string(exported + 1));
  EXPECT_EQ(beyond.out, "");  // refused before the first token
}

// A thread count above the machine's is capped with one warning, not a failed thread start.
TEST(GenerateCli, HugeThreadCountIsCapped) {
  TempDir tmp;
  const Proc p = tirrun(import_llm(tmp, "gpt2") + " --prompt-ids 3,17 -n 2 --json -t 100000");
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.err.find("warning: 100000 threads asked for"), std::string::npos) << p.err;
}

// A prompt file is read only if it is a regular file within --max-bytes: /dev/zero used to
// be read until memory ran out, a FIFO blocked until a writer came.
TEST(GenerateCli, PromptFileMustBeARegularFileWithinTheLimit) {
  TempDir tmp;
  const std::string args = import_llm(tmp, "gpt2");
  expect_one_error_line(tirrun(args + " --prompt-file /dev/zero"), "is a character device");
  const std::string fifo = tmp.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_one_error_line(tirrun(args + " --prompt-file " + q(fifo)), "is a FIFO");
  std::ofstream(tmp.file("big.txt")) << std::string(4096, 'a');
  expect_one_error_line(
      tirrun(args + " --prompt-file " + q(tmp.file("big.txt")) + " --max-bytes 1000"),
      "above the read limit");
}

}  // namespace
}  // namespace tir::tools
