// libFuzzer target: the .npy reader (tirrun's inputs).
#include "runtime/weights/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)tir::npy_parse({data, size}, "fuzz.npy");
  return 0;
}
