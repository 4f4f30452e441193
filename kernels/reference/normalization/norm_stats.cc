// Reference batch norm over the batch's own statistics:
// aten::_native_batch_norm_legit.no_stats (instance norm and BatchNorm without running
// statistics export to it), aten::instance_norm (training IR), aten::batch_norm with
// training=True (reference_kernels.h BatchNormEitherMode),
// aten::_native_batch_norm_legit_functional with training=True (which also gives the updated
// running statistics); and the eval-mode forms of aten::_native_batch_norm_legit and
// aten::_native_batch_norm_legit_functional.
#include <algorithm>
#include <cmath>
#include <utility>

#include "kernels/kernel_util.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/reference/register.h"

namespace tir::kernels {

namespace {

/// Channel c's mean and sum of squared deviations over N and the inner dims (two passes in
/// double).
std::pair<double, double> channel_moments(const BatchStatsParams& p, const float* x, int64_t c) {
  double sum = 0;
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t i = 0; i < p.inner; ++i) sum += x[(n * p.c + c) * p.inner + i];
  const double mean = sum / static_cast<double>(p.n * p.inner);
  double m2 = 0;
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t i = 0; i < p.inner; ++i) {
      const double d = x[(n * p.c + c) * p.inner + i] - mean;
      m2 += d * d;
    }
  return {mean, m2};
}

/// y = (x - mean) * invstd * weight + bias for channel c; returns invstd.
double normalize_channel(const BatchStatsParams& p, const KernelCall& call, int64_t c, double mean,
                         double m2) {
  auto vec = [&](int idx) { return idx >= 0 ? call.inputs[idx].data_as<const float>() : nullptr; };
  const float* x = vec(p.input);
  const float *w = vec(p.weight), *b = vec(p.bias);
  float* y = call.outputs[0].data_as<float>();
  const double invstd = 1.0 / std::sqrt(m2 / static_cast<double>(p.n * p.inner) + p.eps);
  const int64_t a = c % p.affine_channels;
  const double scale = (w ? w[a] : 1.0) * invstd;
  const double shift = b ? b[a] : 0.0;
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t i = 0; i < p.inner; ++i) {
      const int64_t at = (n * p.c + c) * p.inner + i;
      y[at] = static_cast<float>((x[at] - mean) * scale + shift);
    }
  return invstd;
}

}  // namespace

// Per channel: mean and biased variance over N and the inner dims, then
// y = (x - mean) * invstd * weight + bias; save_mean and save_invstd as torch returns.
void ref_batch_norm_no_stats(const BatchStatsParams& p, const KernelCall& call, void*) {
  const float* x = call.inputs[p.input].data_as<const float>();
  const bool save = call.outputs.size() == 3;  // instance_norm has only the result
  for (int64_t c = 0; c < p.c; ++c) {
    const auto [mean, m2] = channel_moments(p, x, c);
    const double invstd = normalize_channel(p, call, c, mean, m2);
    if (save) {
      call.outputs[1].data_as<float>()[c] = static_cast<float>(mean);
      call.outputs[2].data_as<float>()[c] = static_cast<float>(invstd);
    }
  }
}

namespace {

// Eval-mode functional batch norm: the result, then the running statistics unchanged.
void ref_batch_norm_functional(const BatchNormParams& p, const KernelCall& call, void* scratch) {
  ref_batch_norm(p, call, scratch);
  const float* mean = call.inputs[p.mean].data_as<const float>();
  const float* var = call.inputs[p.var].data_as<const float>();
  std::copy(mean, mean + p.c, call.outputs[3].data_as<float>());
  std::copy(var, var + p.c, call.outputs[4].data_as<float>());
}

// Training-mode functional batch norm: the batch's statistics, and the running statistics
// moved towards them (the variance unbiased: m2 / (count - 1), as torch).
void ref_batch_norm_train(const BatchTrainParams& p, const KernelCall& call, void*) {
  const BatchStatsParams& s = p.stats;
  const float* x = call.inputs[s.input].data_as<const float>();
  const float* old_mean = call.inputs[p.mean].data_as<const float>();
  const float* old_var = call.inputs[p.var].data_as<const float>();
  const double count = static_cast<double>(s.n * s.inner);
  for (int64_t c = 0; c < s.c; ++c) {
    const auto [mean, m2] = channel_moments(s, x, c);
    const double invstd = normalize_channel(s, call, c, mean, m2);
    call.outputs[1].data_as<float>()[c] = static_cast<float>(mean);
    call.outputs[2].data_as<float>()[c] = static_cast<float>(invstd);
    call.outputs[3].data_as<float>()[c] =
        static_cast<float>((1 - p.momentum) * old_mean[c] + p.momentum * mean);
    call.outputs[4].data_as<float>()[c] =
        static_cast<float>((1 - p.momentum) * old_var[c] + p.momentum * m2 / (count - 1));
  }
}

/// _native_batch_norm_legit_functional in either mode.
using FunctionalRef = TrainingOrEval<
    FnKernel<BatchNormParams, norm_prepare_native_functional, ref_batch_norm_functional>,
    native_functional_training, BatchTrainParams, norm_prepare_native_functional_training,
    ref_batch_norm_train>;

using NoStatsRef =
    FnKernel<BatchStatsParams, norm_prepare_native_no_stats, ref_batch_norm_no_stats>;
using InstanceNormRef =
    FnKernel<BatchStatsParams, norm_prepare_instance_norm, ref_batch_norm_no_stats>;
using LegitRef = FnKernel<BatchNormParams, norm_prepare_native_legit, ref_batch_norm>;

}  // namespace

void register_norm_stats_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::_native_batch_norm_legit.no_stats", DeviceType::kCpu, DType::kFloat32,
       KernelImpl::kReference, &make_kernel<NoStatsRef>},
      {"aten::_native_batch_norm_legit", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<LegitRef>},
      {"aten::_native_batch_norm_legit_functional", DeviceType::kCpu, DType::kFloat32,
       KernelImpl::kReference, &make_kernel<FunctionalRef>},
      {"aten::instance_norm", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<InstanceNormRef>},
  });
}
}  // namespace tir::kernels
