// Optimized averaging: aten::mean.dim when the reduced dims form one block ([outer,
// reduce, inner]), and aten::adaptive_avg_pool2d to 1x1 (global average pooling). Both also
// read a channels-last input (runtime/passes/layout.h: a squeeze-excitation block pools the
// activation between its convolutions; torch's core IR writes that pool as mean.dim over H,
// W): a global pool then takes the column means of an [H*W, C] matrix per sample, other
// cases walk strides. Other plain cases run the reference loops.
#include <omp.h>

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <limits>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/register.h"
#include "kernels/reference/reference_kernels.h"

namespace tir::kernels {
namespace {

using CArr = Eigen::Map<const Eigen::ArrayXf>;
using Arr = Eigen::Map<Eigen::ArrayXf>;

// out[o, i] = mean over r of x[o, r, i].
void block_mean(const float* x, float* y, int64_t outer, int64_t r, int64_t inner) {
  const float inv = 1.0f / static_cast<float>(r);
  if (inner == 1) {
    parallel_chunks(outer, std::max<int64_t>(1, (1 << 15) / r), [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) y[o] = CArr(x + o * r, r).sum() * inv;
    });
    return;
  }
  parallel_chunks(outer, 1, [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) {
      Arr acc(y + o * inner, inner);
      acc = CArr(x + o * r * inner, inner);
      for (int64_t k = 1; k < r; ++k) acc += CArr(x + (o * r + k) * inner, inner);
      acc *= inv;
    }
  });
}

// y[j] = sum over `rows` rows (`stride` apart) of x[j], for L columns. U partial sums per
// column keep U*L/8 add chains in flight: one chain per column is latency-bound.
template <int L, int U>
void column_sums_of(const float* x, int64_t stride, int64_t rows, float* y) {
  float acc[U][L] = {};
  int64_t r = 0;
  for (; r + U <= rows; r += U) {
    for (int u = 0; u < U; ++u) {
      const float* xr = x + (r + u) * stride;
      for (int j = 0; j < L; ++j) acc[u][j] += xr[j];
    }
  }
  for (; r < rows; ++r)
    for (int j = 0; j < L; ++j) acc[0][j] += x[r * stride + j];
  for (int j = 0; j < L; ++j) {
    float sum = 0.f;
    for (int u = 0; u < U; ++u) sum += acc[u][j];
    y[j] = sum;
  }
}

// y[j] = sum over `rows` rows of the [rows, c] matrix x of x[r, j], a register block at a time.
void column_sums(const float* x, int64_t c, int64_t rows, float* y) {
  int64_t j = 0;
  for (; j + 64 <= c; j += 64) column_sums_of<64, 1>(x + j, c, rows, y + j);
  for (; j + 32 <= c; j += 32) column_sums_of<32, 2>(x + j, c, rows, y + j);
  for (; j + 8 <= c; j += 8) column_sums_of<8, 8>(x + j, c, rows, y + j);
  for (; j < c; ++j) column_sums_of<1, 8>(x + j, c, rows, y + j);
}

// Global average of a channels-last [n, c, h, w] (hw = h*w > 0) into y[n, c] (both layouts of
// a 1x1 output are these bytes): per sample, the column means of an [hw, c] matrix. Each
// sample's rows are split into `parts` ranges summed in parallel, part 0 into y and the others
// into scratch: the threads then read the rows the producing convolution's threads wrote
// (splitting channels instead reads across cores: several times slower).
struct NhwcMean {
  int64_t n = 0, c = 0, hw = 0, parts = 1;
};

NhwcMean nhwc_mean_plan(int64_t n, int64_t c, int64_t hw, PrepareInfo* out_info) {
  constexpr int64_t kGrain = 1 << 14;  // floats per part
  const int64_t threads = omp_get_max_threads();
  NhwcMean m{n, c, hw, std::clamp<int64_t>(hw * c / kGrain, 1, std::min(threads, hw))};
  out_info->scratch_bytes = static_cast<size_t>(n * (m.parts - 1) * c) * sizeof(float);
  return m;
}

void nhwc_mean(const NhwcMean& m, const float* x, float* y, void* scratch) {
  float* partial = static_cast<float*>(scratch);
  parallel_chunks(m.n * m.parts, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t b = t / m.parts, part = t % m.parts;
      const int64_t r0 = part * m.hw / m.parts, r1 = (part + 1) * m.hw / m.parts;
      float* out = part == 0 ? y + b * m.c : partial + (b * (m.parts - 1) + part - 1) * m.c;
      column_sums(x + (b * m.hw + r0) * m.c, m.c, r1 - r0, out);
    }
  });
  const float inv = 1.0f / static_cast<float>(m.hw);
  for (int64_t b = 0; b < m.n; ++b) {
    float* yb = y + b * m.c;
    for (int64_t part = 1; part < m.parts; ++part) {
      const float* pb = partial + (b * (m.parts - 1) + part - 1) * m.c;
      for (int64_t j = 0; j < m.c; ++j) yb[j] += pb[j];
    }
    for (int64_t j = 0; j < m.c; ++j) yb[j] *= inv;
  }
}

// The reference loop through the strides of x and y (either may be channels-last): per
// output element, the double sum of its inputs in row-major order.
void mean_strided(const ReduceParams& p, const Tensor& x, const Tensor& y) {
  std::array<int64_t, kMaxRank> ks{}, kx{}, ky{}, rs{}, rx{};
  int nk = 0, nr = 0;
  const bool keepdim = y.rank == p.rank;
  for (int d = 0; d < p.rank; ++d) {
    if (p.reduced[d]) {
      rs[nr] = p.sizes[d];
      rx[nr++] = x.strides[d];
    } else {
      ks[nk] = p.sizes[d];
      kx[nk] = x.strides[d];
      ky[nk] = y.strides[keepdim ? d : nk];
      ++nk;
    }
  }
  const float* xd = x.data_as<const float>();
  float* yd = y.data_as<float>();
  for (int64_t o = 0; o < p.out_numel; ++o) {
    int64_t xo = 0, yo = 0, rem = o;
    for (int d = nk - 1; d >= 0; --d) {
      xo += (rem % ks[d]) * kx[d];
      yo += (rem % ks[d]) * ky[d];
      rem /= ks[d];
    }
    double sum = 0.0;
    for (int64_t r = 0; r < p.reduce_numel; ++r) {
      int64_t off = xo, rrem = r;
      for (int d = nr - 1; d >= 0; --d) {
        off += (rrem % rs[d]) * rx[d];
        rrem /= rs[d];
      }
      sum += xd[off];
    }
    yd[yo] = p.reduce_numel == 0 ? std::numeric_limits<float>::quiet_NaN()
                                 : static_cast<float>(sum / static_cast<double>(p.reduce_numel));
  }
}

void mean_opt(const ReduceParams& p, const KernelCall& call, void* scratch) {
  if (!p.blocked || p.reduce_numel == 0) {
    ref_mean(p, call, scratch);
    return;
  }
  block_mean(call.inputs[p.input].data_as<const float>(), call.outputs[0].data_as<float>(), p.outer,
             p.reduce_numel, p.inner);
}

// An optimized kernel's parameters: the shared ones, and how a channels-last global mean
// (when `global`) splits its rows.
template <typename Params>
struct WithNhwcMean {
  Params p;
  bool global = false;
  NhwcMean mean;
};

Result<WithNhwcMean<ReduceParams>> mean_prepare_opt(const KernelCall& call, PrepareInfo* out_info) {
  WithNhwcMean<ReduceParams> k;
  TIR_ASSIGN_OR_RETURN(k.p, reduce_prepare_mean_dim_channels_last(call, out_info));
  const ReduceParams& p = k.p;
  // Over H and W of a channels-last [N, C, H, W]: one value per channel ([N, C] or [N, C, 1, 1]).
  k.global = p.strided && p.rank == 4 && call.inputs[p.input].is_channels_last() && !p.reduced[0] &&
             !p.reduced[1] && p.reduced[2] && p.reduced[3] && p.out_numel > 0 && p.reduce_numel > 0;
  if (k.global) k.mean = nhwc_mean_plan(p.sizes[0], p.sizes[1], p.reduce_numel, out_info);
  return k;
}

void mean_run_opt(const WithNhwcMean<ReduceParams>& k, const KernelCall& call, void* scratch) {
  if (k.global) {
    nhwc_mean(k.mean, call.inputs[k.p.input].data_as<const float>(),
              call.outputs[0].data_as<float>(), scratch);
  } else if (k.p.strided) {
    mean_strided(k.p, call.inputs[k.p.input], call.outputs[0]);
  } else {
    mean_opt(k.p, call, scratch);
  }
}

// The reference loops through the strides of a 4-D x and y (either layout).
void adaptive_avg_strided(const AdaptivePoolParams& p, const Tensor& x, const Tensor& y) {
  const float* xd = x.data_as<const float>();
  float* yd = y.data_as<float>();
  const auto& xs = x.strides;
  const auto& ys = y.strides;
  for (int64_t n = 0; n < p.n; ++n) {
    for (int64_t c = 0; c < p.c; ++c) {
      const float* xp = xd + n * xs[0] + c * xs[1];
      for (int64_t oh = 0; oh < p.oh; ++oh) {
        const int64_t h0 = adaptive_start(oh, p.h, p.oh), h1 = adaptive_end(oh, p.h, p.oh);
        for (int64_t ow = 0; ow < p.ow; ++ow) {
          const int64_t w0 = adaptive_start(ow, p.w, p.ow), w1 = adaptive_end(ow, p.w, p.ow);
          double sum = 0.0;
          for (int64_t ih = h0; ih < h1; ++ih)
            for (int64_t iw = w0; iw < w1; ++iw) sum += xp[ih * xs[2] + iw * xs[3]];
          yd[n * ys[0] + c * ys[1] + oh * ys[2] + ow * ys[3]] =
              static_cast<float>(sum / static_cast<double>((h1 - h0) * (w1 - w0)));
        }
      }
    }
  }
}

void adaptive_avg_opt(const AdaptivePoolParams& p, const KernelCall& call, void* scratch) {
  if (p.oh != 1 || p.ow != 1) {
    ref_adaptive_avg_pool2d(p, call, scratch);
    return;
  }
  block_mean(call.inputs[p.input].data_as<const float>(), call.outputs[0].data_as<float>(),
             p.planes, p.h * p.w, 1);
}

Result<WithNhwcMean<AdaptivePoolParams>> adaptive_avg_prepare_opt(const KernelCall& call,
                                                                  PrepareInfo* out_info) {
  WithNhwcMean<AdaptivePoolParams> k;
  TIR_ASSIGN_OR_RETURN(k.p, pool_prepare_adaptive_avg_pool2d_channels_last(call, out_info));
  const AdaptivePoolParams& p = k.p;
  k.global = p.strided && p.oh == 1 && p.ow == 1 && call.inputs[p.input].is_channels_last() &&
             p.planes > 0;
  if (k.global) k.mean = nhwc_mean_plan(p.n, p.c, p.h * p.w, out_info);
  return k;
}

void adaptive_avg_run_opt(const WithNhwcMean<AdaptivePoolParams>& k, const KernelCall& call,
                          void* scratch) {
  if (k.global) {
    nhwc_mean(k.mean, call.inputs[k.p.input].data_as<const float>(),
              call.outputs[0].data_as<float>(), scratch);
  } else if (k.p.strided) {
    adaptive_avg_strided(k.p, call.inputs[k.p.input], call.outputs[0]);
  } else {
    adaptive_avg_opt(k.p, call, scratch);
  }
}

// Both read self plain or channels-last.
using MeanOpt = FnKernel<WithNhwcMean<ReduceParams>, mean_prepare_opt, mean_run_opt>;
using AdaptiveAvgOpt =
    FnKernel<WithNhwcMean<AdaptivePoolParams>, adaptive_avg_prepare_opt, adaptive_avg_run_opt>;

}  // namespace

void register_reduce_eigen(KernelRegistry& registry) {
  registry.add({
      {"aten::mean.dim", DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized,
       &make_kernel<MeanOpt>},
      {"aten::adaptive_avg_pool2d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized,
       &make_kernel<AdaptiveAvgOpt>},
  });
}
}  // namespace tir::kernels
