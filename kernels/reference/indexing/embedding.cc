// Reference aten::embedding: a row gather. Indices are data, so they are checked here,
// in run: an out-of-range index is an error, never an out-of-bounds read.
#include "kernels/reference/indexing/embedding.h"

#include <cstring>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {

Status ref_embedding(const EmbeddingParams& p, const KernelCall& call) {
  const auto* w = static_cast<const char*>(call.inputs[p.weight].data);
  auto* y = static_cast<char*>(call.outputs[0].data);
  const size_t row_bytes = static_cast<size_t>(p.dim) * dtype_size(p.dtype);
  const void* idx = call.inputs[p.indices].data;
  for (int64_t i = 0; i < p.count; ++i) {
    const int64_t row = p.index_dtype == DType::kInt64 ? static_cast<const int64_t*>(idx)[i]
                                                       : static_cast<const int32_t*>(idx)[i];
    if (row < 0 || row >= p.num_embeddings) {
      return op_error(call, StatusCode::kInvalidArgument, "index ", row,
                      " is out of range for weight with ", p.num_embeddings, " rows");
    }
    std::memcpy(y + i * row_bytes, w + row * row_bytes, row_bytes);
  }
  return ok_status();
}

namespace {

class EmbeddingRef final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(params_, embedding_prepare(call, out_info));
    return ok_status();
  }
  Status run(const KernelCall& call, void*) override { return ref_embedding(params_, call); }

 private:
  EmbeddingParams params_;
};

}  // namespace

void register_embedding_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::embedding", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<EmbeddingRef>},
      {"aten::embedding", DeviceType::kCpu, DType::kFloat16, KernelImpl::kReference,
       &make_kernel<EmbeddingRef>},
      {"aten::embedding", DeviceType::kCpu, DType::kBFloat16, KernelImpl::kReference,
       &make_kernel<EmbeddingRef>},
  });
}
}  // namespace tir::kernels
