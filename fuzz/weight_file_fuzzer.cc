// libFuzzer target: a tir weight file: header, index and entry checks, then every
// tensor's checksum.
#include "ir/weight_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto view = tir::ir::WeightFileView::open({data, size}, "fuzz.bin");
  if (!view.ok()) return 0;
  if (view->index().entries())
    for (const tir::fb::WeightEntry* e : *view->index().entries())
      (void)tir::ir::verify_entry_checksum(*view, *e, "fuzz.bin");
  return 0;
}
