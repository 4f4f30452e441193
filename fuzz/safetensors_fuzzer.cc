// libFuzzer target: the safetensors reader (8-byte header length, JSON header, data).
#include "runtime/weights/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)tir::safetensors_sniff({data, size});
  (void)tir::safetensors_parse({data, size}, "fuzz.safetensors");
  return 0;
}
