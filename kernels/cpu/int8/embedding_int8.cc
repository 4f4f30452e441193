// aten::embedding on the CPU: the reference row gather, but a table stored in int8 (`tirc
// weights pack --dtype int8`: an LLM's token embedding, tied to its lm_head) is read as
// stored: each looked-up row is dequantized into the output, and the table's float32
// dequantization is never made (OpCaps::int8_weight; Llama 3.2 1B: 1 GB less).
#include "core/quantize.h"
#include "kernels/cpu/register.h"
#include "kernels/kernel_util.h"
#include "kernels/reference/indexing/embedding.h"

namespace tir::kernels {
namespace {

class EmbeddingCpu final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(p_, embedding_prepare(call, out_info));
    const QuantizedWeight* q = call.input_quantization(size_t(p_.weight));
    int8_ = call.inputs[size_t(p_.weight)].data == nullptr && q != nullptr;
    // Per-row scales of a [num_embeddings, dim] table, as tirc writes an embedding; anything
    // else is read from its float32 dequantization, which the runtime makes on request.
    needs_float_ = int8_ && !(!q->int4() && q->axis == 0 && q->rows == p_.num_embeddings &&
                              q->cols == p_.dim && p_.dtype == DType::kFloat32);
    if (needs_float_) {
      out_info->needs_float_inputs |= uint64_t{1} << p_.weight;
      int8_ = false;
    }
    return ok_status();
  }

  Status run(const KernelCall& call, void*) override {
    if (needs_float_)
      return op_error(call, StatusCode::kInternal, "run without the table's float32 bytes");
    if (!int8_) return ref_embedding(p_, call);
    const QuantizedWeight& q = *call.input_quantization(size_t(p_.weight));
    float* y = call.outputs[0].data_as<float>();
    const void* idx = call.inputs[size_t(p_.indices)].data;
    for (int64_t i = 0; i < p_.count; ++i) {
      const int64_t row = p_.index_dtype == DType::kInt64 ? static_cast<const int64_t*>(idx)[i]
                                                          : static_cast<const int32_t*>(idx)[i];
      if (row < 0 || row >= p_.num_embeddings)
        return op_error(call, StatusCode::kInvalidArgument, "index ", row,
                        " is out of range for weight with ", p_.num_embeddings, " rows");
      dequantize_int8_per_channel(q.data + row * p_.dim, q.scales + row, 1, p_.dim, 0,
                                  y + i * p_.dim, q.inv_smooth);
    }
    return ok_status();
  }

 private:
  EmbeddingParams p_;
  bool int8_ = false;         // the table is read from its int8 storage
  bool needs_float_ = false;  // prepared without the table's float32 bytes, which it needs
};

}  // namespace

void register_embedding_int8(KernelRegistry& registry) {
  registry.add({{"aten::embedding", DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized,
                 &make_kernel<EmbeddingCpu>}});
}

}  // namespace tir::kernels
