// Shared by the tokenizer fuzz targets: what is done with a tokenizer that loaded.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace tir::fuzz {

/// Encodes and decodes fixed texts and the input's own bytes (as text, when they are UTF-8),
/// then decodes the first ids and streams them: every path that runs after a load.
inline void exercise_tokenizer(const tokenizer::Tokenizer& t, std::string_view input) {
  using tokenizer::TokenId;
  const std::string texts[] = {"",
                               " ",
                               "Hello world, it's 12345!",
                               "  tabs\tand\nnewlines\n\n  ",
                               "café e\u0301 你好 😀👍🏽 \u00a0",
                               "<|endoftext|>x<|eot_id|> y<s></s>",
                               std::string(input.substr(0, 256))};
  for (const std::string& text : texts) {
    for (bool special : {false, true}) {
      auto ids = t.encode(text, {.add_special_tokens = special});
      if (!ids.ok()) continue;
      (void)t.decode(*ids, {.skip_special_tokens = special});
    }
  }
  std::vector<TokenId> first;
  for (TokenId id = 0; id < t.vocab_size() && id < 64; ++id) first.push_back(id);
  (void)t.decode(first);
  tokenizer::StreamDecoder stream(t);
  for (TokenId id : first) (void)stream.next(id);
  (void)stream.flush();
  for (TokenId id : first) {
    if (auto spelling = t.id_to_token(id)) (void)t.token_to_id(*spelling);
    (void)t.is_special(id);
  }
}

/// A fuzz input read as a tokenizer file of `format`, exercised when it loads.
inline int fuzz_tokenizer(const uint8_t* data, size_t size, tokenizer::TokenizerFormat format,
                          const std::string& name) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto t = tokenizer::load_tokenizer(bytes, format, name);
  if (t.ok()) exercise_tokenizer(**t, bytes);
  return 0;
}

}  // namespace tir::fuzz
