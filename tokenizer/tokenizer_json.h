// Parsing a byte-level BPE tokenizer.json (the fields bpe_tokenizer.h lists) into what
// BpeTokenizer runs with. Every field is checked here, once, so encoding has no checks.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/added_tokens.h"
#include "tokenizer/bpe_model.h"
#include "tokenizer/json_fields.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/pre_tokenizer.h"

namespace tir::tokenizer {

/// One piece of a TemplateProcessing's "single": the text's ids or a special token's ids.
struct TemplatePiece {
  bool text = false;
  std::vector<TokenId> ids;  // special tokens only
};

struct BpeConfig {
  std::vector<std::string> tokens;  // the spelling of each id ("" for an unused id)
  std::vector<bool> used;           // whether an id exists
  std::unordered_map<std::string, TokenId> spelling_to_id;  // added tokens win
  std::unordered_map<std::string, TokenId> bytes_to_id;     // the model's byte-level entries
  std::vector<std::array<TokenId, 3>> merges;               // left, right, merged; by rank
  BpeModelOptions model;
  std::vector<AddedToken> added;
  std::vector<NormalizerStep> normalizer;
  std::vector<PreTokenizer::Step> pre_tokenizer;
  /// The post-processor's template; empty: the text alone. Special pieces are left out when
  /// add_special_tokens is false, text pieces never.
  std::vector<TemplatePiece> post_template;
};

/// `path` names the file in messages.
Result<BpeConfig> parse_tokenizer_json(std::string_view text, const std::string& path);

/// The "bos_token" / "eos_token" of a tokenizer_config.json (a string or {"content": ...}).
struct SpecialTokenNames {
  std::optional<std::string> bos, eos;
};
Result<SpecialTokenNames> parse_tokenizer_config(std::string_view text, const std::string& path);

// The parts of a tokenizer.json around the model (tokenizer_json_pipeline.cc). `where` is the
// field's path for messages; `depth` counts the Sequences around it.
Status parse_normalizer(const JsonFields& f, const Json& n, const std::string& where, int depth,
                        std::vector<NormalizerStep>* out);
/// `*byte_level_seen` is set once a ByteLevel step is read (it must be the last).
Status parse_pre_tokenizer(const JsonFields& f, const Json& p, const std::string& where, int depth,
                           std::vector<PreTokenizer::Step>* out, bool* byte_level_seen);
/// `used`: which ids exist (a template's ids must). `*out` is set by the TemplateProcessing
/// (at most one).
Status parse_post_processor(const JsonFields& f, const Json& p, const std::string& where, int depth,
                            const std::vector<bool>& used,
                            std::optional<std::vector<TemplatePiece>>* out);
Status parse_decoder(const JsonFields& f, const Json& d, const std::string& where);

}  // namespace tir::tokenizer
