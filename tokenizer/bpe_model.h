// The BPE model of a byte-level tokenizer.json: turns one pre-tokenized word (raw bytes) into
// ids by applying the merges in rank order, lowest rank first and leftmost among equal ranks,
// as Hugging Face tokenizers' BPE (without dropout) does. Vocabulary entries are kept as the
// bytes they stand for (byte_level.h), so words are never mapped to the alphabet and back.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace tir::tokenizer {

struct BpeModelOptions {
  /// Use a word's own id when the whole word is in the vocabulary (Llama 3's ignore_merges).
  bool ignore_merges = false;
  /// The id for a byte that has no entry; such bytes are dropped when unset.
  std::optional<TokenId> unk_id;
  /// Consecutive unknown bytes become one unk_id.
  bool fuse_unk = false;
  /// byte_fallback: for each byte, the ids of the "<0xXX>" entries of the UTF-8 bytes of its
  /// byte-level character, used before unk_id when the byte has no entry of its own (empty:
  /// byte_fallback is off, or one of them is missing).
  std::vector<std::vector<TokenId>> byte_fallback;
};

class BpeModel {
 public:
  /// `bytes_to_id`: the vocabulary entries written in the byte-level alphabet, by the bytes
  /// they stand for; `merges`: (left, right, merged) ids in rank order.
  BpeModel(std::unordered_map<std::string, TokenId> bytes_to_id,
           const std::vector<std::array<TokenId, 3>>& merges, BpeModelOptions options);

  /// Appends the ids of `word` to `*out`.
  void encode_word(std::string_view word, std::vector<TokenId>* out) const;

 private:
  struct Merge {
    uint32_t rank;
    TokenId merged;
  };
  static uint64_t pair_key(TokenId left, TokenId right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) |
           static_cast<uint32_t>(right);
  }

  std::unordered_map<std::string, TokenId> bytes_to_id_;
  std::unordered_map<uint64_t, Merge> merges_;
  std::array<TokenId, 256> byte_ids_;  // -1: no entry
  BpeModelOptions options_;
};

}  // namespace tir::tokenizer
