// Reference aten::_embedding_bag and aten::_embedding_bag_forward_only
// (kernels/shapes/indexing/embedding_bag.h). Offsets and indices are checked before anything
// is written; entries equal to padding_idx count for nothing.
#include "kernels/shapes/indexing/embedding_bag.h"

#include <limits>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

template <typename I>
Status bag_checked(const EmbeddingBagParams& p, const KernelCall& call) {
  const I* idx = call.inputs[p.indices].data_as<const I>();
  const I* off = call.inputs[p.offsets].data_as<const I>();
  for (int64_t k = 0; k < p.count; ++k)
    if (idx[k] < 0 || idx[k] >= p.rows)
      return op_error(call, StatusCode::kInvalidArgument, "index ", int64_t(idx[k]),
                      " at position ", k, " is out of range for weight with ", p.rows, " rows");
  for (int64_t b = 0; b < p.offset_count; ++b) {
    const int64_t prev = b ? int64_t(off[b - 1]) : 0;
    if ((b == 0 && off[0] != 0) || off[b] < prev || off[b] > p.count)
      return op_error(call, StatusCode::kInvalidArgument,
                      "offsets must start at 0 and not decrease "
                      "up to the number of indices ",
                      p.count, "; offset ", b, " is ", int64_t(off[b]));
  }
  const float* w = call.inputs[p.weight].data_as<const float>();
  const float* psw = p.per_sample >= 0 ? call.inputs[p.per_sample].data_as<const float>() : nullptr;
  float* y = call.outputs[0].data_as<float>();
  I* offset2bag = call.outputs[1].data_as<I>();
  I* bag_size = call.outputs[2].data_as<I>();
  I* max_idx = call.outputs[3].data_as<I>();
  const bool plain_sum = p.mode == BagMode::kSum && p.padding_idx < 0;
  for (int64_t b = 0; b < p.bags; ++b) {
    const int64_t lo = off[b];
    const int64_t hi = b + 1 < p.offset_count ? int64_t(off[b + 1]) : p.count;
    float* out = y + b * p.dim;
    I* arg = p.mode == BagMode::kMax ? max_idx + b * p.dim : nullptr;
    int64_t n = 0;
    for (int64_t d = 0; d < p.dim; ++d) {
      out[d] = p.mode == BagMode::kMax ? -std::numeric_limits<float>::infinity() : 0.f;
      if (arg) arg[d] = 0;
    }
    for (int64_t k = lo; k < hi; ++k) {
      if (!plain_sum) offset2bag[k] = static_cast<I>(b);
      if (idx[k] == p.padding_idx) continue;
      const float* row = w + int64_t(idx[k]) * p.dim;
      const float s = psw ? psw[k] : 1.f;
      for (int64_t d = 0; d < p.dim; ++d) {
        if (p.mode != BagMode::kMax) {
          out[d] += s * row[d];
        } else if (n == 0 || row[d] > out[d]) {
          out[d] = row[d];
          arg[d] = idx[k];
        }
      }
      ++n;
    }
    for (int64_t d = 0; d < p.dim; ++d) {
      if (n == 0) out[d] = 0;
      if (p.mode == BagMode::kMean && n > 0) out[d] /= static_cast<float>(n);
    }
    bag_size[b] = static_cast<I>(p.mode == BagMode::kSum ? 0 : n);
    if (p.mode != BagMode::kMax) max_idx[b] = bag_size[b];
  }
  return ok_status();
}

Status ref_embedding_bag(const EmbeddingBagParams& p, const KernelCall& call) {
  return p.index_dtype == DType::kInt32 ? bag_checked<int32_t>(p, call)
                                        : bag_checked<int64_t>(p, call);
}

using EmbeddingBagRef = CheckedKernel<EmbeddingBagParams, embedding_bag_prepare, ref_embedding_bag>;

}  // namespace

void register_embedding_bag_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::_embedding_bag", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<EmbeddingBagRef>},
      {"aten::_embedding_bag_forward_only", DeviceType::kCpu, DType::kFloat32,
       KernelImpl::kReference, &make_kernel<EmbeddingBagRef>},
      {"aten::embedding_bag.padding_idx", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<EmbeddingBagRef>},
  });
}
}  // namespace tir::kernels
