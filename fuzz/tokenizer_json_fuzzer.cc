// libFuzzer target: a Hugging Face tokenizer.json (every field tokenizer/tokenizer_json*.cc
// reads), then, when it loads, encode, decode and streaming of a few texts.
#include "fuzz/tokenizer_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tir::fuzz::fuzz_tokenizer(data, size, tir::tokenizer::TokenizerFormat::kHuggingFaceJson,
                                   "fuzz.json");
}
