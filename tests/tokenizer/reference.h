// The tokenizer fixtures of tests/data/gen_tokenizers.py: tokenizers trained with the
// `tokenizers` and `sentencepiece` libraries and, in reference.json, what those libraries
// encode and decode for a corpus of test strings.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/common/test_util.h"
#include "tokenizer/tokenizer.h"

namespace tir::tokenizer::testing {

inline std::string tokenizer_fixture_dir() { return tir::testing::fixture_dir() + "/tokenizers"; }

inline const nlohmann::json& reference() {
  static const nlohmann::json r = [] {
    std::ifstream f(tokenizer_fixture_dir() + "/reference.json");
    return nlohmann::json::parse(f);
  }();
  return r;
}

/// The names of the fixture tokenizers (gpt2, llama3, qwen2, sp_bpe, sp_unigram).
inline std::vector<std::string> tokenizer_names() {
  return {"gpt2", "llama3", "qwen2", "sp_bpe", "sp_unigram"};
}

inline std::unique_ptr<Tokenizer> open_fixture(const std::string& name) {
  const std::string file = reference()[name]["file"].get<std::string>();
  auto t = open_tokenizer(tokenizer_fixture_dir() + "/" + file);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? std::move(t).value() : nullptr;
}

inline std::vector<TokenId> ids_of(const nlohmann::json& j) {
  return j.get<std::vector<TokenId>>();
}

/// A printable form of a string for failure messages (escapes control bytes).
inline std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

}  // namespace tir::tokenizer::testing
