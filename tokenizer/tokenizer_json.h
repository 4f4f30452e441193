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
#include "tokenizer/pre_tokenizer.h"

namespace tir::tokenizer {

struct BpeConfig {
  std::vector<std::string> tokens;  // the spelling of each id ("" for an unused id)
  std::vector<bool> used;           // whether an id exists
  std::unordered_map<std::string, TokenId> spelling_to_id;  // added tokens win
  std::unordered_map<std::string, TokenId> bytes_to_id;     // the model's byte-level entries
  std::vector<std::array<TokenId, 3>> merges;               // left, right, merged; by rank
  BpeModelOptions model;
  std::vector<AddedToken> added;
  bool nfc = false;
  std::vector<PreTokenizer::Step> pre_tokenizer;
  std::vector<TokenId> prefix, suffix;  // what add_special_tokens puts around the text
};

/// `path` names the file in messages.
Result<BpeConfig> parse_tokenizer_json(std::string_view text, const std::string& path);

/// The "bos_token" / "eos_token" of a tokenizer_config.json (a string or {"content": ...}).
struct SpecialTokenNames {
  std::optional<std::string> bos, eos;
};
Result<SpecialTokenNames> parse_tokenizer_config(std::string_view text, const std::string& path);

}  // namespace tir::tokenizer
