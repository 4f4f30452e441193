#include "kernels/reference/quantization/int4_gemm.h"

#include <vector>

namespace tir::kernels {

void ref_int4_linear(const Int4View& w, const float* a, int64_t m, float* out) {
  const int64_t n = w.rows, k = w.cols;
  std::vector<float> row(static_cast<size_t>(k));
  for (int64_t j = 0; j < n; ++j) {
    dequantize_int4_rows(w, j, j + 1, row.data());
    for (int64_t i = 0; i < m; ++i) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) sum += double(a[i * k + p]) * double(row[size_t(p)]);
      out[i * n + j] = float(sum);
    }
  }
}

}  // namespace tir::kernels
