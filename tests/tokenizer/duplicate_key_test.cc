// A key that appears twice in one object of tokenizer.json or tokenizer_config.json is refused
// (core/json_strict.h): HF's reader (serde) refuses it too, and Python's json would take the
// last value silently.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/tokenizer/reference.h"
#include "tokenizer/tokenizer.h"

namespace tir::tokenizer::testing {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// `text` with `member` added before its last closing brace.
std::string with_member(const std::string& text, const std::string& member) {
  return text.substr(0, text.rfind('}')) + ", " + member + "}";
}

TEST(TokenizerDuplicateKey, InTokenizerJsonIsRefusedNamingTheFileAndKey) {
  tir::testing::TempDir dir;
  const std::string path = dir.file("tokenizer.json");
  // The last "added_tokens" would drop <|endoftext|> without a word.
  std::ofstream(path) << with_member(read_text(tokenizer_fixture_dir() + "/gpt2/tokenizer.json"),
                                     "\"added_tokens\": []");
  auto t = open_tokenizer(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(t.status().message(),
            "tokenizer file '" + path + "': key \"added_tokens\" appears twice in one object");
}

TEST(TokenizerDuplicateKey, InTokenizerConfigJsonIsRefused) {
  tir::testing::TempDir dir;
  const std::string src = tokenizer_fixture_dir() + "/llama3";
  std::filesystem::copy_file(src + "/tokenizer.json", dir.file("tokenizer.json"));
  std::ofstream(dir.file("tokenizer_config.json"))
      << with_member(read_text(src + "/tokenizer_config.json"), "\"eos_token\": \"<unk>\"");
  auto t = open_tokenizer(dir.file("tokenizer.json"));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("tokenizer config '" + dir.file("tokenizer_config.json") +
                                      "': key \"eos_token\" appears twice"),
            std::string::npos)
      << t.status().message();
}

}  // namespace
}  // namespace tir::tokenizer::testing
