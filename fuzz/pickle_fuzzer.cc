// libFuzzer target: the torch.save pickle subset (a data.pkl of a state dict).
#include "importer/torch_pickle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)tir::importer::unpickle_tensor_dict({data, size}, "fuzz.pkl");
  return 0;
}
