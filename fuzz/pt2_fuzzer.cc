// libFuzzer target: a whole .pt2 import (zip, program JSON, pickles, weights) from bytes.
#include "fuzz/fuzz_util.h"
#include "importer/import_pt2.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using tir::fuzz::scratch_dir;
  tir::importer::ImportOptions o;
  o.input = "fuzz.pt2";  // read from memory: no input file is written
  o.input_bytes = {data, size};
  o.model_path = scratch_dir() + "/out.tir";
  o.weights_path = scratch_dir() + "/out.bin";
  (void)tir::importer::import_pt2(o);
  return 0;
}
