#include "kernels/cpu/onednn/onednn_operand.h"

#include <cstdio>
#include <mutex>
#include <string>

#include "kernels/packed_cache.h"

namespace tir::kernels {

using dnnl::memory;

Status OnednnOperand::init(const KernelCall& call, const memory::desc& user,
                           const memory::desc& packed, size_t input, size_t* scratch_end) {
  dnnl::engine& eng = onednn_engine(call);
  const void* data = call.inputs[input].data;
  input_ = input;
  user_ = memory(user, eng, DNNL_MEMORY_NONE);
  bf16_ = memory(packed, eng, DNNL_MEMORY_NONE);
  reorder_ = dnnl::reorder(user_, bf16_);
  args_ = {{DNNL_ARG_FROM, user_.get()}, {DNNL_ARG_TO, bf16_.get()}};
  packed_from_ = nullptr;
  if (data == nullptr) {
    scratch_offset_ = *scratch_end;
    *scratch_end += align64(packed.get_size());
    return ok_status();
  }
  TIR_ASSIGN_OR_RETURN(packed_, pack(call, data));
  packed_from_ = data;
  return ok_status();
}

Result<std::shared_ptr<memory>> OnednnOperand::pack(const KernelCall& call, const void* data) {
  const auto make = [&]() -> Result<std::shared_ptr<void>> {
    auto m = std::make_shared<memory>(bf16_.get_desc(), onednn_engine(call));
    TIR_RETURN_IF_ERROR(reorder_into(call, data, m->get_data_handle()));
    return std::shared_ptr<void>(std::move(m));
  };
  std::shared_ptr<void> made;
  const WeightKey key = call.input_key(input_);
  if (call.packed_cache() == nullptr || !key.valid()) {
    TIR_ASSIGN_OR_RETURN(made, make());
  } else {  // keyed by how the bytes are read and how they are laid out for the primitive
    const dnnl_memory_desc_t& from = user_.get_desc().data;
    const dnnl_memory_desc_t& to = bf16_.get_desc().data;
    std::string how(reinterpret_cast<const char*>(&from), sizeof(from));
    how.append(reinterpret_cast<const char*>(&to), sizeof(to));
    TIR_ASSIGN_OR_RETURN(made, call.packed_cache()->get(key, how, make));
  }
  return std::static_pointer_cast<memory>(made);
}

Result<void*> OnednnOperand::convert(const KernelCall& call, const void* data, void* scratch) {
  if (packed_from_ == nullptr) {
    void* to = static_cast<char*>(scratch) + scratch_offset_;
    TIR_RETURN_IF_ERROR(reorder_into(call, data, to));
    return to;
  }
  if (data != packed_from_) {  // the weights were swapped since prepare
    TIR_ASSIGN_OR_RETURN(packed_, pack(call, data));
    packed_from_ = data;
  }
  return packed_->get_data_handle();
}

Status OnednnOperand::reorder_into(const KernelCall& call, const void* data, void* to) {
  user_.set_data_handle(const_cast<void*>(data));
  bf16_.set_data_handle(to);
  return onednn_execute(call, reorder_, args_);
}

void onednn_note_bf16_unavailable(const KernelCall& call, const char* what) {
  static std::once_flag once;
  std::call_once(once, [&] {
    std::fprintf(stderr,
                 "tir: warning: oneDNN has no bf16 implementation for node '%.*s' (%.*s) on this "
                 "CPU (%s); bf16 nodes it cannot run compute in float32\n",
                 int(call.node.size()), call.node.data(), int(call.op.size()), call.op.data(),
                 what);
  });
}

void onednn_note_int8_unavailable(const KernelCall& call, const char* what) {
  static std::once_flag once;
  std::call_once(once, [&] {
    std::fprintf(stderr,
                 "tir: warning: no int8 GEMM for node '%.*s' (%.*s) on this CPU (%s); int8 "
                 "nodes it cannot run compute in float32\n",
                 int(call.node.size()), call.node.data(), int(call.op.size()), call.op.data(),
                 what);
  });
}

}  // namespace tir::kernels
