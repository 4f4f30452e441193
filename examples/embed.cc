// A native app embedding tir: load a model and its weights, feed one .npy input per
// method input, print each output as `tirrun` does (dtype, shape, first values).
//
//   tir_embed model.tir model.bin input_0.npy [input_1.npy ...]
#include <cstdio>
#include <vector>

#include "runtime/exec/session.h"
#include "runtime/weights/npy.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s model.tir model.bin [input.npy ...]\n", argv[0]);
    return 2;
  }
  auto session = tir::Session::open(argv[1], argv[2]);
  if (!session.ok()) {
    std::fprintf(stderr, "error: %s\n", session.status().message().c_str());
    return 1;
  }
  std::vector<tir::HostTensor> owned;
  std::vector<tir::Tensor> inputs;
  for (int i = 3; i < argc; ++i) {
    auto t = tir::npy_read(argv[i]);
    if (!t.ok()) {
      std::fprintf(stderr, "error: %s\n", t.status().message().c_str());
      return 1;
    }
    owned.push_back(std::move(t).value());
  }
  for (const tir::HostTensor& h : owned) inputs.push_back(h.view());
  auto outputs = (*session)->run(inputs);
  if (!outputs.ok()) {
    std::fprintf(stderr, "error: %s\n", outputs.status().message().c_str());
    return 1;
  }
  for (size_t k = 0; k < outputs->size(); ++k) {
    const tir::Tensor& t = (*outputs)[k];
    // The line `tirrun` prints: dtype, shape, the first five values (%g is its precision 6).
    std::printf("output %zu  %s%s  [", k, std::string(tir::dtype_name(t.dtype)).c_str(),
                tir::shape_str(t.shape()).c_str());
    for (int64_t i = 0; i < t.numel() && i < 5 && t.dtype == tir::DType::kFloat32; ++i)
      std::printf("%s%g", i ? ", " : "", static_cast<double>(t.data_as<float>()[i]));
    std::printf("%s]\n", t.numel() > 5 ? ", ..." : "");
  }
  return 0;
}
