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
  reorder_ = {};  // made on first use: bytes read from a layout cache need none
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

std::string onednn_pack_key(const memory::desc& from, const memory::desc& to) {
  // oneDNN's version and the ISA it dispatches to: a layout another build or CPU chose
  // never matches (a layout cache file from elsewhere is then ignored, entry by entry).
  static const std::string prefix = [] {
    const dnnl_version_t* v = dnnl_version();
    return "onednn " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
           std::to_string(v->patch) + " " + (v->hash ? v->hash : "") + " isa " +
           std::to_string(int(dnnl_get_effective_cpu_isa())) + "|";
  }();
  std::string how = prefix;
  how.append(reinterpret_cast<const char*>(&from.data), sizeof(from.data));
  how.append(reinterpret_cast<const char*>(&to.data), sizeof(to.data));
  return how;
}

bool onednn_pack_ready(const KernelCall& call, size_t input, const memory::desc& from,
                       const memory::desc& to) {
  const WeightKey key = call.input_key(input);
  return call.packed_cache() != nullptr && key.valid() &&
         call.packed_cache()->has_storable(key, onednn_pack_key(from, to), to.get_size());
}

Result<std::shared_ptr<memory>> OnednnOperand::pack(const KernelCall& call, const void* data) {
  const auto make = [&]() -> Result<PackedEntry> {
    auto m = std::make_shared<memory>(bf16_.get_desc(), onednn_engine(call));
    TIR_RETURN_IF_ERROR(reorder_into(call, data, m->get_data_handle()));
    const std::span<const uint8_t> bytes(static_cast<const uint8_t*>(m->get_data_handle()),
                                         m->get_desc().get_size());
    return PackedEntry{std::shared_ptr<void>(std::move(m)), bytes};
  };
  const WeightKey key = call.input_key(input_);
  if (call.packed_cache() == nullptr || !key.valid()) {
    TIR_ASSIGN_OR_RETURN(PackedEntry made, make());
    return std::static_pointer_cast<memory>(made.owner);
  }
  // Keyed by how the bytes are read and how they are laid out for the primitive; stored
  // bytes (a layout cache file, read-only) are read in place: oneDNN never writes weights.
  const auto wrap = [&](std::span<const uint8_t> bytes) -> Result<std::shared_ptr<void>> {
    return std::shared_ptr<void>(std::make_shared<memory>(bf16_.get_desc(), onednn_engine(call),
                                                          const_cast<uint8_t*>(bytes.data())));
  };
  TIR_ASSIGN_OR_RETURN(
      std::shared_ptr<void> made,
      call.packed_cache()->get_storable(key, onednn_pack_key(user_.get_desc(), bf16_.get_desc()),
                                        bf16_.get_desc().get_size(), wrap, make));
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
  if (!reorder_) reorder_ = dnnl::reorder(user_, bf16_);
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
