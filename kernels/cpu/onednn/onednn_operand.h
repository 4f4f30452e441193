// An operand of a oneDNN GEMM or matmul primitive in another layout or dtype than the graph
// stores it: float32 weights packed into the blocked layout the primitive prefers, or the
// bfloat16 operands of bf16 compute (KernelCall::precision == kBFloat16).
//
// An activation is converted on every run into the kernel's scratch. A weight or constant
// (its bytes are known at prepare) is packed once; if `run` sees another data pointer
// (weights swapped) it packs again, so the result always comes from the current weights.
// Packed copies of weights live in the weight set's cache (WeightServices::packed_cache), keyed
// by the input's WeightKey, shared by every kernel packing the same tensor the same way.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu/onednn/onednn_context.h"

namespace tir::kernels {

class OnednnOperand {
 public:
  /// `user`: the float32 layout as the graph stores it; `packed`: the layout (and dtype) the
  /// primitive reads. `input`: the operand's index in `call.inputs`; when its bytes are known
  /// now (a weight or constant) it is packed here, else converted per run into scratch at
  /// `*scratch_end`, which then grows.
  Status init(const KernelCall& call, const dnnl::memory::desc& user,
              const dnnl::memory::desc& packed, size_t input, size_t* scratch_end);
  /// The bf16 bytes of `data` for this run (converting as needed); `scratch` is the
  /// kernel's run scratch.
  Result<void*> convert(const KernelCall& call, const void* data, void* scratch);

 private:
  Status reorder_into(const KernelCall& call, const void* data, void* to);
  /// `data` packed: from the call's cache (made there on first request) or a fresh copy.
  Result<std::shared_ptr<dnnl::memory>> pack(const KernelCall& call, const void* data);

  dnnl::reorder reorder_;
  dnnl::memory user_, bf16_;
  std::shared_ptr<dnnl::memory> packed_;
  const void* packed_from_ = nullptr;  // non-null: a constant, packed_ holds it as bf16
  size_t input_ = 0;                   // index in KernelCall::inputs
  size_t scratch_offset_ = 0;
  std::vector<dnnl_exec_arg_t> args_;
};

/// The packed-cache key of a weight read as `from` and packed as `to`: both descriptors'
/// bytes, oneDNN's version and the CPU ISA it dispatches to (kernels/packed_cache.h).
std::string onednn_pack_key(const dnnl::memory::desc& from, const dnnl::memory::desc& to);
/// Whether weight input `input` of `call`, read as `from`, is packed as `to` already (in the
/// weight set's cache or its layout cache file): using it then packs nothing.
bool onednn_pack_ready(const KernelCall& call, size_t input, const dnnl::memory::desc& from,
                       const dnnl::memory::desc& to);

/// Says once per process on stderr that oneDNN has no bf16 implementation for `call` on
/// this CPU (`what`: oneDNN's message); the caller then computes that node in float32.
void onednn_note_bf16_unavailable(const KernelCall& call, const char* what);
/// The same for int8 (`what`: why the int8 primitive could not be made).
void onednn_note_int8_unavailable(const KernelCall& call, const char* what);

}  // namespace tir::kernels
