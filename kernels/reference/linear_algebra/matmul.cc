// Reference batched matrix products: aten::bmm, aten::matmul, aten::baddbmm (double
// accumulation, one batch at a time over the broadcast batch dims).
#include "kernels/reference/linear_algebra/matmul.h"

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {

void ref_matmul(const MatmulParams& p, const KernelCall& call, void*) {
  const float* a = call.inputs[p.a_input].data_as<const float>();
  const float* b = call.inputs[p.b_input].data_as<const float>();
  const float* c = p.c_input >= 0 ? call.inputs[p.c_input].data_as<const float>() : nullptr;
  float* out = call.outputs[0].data_as<float>();
  const int64_t batches = p.batch_count();
  std::array<int64_t, kMaxRank> idx{};
  int64_t ao = 0, bo = 0, co = 0;
  for (int64_t bi = 0; bi < batches; ++bi) {
    float* ob = out + bi * p.m * p.n;
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) {
        double acc = 0.0;
        for (int64_t q = 0; q < p.k; ++q) {
          acc += static_cast<double>(a[ao + i * p.k + q]) * b[bo + q * p.n + j];
        }
        double v = p.alpha * acc;
        if (c != nullptr && p.beta != 0.0) {
          v += p.beta * c[co + i * p.c_row_stride + j * p.c_col_stride];
        }
        ob[i * p.n + j] = static_cast<float>(v);
      }
    }
    for (int d = p.batch_rank - 1; d >= 0; --d) {
      ao += p.a_bstrides[d];
      bo += p.b_bstrides[d];
      co += p.c_bstrides[d];
      if (++idx[d] < p.batch[d]) break;
      ao -= p.a_bstrides[d] * p.batch[d];
      bo -= p.b_bstrides[d] * p.batch[d];
      co -= p.c_bstrides[d] * p.batch[d];
      idx[d] = 0;
    }
  }
}

namespace {

template <Result<MatmulParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
using MatmulRef = FnKernel<MatmulParams, Prepare, ref_matmul>;

constexpr auto kRef = KernelImpl::kReference;
constexpr auto kCpu = DeviceType::kCpu;
constexpr auto kF32 = DType::kFloat32;

}  // namespace

void register_matmul_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::bmm", kCpu, kF32, kRef, &make_kernel<MatmulRef<matmul_prepare_bmm>>},
      {"aten::matmul", kCpu, kF32, kRef, &make_kernel<MatmulRef<matmul_prepare_matmul>>},
      {"aten::baddbmm", kCpu, kF32, kRef, &make_kernel<MatmulRef<matmul_prepare_baddbmm>>},
  });
}
}  // namespace tir::kernels
