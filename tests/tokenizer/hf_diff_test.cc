// tir's tokenizers against the reference libraries on a mutation corpus
// (tests/data/gen_tokenizer_diff.py): tokenizer.json variants against `tokenizers` and
// SentencePiece variants against `sentencepiece`. For each variant tir gives the reference's
// ids for every text, with and without special tokens, and decodes the ids to the reference's
// text, or refuses the file with one message
// naming it (and the field, for a file the reference reads). A file tir refuses though the
// reference reads it is allowed only when listed below with the reason; different ids are
// always a failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>

#include "tests/tokenizer/reference.h"
#include "tokenizer/tokenizer.h"

namespace tir::tokenizer::testing {
namespace {

using nlohmann::json;

/// Variants the reference reads and tir refuses, and why.
const std::map<std::string, std::string>& refused_by_tir() {
  static const std::map<std::string, std::string> kList = {
      {"model_dropout_half", "BPE dropout is random: no ids to equal"},
      {"model_dropout_one", "BPE dropout: only 0 or null is read"},
      {"model_suffix", "end_of_word_suffix is not byte-level BPE"},
      {"model_vocab_id_twice", "the reference decodes the id to either spelling"},
      {"model_unk_not_in_vocab", "the reference fails only at an encode that needs <unk>"},
      {"pre_tokenizer_null", "no ByteLevel: only byte-level BPE is read"},
      {"split_after_byte_level", "a step after ByteLevel sees the byte-level alphabet"},
      {"split_word_boundary", "\\b differs between Oniguruma and PCRE2"},
      {"pre_metaspace", "Metaspace is SentencePiece-style, not byte-level"},
      {"pre_unicode_scripts", "UnicodeScripts is not read"},
      {"normalizer_replace_regex", "an empty match: the reference fails on most texts"},
      {"normalizer_replace_regex_qwen2", "an empty match: the reference fails on most texts"},
      {"normalizer_bert", "BertNormalizer is not read"},
      {"normalizer_bert_qwen2", "BertNormalizer is not read"},
      {"added_wrong_id", "the reference gives the token another id than the file"},
      {"added_new_wrong_id", "the reference gives the token another id than the file"},
      {"added_duplicate", "the reference merges a repeated added token"},
      {"template_id_not_in_vocab", "an id outside the vocabulary"},
      {"template_twice", "a second template sees the first one's pieces as sequences"},
      {"post_roberta", "RobertaProcessing is not read"},
      {"post_bert", "BertProcessing is not read"},
      {"decoder_null", "no decoder joins tokens with spaces: not byte-level"},
      {"decoder_fuse", "Fuse alone is not a byte-level decoder"},
      {"truncation", "encode never truncates"},
      {"padding", "encode never pads"},
  };
  return kList;
}

const json& corpus() {
  static const json c = [] {
    std::ifstream f(tir::testing::fixture_dir() + "/tokenizer_diff/diff.json");
    return json::parse(f);
  }();
  return c;
}

json base_json(const std::string& name) {
  std::ifstream f(tokenizer_fixture_dir() + "/" + name + "/tokenizer.json");
  return json::parse(f);
}

struct Counts {
  int variants = 0, equal = 0, refused_by_both = 0, refused_by_tir = 0;
};

/// Checks one opened (or refused) variant against the reference's `expected`.
void check_variant(const std::string& name, const std::string& path,
                   const Result<std::unique_ptr<Tokenizer>>& t, const json& expected,
                   Counts* counts) {
  ++counts->variants;
  if (!t.ok()) {
    const std::string& message = t.status().message();
    EXPECT_NE(message.find(path), std::string::npos) << name << ": " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << name << ": " << message;
  }
  const bool listed = refused_by_tir().contains(name);
  if (expected == "nondeterministic") {  // no ids to equal: tir refuses
    EXPECT_FALSE(t.ok()) << name << ": the reference's answer is random, tir reads the file";
    EXPECT_TRUE(listed) << name;
    counts->refused_by_tir += !t.ok();
    return;
  }
  // The reference refuses the file, or fails on every text.
  const bool refused =
      expected == "refused" ||
      std::all_of(expected.begin(), expected.end(), [](const json& e) { return e == "refused"; });
  if (refused && !t.ok()) {
    ++counts->refused_by_both;
    return;
  }
  EXPECT_NE(expected, "refused") << name << ": the reference refuses this file, tir reads it";
  if (expected == "refused") return;
  if (!t.ok()) {
    EXPECT_TRUE(listed) << name << ": the reference reads this file, tir refuses it: "
                        << t.status().message();
    EXPECT_NE(t.status().message().find("field '"), std::string::npos) << t.status().message();
    ++counts->refused_by_tir;
    return;
  }
  EXPECT_FALSE(listed) << name << ": listed as refused, but tir reads it";
  const json& texts = corpus()["texts"];
  bool all_equal = true;
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string text = texts[i].get<std::string>();
    auto plain = (*t)->encode(text, {.add_special_tokens = false});
    auto special = (*t)->encode(text, {.add_special_tokens = true});
    if (expected[i] == "refused") {  // the reference fails on this text
      EXPECT_FALSE(plain.ok() && special.ok()) << name << ": text " << quoted(text);
      continue;
    }
    ASSERT_TRUE(plain.ok() && special.ok()) << name << ": " << plain.status().message();
    all_equal &=
        *plain == ids_of(expected[i]["ids"]) && *special == ids_of(expected[i]["ids_with_special"]);
    EXPECT_EQ(*plain, ids_of(expected[i]["ids"])) << name << ": text " << quoted(text);
    EXPECT_EQ(*special, ids_of(expected[i]["ids_with_special"]))
        << name << ": text " << quoted(text) << " with special tokens";
    auto decoded = (*t)->decode(*plain);
    ASSERT_TRUE(decoded.ok()) << name << ": " << decoded.status().message();
    all_equal &= *decoded == expected[i]["decoded"];
    EXPECT_EQ(*decoded, expected[i]["decoded"].get<std::string>())
        << name << ": decode of text " << quoted(text);
  }
  counts->equal += all_equal;
}

TEST(HfDiff, TokenizerJsonVariants) {
  std::map<std::string, json> bases;
  Counts counts;
  tir::testing::TempDir dir;
  const std::string path = dir.file("tokenizer.json");
  for (const json& v : corpus()["json_variants"]) {
    const std::string base = v["base"].get<std::string>();
    if (!bases.contains(base)) bases[base] = base_json(base);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bases[base].patch(v["patch"]).dump();
    check_variant(v["name"].get<std::string>(), path, open_tokenizer(path), v["hf"], &counts);
  }
  std::printf(
      "tokenizer.json: %d variants, %d equal on every text, %d refused by both, %d "
      "refused by tir (listed)\n",
      counts.variants, counts.equal, counts.refused_by_both, counts.refused_by_tir);
  EXPECT_GE(counts.variants, 150);
  EXPECT_EQ(counts.refused_by_tir, static_cast<int>(refused_by_tir().size()));
}

TEST(HfDiff, SentencePieceVariants) {
  Counts counts;
  for (const json& v : corpus()["sp_variants"]) {
    const std::string path =
        tir::testing::fixture_dir() + "/tokenizer_diff/" + v["file"].get<std::string>();
    check_variant(v["name"].get<std::string>(), path, open_tokenizer(path), v["sp"], &counts);
  }
  std::printf("SentencePiece: %d variants, %d equal on every text, %d refused by both\n",
              counts.variants, counts.equal, counts.refused_by_both);
  EXPECT_GE(counts.variants, 20);
}

}  // namespace
}  // namespace tir::tokenizer::testing
