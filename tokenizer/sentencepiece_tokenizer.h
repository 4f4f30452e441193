// SentencePiece `*.model` files (Llama 2, Mistral, Gemma), through Debian's libsentencepiece:
// its own normalizer, BPE or unigram model, byte fallback and user-defined symbols.
// add_special_tokens adds BOS in front, as Hugging Face's Llama tokenizers do; BOS and EOS are
// the model's <s> and </s> (or whatever its trainer spec names), special tokens its control
// symbols.
#pragma once

#include <memory>
#include <string>

#include "tokenizer/tokenizer.h"

namespace tir::tokenizer {

Result<std::unique_ptr<Tokenizer>> open_sentencepiece_tokenizer(const std::string& path);
/// The serialized model in `bytes`; `path` names it in messages.
Result<std::unique_ptr<Tokenizer>> load_sentencepiece_tokenizer(std::string_view bytes,
                                                                const std::string& path);

}  // namespace tir::tokenizer
