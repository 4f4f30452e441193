// Malformed and unsupported tokenizer files are refused with a message naming the file and
// the field; bad text and ids are refused at encode / decode. Nothing crashes.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/tokenizer/reference.h"
#include "tokenizer/tokenizer.h"

namespace tir::tokenizer::testing {
namespace {

using nlohmann::json;

json gpt2_json() {
  std::ifstream f(tokenizer_fixture_dir() + "/gpt2/tokenizer.json");
  return json::parse(f);
}

std::string write(const tir::testing::TempDir& dir, const std::string& name,
                  const std::string& bytes) {
  const std::string path = dir.file(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

/// Opens `j` written as tokenizer.json; expects an error of `code` whose message has `needle`
/// and the file's path.
void expect_refused(const json& j, StatusCode code, const std::string& needle) {
  tir::testing::TempDir dir;
  const std::string path = write(dir, "tokenizer.json", j.dump());
  auto t = open_tokenizer(path);
  ASSERT_FALSE(t.ok()) << needle;
  EXPECT_EQ(t.status().code(), code) << t.status().message();
  EXPECT_NE(t.status().message().find(needle), std::string::npos) << t.status().message();
  EXPECT_NE(t.status().message().find(path), std::string::npos) << t.status().message();
}

TEST(BadTokenizer, TheUnmodifiedBaseOpens) {
  tir::testing::TempDir dir;
  EXPECT_TRUE(open_tokenizer(write(dir, "tokenizer.json", gpt2_json().dump())).ok());
}

TEST(BadTokenizer, UnsupportedPartsAreNamed) {
  json j = gpt2_json();
  j["model"]["type"] = "WordPiece";
  expect_refused(j, StatusCode::kUnsupported, "field 'model.type': 'WordPiece'");
  j = gpt2_json();
  j["normalizer"] = {{"type", "BertNormalizer"}};
  expect_refused(j, StatusCode::kUnsupported,
                 "field 'normalizer.type': normalizer 'BertNormalizer'");
  j = gpt2_json();
  j["pre_tokenizer"] = {{"type", "Metaspace"}};
  expect_refused(j, StatusCode::kUnsupported, "pre_tokenizer 'Metaspace'");
  j = gpt2_json();
  j["pre_tokenizer"] = {{"type", "Split"},
                        {"pattern", {{"Regex", "\\s+"}}},
                        {"behavior", "Isolated"},
                        {"invert", false}};
  expect_refused(j, StatusCode::kUnsupported, "no ByteLevel");
  j = gpt2_json();
  j["pre_tokenizer"] = {
      {"type", "Sequence"},
      {"pretokenizers",
       {{{"type", "Split"}, {"pattern", {{"Regex", "(unclosed"}}}, {"behavior", "Isolated"}},
        {{"type", "ByteLevel"}}}}};
  expect_refused(j, StatusCode::kUnsupported, "field 'pre_tokenizer.pretokenizers[0].pattern'");
  j = gpt2_json();
  j["decoder"] = {{"type", "WordPiece"}};
  expect_refused(j, StatusCode::kUnsupported, "decoder 'WordPiece'");
  j = gpt2_json();
  j["post_processor"] = {{"type", "RobertaProcessing"}};
  expect_refused(j, StatusCode::kUnsupported, "post_processor 'RobertaProcessing'");
  j = gpt2_json();
  j["added_tokens"][0]["id"] = 5;  // the tokenizers library would give it its vocabulary id
  expect_refused(j, StatusCode::kUnsupported, "field 'added_tokens[0].id'");
  j = gpt2_json();
  j["model"]["dropout"] = 0.1;
  expect_refused(j, StatusCode::kUnsupported, "field 'model.dropout'");
  j = gpt2_json();
  j["truncation"] = {{"max_length", 3}};
  expect_refused(j, StatusCode::kUnsupported, "field 'truncation'");
}

TEST(BadTokenizer, MalformedFieldsAreNamed) {
  expect_refused(json::array(), StatusCode::kCorrupt, "not a JSON object");
  json j = gpt2_json();
  j["model"]["merges"][3] = "Ġnotatoken Ġeither";
  expect_refused(j, StatusCode::kCorrupt, "model.merges[3]");
  j = gpt2_json();
  j["model"]["merges"][0] = json::array({1, 2});
  expect_refused(j, StatusCode::kCorrupt, "model.merges[0]");
  j = gpt2_json();
  j["added_tokens"][0].erase("lstrip");  // required by the tokenizers library too
  expect_refused(j, StatusCode::kCorrupt, "field 'added_tokens[0].lstrip': missing");
  j = gpt2_json();
  j["pre_tokenizer"] = {
      {"type", "Sequence"},
      {"pretokenizers",
       {{{"type", "Split"},
         {"pattern", {{"String", " "}}},
         {"behavior", "Sideways"},
         {"invert", false}},
        {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}}}}};
  expect_refused(j, StatusCode::kCorrupt, "field 'pre_tokenizer.pretokenizers[0].behavior'");
  j = gpt2_json();
  j["model"]["vocab"]["x"] = -5;
  expect_refused(j, StatusCode::kCorrupt, "model.vocab['x']");
  j = gpt2_json();
  j["model"]["vocab"]["x"] = 2000000000;  // would make the id tables huge
  expect_refused(j, StatusCode::kCorrupt, "too large");
  j = gpt2_json();
  j["added_tokens"][0]["id"] = "seven";
  expect_refused(j, StatusCode::kCorrupt, "added_tokens[0].id");
  j = gpt2_json();
  j["model"]["vocab"] = "words";
  expect_refused(j, StatusCode::kCorrupt, "model.vocab");
  j = gpt2_json();
  json nested = {{"type", "ByteLevel"}};
  for (int i = 0; i < 100; ++i) nested = {{"type", "Sequence"}, {"pretokenizers", {nested}}};
  j["pre_tokenizer"] = nested;
  expect_refused(j, StatusCode::kUnsupported, "nested too deep");
}

TEST(BadTokenizer, TruncatedFilesAreRefused) {
  const std::string text = gpt2_json().dump();
  tir::testing::TempDir dir;
  for (size_t n = 0; n < text.size(); n += 997) {
    auto t = open_tokenizer(write(dir, "tokenizer.json", text.substr(0, n)));
    EXPECT_FALSE(t.ok()) << n;
  }
  std::ifstream f(tokenizer_fixture_dir() + "/sp_bpe/tokenizer.model", std::ios::binary);
  const std::string model((std::istreambuf_iterator<char>(f)), {});
  for (size_t n = 1; n < model.size(); n += 1009) {
    auto t = open_tokenizer(write(dir, "tokenizer.model", model.substr(0, n)));
    if (t.ok()) continue;  // a prefix may parse as a smaller protobuf; it must not crash
    EXPECT_EQ(t.status().code(), StatusCode::kCorrupt) << t.status().message();
  }
  auto garbage = open_tokenizer(write(dir, "tokenizer.model", "not a protobuf at all"));
  EXPECT_FALSE(garbage.ok());
}

// A model whose piece is empty makes libsentencepiece's trie builder throw (found by the
// tokenizer_model fuzz target): an error, not a terminate.
TEST(BadTokenizer, SentencePieceExceptionsAreErrors) {
  const std::string path = tir::testing::test_data_dir() +
                           "/../../fuzz/regressions/tokenizer_model/empty_piece_darts_exception";
  tir::testing::TempDir dir;
  std::ifstream f(path, std::ios::binary);
  const std::string model((std::istreambuf_iterator<char>(f)), {});
  ASSERT_FALSE(model.empty()) << path;
  auto t = open_tokenizer(write(dir, "tokenizer.model", model));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kCorrupt) << t.status().message();
}

TEST(BadTokenizer, MissingAndUnknownFiles) {
  auto missing = open_tokenizer("/no/such/tokenizer.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  tir::testing::TempDir dir;
  auto empty = open_tokenizer(dir.path());
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), StatusCode::kNotFound);
  auto txt = open_tokenizer(write(dir, "vocab.txt", "a\nb\n"));
  ASSERT_FALSE(txt.ok());
  EXPECT_EQ(txt.status().code(), StatusCode::kUnsupported);
}

TEST(BadTokenizer, BadTextAndIds) {
  for (const std::string& name : tokenizer_names()) {
    auto t = open_fixture(name);
    ASSERT_NE(t, nullptr);
    for (const char* bad : {"\xFF", "ab\xC3", "\xED\xA0\x80", "\xC0\xAF"}) {
      auto ids = t->encode(bad);
      ASSERT_FALSE(ids.ok()) << name;
      EXPECT_EQ(ids.status().code(), StatusCode::kInvalidArgument);
    }
    for (TokenId id : {-1, t->vocab_size(), INT32_MAX}) {
      auto text = t->decode(std::vector<TokenId>{id});
      ASSERT_FALSE(text.ok()) << name << " " << id;
      EXPECT_EQ(text.status().code(), StatusCode::kInvalidArgument);
    }
  }
}

}  // namespace
}  // namespace tir::tokenizer::testing
