// The kernel interface. A kernel instance belongs to one node of one loaded method.
//
// Life cycle (XNNPACK/TFLM style): the runtime calls `prepare` once per distinct input
// shape binding, then `run` any number of times. `prepare` does all the work that depends
// only on shapes and weights: validate arguments, infer output dtypes and shapes, size the
// scratch buffer, build oneDNN primitives, pack weights. `run` only computes, into outputs
// the memory planner already placed; it never allocates or validates.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "core/precision.h"
#include "core/status.h"
#include "core/tensor.h"
#include "kernels/ops/unary.h"

namespace tir::kernels {

/// Kinds of argument a node passes, after the runtime resolved symbolic ints.
enum class ArgKind : uint8_t {
  kNone,
  kInt,    // also ATen Scalar given as int, and SymInt
  kFloat,  // also ATen Scalar given as float
  kBool,
  kInts,  // int[] / SymInt[]
  kFloats,
  kBools,  // stored in `ints` as 0/1
  kString,
  kTensor,        // `i` indexes KernelCall::inputs
  kTensors,       // `ints` index KernelCall::inputs; -1 is None (Tensor?[])
  kDType,         // `i` is a tir::DType value
  kMemoryFormat,  // `i` is the torch serde MemoryFormat number
  kLayout,
  kDevice,  // `s` is the device type ("cpu"), `i` the index or -1
};

/// One schema argument as a kernel sees it. Every argument of the operator schema is
/// present, in schema order (the importer filled the defaults). Spans point into memory
/// owned by the runtime's prepared method and stay valid while the kernel lives.
struct Arg {
  ArgKind kind = ArgKind::kNone;
  int64_t i = 0;
  double f = 0;
  std::span<const int64_t> ints;
  std::span<const double> floats;
  std::string_view s;
  /// The schema argument's name ("alpha"), as the program names it.
  std::string_view name;

  bool is_none() const { return kind == ArgKind::kNone; }
  /// An ATen Scalar (int, float or bool) as double.
  double scalar() const { return kind == ArgKind::kFloat ? f : static_cast<double>(i); }
};

/// The argument named `name`, or nullptr. ATen kernels read arguments by position (the
/// importer filled every one); a custom op's kernel reads them by name, since its node holds
/// only the arguments the program gave (torch.export omits those left at their default).
inline const Arg* find_arg(std::span<const Arg> args, std::string_view name) {
  for (const Arg& a : args)
    if (a.name == name) return &a;
  return nullptr;
}

/// Handles that a device owns and its kernels use (the oneDNN engine and streams of a CPU
/// device; a cuBLAS handle and stream later). The runtime's Device (runtime/devices/device.h)
/// passes its own to every call; a kernel that needs one casts it to its backend's type
/// (kernels/cpu/onednn/onednn_context.h). Null outside a session (kernel tests): backends then use
/// a default context of their own.
class DeviceContext {
 public:
  virtual ~DeviceContext() = default;
};

/// Identifies the bytes of a weight for derived copies (kernels/packed_cache.h): the tensor's
/// slot in its weight set and the generation of those bytes (a new one for every set or
/// overlay delta that supplies them). Not a weight: slot -1.
struct WeightKey {
  int32_t slot = -1;
  uint64_t generation = 0;
  bool valid() const { return slot >= 0; }
  friend bool operator==(const WeightKey&, const WeightKey&) = default;
  friend auto operator<=>(const WeightKey&, const WeightKey&) = default;
};

class PackedCache;
class RandomStream;

/// The runtime's hold on mapped weights' resident pages (WeightServices::weight_pages).
class WeightPages {
 public:
  virtual ~WeightPages() = default;
  /// Lets the resident pages lying wholly inside bytes [offset, offset + size) of weight `key`
  /// go when they are mapped from the weight file (a later read maps them again); bytes the
  /// runtime owns are kept. For a kernel that copies a weight piece by piece in `prepare`, so
  /// the plain bytes and the copy are not both resident in full.
  virtual void drop(WeightKey key, size_t offset, size_t size) const = 0;
};

/// A weight stored as int8 (`tirc weights pack --dtype int8`, core/quantize.h): a 2-D
/// [rows, cols] tensor's values q in its own layout and one float32 scale per channel along
/// `axis` (0: per row, 1: per column), w ~= q * scale. The float32 tensor the graph sees is
/// the dequantized one; int8 GEMM kernels read these bytes instead. A smoothed weight
/// (`tir-calibrate`, SmoothQuant) holds q of w * s, s per input channel (the
/// axis other than `axis`): w ~= q * scale * inv_smooth, and an int8 GEMM multiplies its
/// activations by inv_smooth before quantizing them.
///
/// With `group` > 0 the weight is stored int4 (`tirc weights pack --dtype int4`,
/// core/quantize_int4.h): `data` points at its 4-bit codes (two per byte, not int8 values),
/// `scales` at one float per group of `group` values along a row (axis 0), `offsets` at one
/// per group (asymmetric) or null (symmetric). Kernels that read int8 values check `group`.
struct QuantizedWeight {
  const int8_t* data = nullptr;
  const float* scales = nullptr;
  int64_t rows = 0, cols = 0;
  int axis = 0;
  const float* inv_smooth = nullptr;  // one per input channel; null: not smoothed
  int64_t group = 0;                  // > 0: int4 in groups of this many values
  const float* offsets = nullptr;     // int4 asymmetric: one per group
  bool int4() const { return group > 0; }
};

/// An inference batch norm folded into a convolution (the fusion pass sets it when the graph
/// normalizes the conv's output right after it): per output channel c,
///   y = (conv(x)[c] - mean[c]) * weight[c] / sqrt(var[c] + eps) + bias[c],
/// applied before the epilogue. Fields index KernelCall::inputs; weight and bias are -1 when
/// None (then 1 and 0). Only convolution kernels that take epilogues (OpCaps) see one.
struct BatchNormFold {
  int weight = -1, bias = -1, mean = -1, var = -1;
  double eps = 0;
  bool present() const { return mean >= 0; }
};

/// What the runtime knows about a call's weights, for the few kernels that keep a form of a
/// weight of their own (oneDNN GEMMs and convolutions that pack it, int8 kernels that read its
/// int8 storage). KernelCall::weights points at it; null outside a session (kernel tests) or
/// where the runtime has none to give.
struct WeightServices {
  /// Where a kernel keeps what it derives from a weight (a packed copy) so that every kernel
  /// of every session on the same weight set shares one (kernels/packed_cache.h); null: the
  /// kernel keeps its own.
  PackedCache* packed_cache = nullptr;
  /// Per input: which weight's bytes it holds (for packed_cache keys), or an invalid key for
  /// activations. Empty: no input is a known weight.
  std::span<const WeightKey> input_keys;
  /// Per input: its int8 storage when it is a weight stored int8, else null. Empty: none is.
  std::span<const QuantizedWeight* const> input_quantized;
  /// Set when the runtime lets mapped weights' pages go (input_keys name the weights); for
  /// `prepare`. Null: keep every byte.
  const WeightPages* weight_pages = nullptr;
};

/// Everything a kernel call sees. Input tensors are listed in the order their arguments
/// appear (a folded batch norm's tensors, then a fused residual, after them); during `prepare`
/// activations have data == nullptr while weights and constants already point at their bytes
/// (so a kernel may pack them).
struct KernelCall {
  std::string_view op;    // "aten::add.Tensor"
  std::string_view node;  // FX node name, for messages
  std::span<const Arg> args;
  std::span<Tensor> inputs;
  std::span<Tensor> outputs;  // one per op return; prepare fills dtype and shape
  /// An activation the producer (GEMM, convolution) applies to outputs[0] before writing it,
  /// one that ops::fusable_as_epilogue accepts: the fusion pass (runtime/passes/fusion.h) sets
  /// it when the graph computes the activation right after the producer. Only kernels whose
  /// registry entry says so (KernelEntry::caps, from the op catalogue) ever see one.
  std::optional<ops::UnaryKind> epilogue;
  BatchNormFold batch_norm;                   // folded conv + batch norm (fused convs only)
  Precision precision = Precision::kFloat32;  // GEMM-class kernels may compute in bf16
  /// Fused residual add (convs only): index into `inputs` of a tensor shaped like outputs[0],
  /// added after the batch norm and before the epilogue: y = act(conv(x) * bn + residual).
  int residual = -1;
  /// Write outputs[0] channels-last: a 4-D [N, C, H, W] tensor stored N, H, W, C, its strides
  /// saying so (runtime/passes/layout.h chooses such values). Only kernels that accept
  /// channels-last on some argument (OpCaps::channels_last of their registry entry) see it set.
  bool channels_last = false;
  /// The device's handles (see DeviceContext); null outside a session.
  DeviceContext* context = nullptr;
  /// The weight services (see WeightServices); null: none.
  const WeightServices* weights = nullptr;
  /// Where random ops draw (kernels/random.h: the session's seeded stream); null: the
  /// process's default stream (seed 0).
  RandomStream* random = nullptr;

  WeightKey input_key(size_t k) const {
    return weights && k < weights->input_keys.size() ? weights->input_keys[k] : WeightKey{};
  }
  const QuantizedWeight* input_quantization(size_t k) const {
    return weights && k < weights->input_quantized.size() ? weights->input_quantized[k] : nullptr;
  }
  PackedCache* packed_cache() const { return weights ? weights->packed_cache : nullptr; }
  const WeightPages* weight_pages() const { return weights ? weights->weight_pages : nullptr; }
};

inline constexpr int kMaxOutputs = 16;

/// What `prepare` reports back to the planner.
struct PrepareInfo {
  size_t scratch_bytes = 0;  // per-run scratch, 64-byte aligned
  /// output k is a view of inputs[output_alias[k]] (same bytes, contiguous, new shape);
  /// the planner gives it no memory of its own. -1: the output has its own buffer.
  std::array<int8_t, kMaxOutputs> output_alias = no_alias();
  /// Bit k set: prepare copied inputs[k]'s bytes into a form of its own (packed, folded) and
  /// `run` does not read them while the input's data pointer stays what prepare saw. The
  /// runtime may then let a mapped weight's pages go (they are read from the file again if
  /// anything touches them). Inputs past the 64th are never reported.
  uint64_t packed_inputs = 0;
  /// Bit k set: inputs[k] is an int8-stored weight bound without its float32 bytes (data null:
  /// its op's row lists it in OpCaps::int8_weight) that this kernel needs after all; prepare
  /// did nothing else. The runtime dequantizes it and prepares the node again.
  uint64_t needs_float_inputs = 0;

  static constexpr std::array<int8_t, kMaxOutputs> no_alias() {
    std::array<int8_t, kMaxOutputs> a{};
    for (int8_t& x : a) x = -1;
    return a;
  }
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  /// Validates args and input shapes, fills every output's dtype and shape (contiguous
  /// strides), may build primitives and pack weights. Called again when shapes change.
  /// Errors start with "node '<node>' (<op>): " (kernel_util.h op_error); the runtime
  /// passes them on unchanged.
  virtual Status prepare(const KernelCall& call, PrepareInfo* out_info) = 0;
  /// Computes outputs. `scratch` has PrepareInfo::scratch_bytes bytes. Returns an error
  /// only for vendor failures.
  virtual Status run(const KernelCall& call, void* scratch) = 0;
};

}  // namespace tir::kernels
