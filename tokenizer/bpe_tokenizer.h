// Hugging Face tokenizer.json files of byte-level BPE models (GPT-2, Llama 3, Qwen2), read
// as the `tokenizers` library reads them: ids equal to its ids, or the file refused with a
// message naming the field (tests/tokenizer/hf_diff_test.cc checks a mutation corpus). Fields
// the library requires are required. What is read:
//   version        absent or "1.0"; truncation, padding: null (encode never cuts or pads)
//   model          {"type": "BPE", "vocab": {token: id}, "merges": ["a b", ...] or
//                  [["a", "b"], ...], "ignore_merges", "unk_token" (in the vocab), "fuse_unk",
//                  "byte_fallback" (<0xXX> entries); dropout 0 or null,
//                  continuing_subword_prefix and end_of_word_suffix empty or null}
//   added_tokens   [{"id", "content", "special", "normalized", "lstrip", "rstrip",
//                  "single_word"}], each id the one the library assigns (its vocabulary id,
//                  else the next after the vocabulary), no content twice
//   normalizer     null or normalizer.h's types
//   pre_tokenizer  pre_tokenizer.h's types, a ByteLevel last
//   post_processor null, ByteLevel, TemplateProcessing ("single": special tokens and $A, in
//                  any order and number), or a Sequence of those with one template at most
//   decoder        ByteLevel, or a Sequence of one ByteLevel
// BOS and EOS come from tokenizer_config.json beside the file ("bos_token", "eos_token") when
// there is one, else BOS is the first token the post-processor puts before the text.
#pragma once

#include <memory>
#include <string>

#include "tokenizer/tokenizer.h"

namespace tir::tokenizer {

Result<std::unique_ptr<Tokenizer>> open_bpe_tokenizer(const std::string& path);
/// The tokenizer.json in `text`, with no tokenizer_config.json; `path` names it in messages.
Result<std::unique_ptr<Tokenizer>> load_bpe_tokenizer(std::string_view text,
                                                      const std::string& path);

}  // namespace tir::tokenizer
