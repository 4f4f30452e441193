// Read-only view over a verified .tir FlatBuffer. `ModelView::open` runs the FlatBuffers
// verifier and tir's semantic checks once; afterwards every accessor trusts the model.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/status.h"
#include "ir/tir_generated.h"

namespace tir::ir {

/// The generated FlatBuffers types (namespace tir.fb in tir.fbs), reachable as ir::fb.
namespace fb = ::tir::fb;

/// Version written into Model.version; a reader rejects a larger major (version / 100).
/// 101: Method.subgraphs and GraphArg (higher_order::cond).
/// 102: the file ends with a checksum trailer (model_seal); a 102 file without one is
/// rejected, a 101 file loads without it.
inline constexpr uint32_t kModelVersion = 102;
inline constexpr uint32_t kFirstSealedModelVersion = 102;

/// A .tir file is the FlatBuffer followed by a 16-byte trailer: the xxh3-64 of every byte
/// before the trailer (little-endian), then these 8 bytes. FlatBuffers ignores bytes after
/// its buffer, so older readers still load a sealed file.
inline constexpr char kModelTrailerMagic[8] = {'T', 'I', 'R', 'S', 'U', 'M', '0', '1'};
inline constexpr size_t kModelTrailerSize = 16;

/// `flatbuffer` with the checksum trailer appended: the bytes a .tir file holds.
std::vector<uint8_t> model_seal(std::span<const uint8_t> flatbuffer);

/// torch.cond: args (pred, true_graph, false_graph, operands); runs one branch subgraph.
inline constexpr std::string_view kCondOp = "higher_order::cond";
/// torch's loops (runtime/exec/loops.h): args (cond_fn, body_fn, carried, additional),
/// (combine_fn, init, xs, additional) and (body_fn, xs, args); subgraphs take every operand
/// list in order.
inline constexpr std::string_view kWhileLoopOp = "higher_order::while_loop";
inline constexpr std::string_view kScanOp = "higher_order::scan";
inline constexpr std::string_view kMapOp = "higher_order::map_impl";

inline bool is_loop_op(std::string_view op) {
  return op == kWhileLoopOp || op == kScanOp || op == kMapOp;
}
/// Ops the runtime runs itself, over subgraphs, rather than through a kernel.
inline bool is_control_flow_op(std::string_view op) { return op == kCondOp || is_loop_op(op); }

inline DType to_dtype(fb::DType d) { return static_cast<DType>(static_cast<int8_t>(d)); }
inline fb::DType to_fb_dtype(DType d) { return static_cast<fb::DType>(static_cast<int8_t>(d)); }

class ModelView {
 public:
  /// Verifies `bytes` and returns a view over them. `bytes` must stay alive and unchanged
  /// while the view (or anything taken from it) is used. `file` names the source in errors.
  static Result<ModelView> open(std::span<const uint8_t> bytes, std::string_view file);

  const fb::Model& model() const { return *model_; }
  /// The method named `name`, or nullptr.
  const fb::Method* method(std::string_view name) const;
  /// Comma-separated method names, for messages.
  std::string method_names() const;

 private:
  explicit ModelView(const fb::Model* m) : model_(m) {}
  const fb::Model* model_;
};

/// True when the elements of `v` sit at their natural alignment. The FlatBuffers verifier
/// (2.0.8) checks a vector's length prefix for 4-byte alignment only, so a hostile file can
/// misplace a vector of 8-byte elements (found by the fuzzers).
template <typename T>
bool elements_aligned(const flatbuffers::Vector<T>* v) {
  return !v || v->size() == 0 || reinterpret_cast<uintptr_t>(v->data()) % alignof(T) == 0;
}

/// "a.b" or "" for null flatbuffer strings.
inline std::string_view str(const flatbuffers::String* s) {
  return s ? std::string_view(s->c_str(), s->size()) : std::string_view();
}

/// Calls f(value, argument index) for every tensor a node reads through its arguments
/// (a Tensor[] argument's None entries skipped).
template <typename F>
void for_each_tensor_arg(const fb::Node& node, F&& f) {
  if (!node.args()) return;
  for (size_t k = 0; k < node.args()->size(); ++k) {
    const fb::Argument* a = node.args()->Get(k);
    if (a->value_type() == fb::ArgValue::TensorArg) f(a->value_as_TensorArg()->value(), k);
    if (a->value_type() == fb::ArgValue::TensorsArg && a->value_as_TensorsArg()->values())
      for (int32_t v : *a->value_as_TensorsArg()->values())
        if (v >= 0) f(v, k);
  }
}

}  // namespace tir::ir
