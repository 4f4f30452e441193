// The op catalogue: the only list of the ops tir runs. Ops are grouped into families by what
// they compute (kernels/ops/<family>.cc, one table each); a row per ATen overload names the op,
// the dtypes each backend implements and what the graph passes may ask of its kernels.
//
// The catalogue is data: it links without any kernel, so the importer's op check and
// `tirc ops` read it without oneDNN or Eigen. The backends (kernels/reference, kernels/cpu,
// kernels/cuda) add their kernels to a KernelRegistry explicitly; the registry refuses a kernel
// for an op or dtype the catalogue does not list and reports every listed one a backend left
// out, so the catalogue and the kernels cannot drift apart.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

#include "core/dtype.h"
#include "core/tensor.h"

namespace tir::kernels {

/// Families by meaning; each is one table (kernels/ops/<name>.cc).
enum class Family : uint8_t {
  kUnary,
  kBinary,
  kReduction,
  kNormalization,
  kSoftmax,
  kLinearAlgebra,
  kConvolution,
  kPooling,
  kResampling,
  kMovement,
  kIndexing,
  kCreation,
  kSortSelect,
  kQuantization,
  kAssertion,
  kComplex,
  kSpectral,
};
inline constexpr int kNumFamilies = 17;

/// "linear_algebra": the family's table file and its name in `tirc ops`.
std::string_view family_name(Family f);

/// Where kernels run and how: reference kernels (plain loops, the oracle of every test), the
/// optimized CPU kernels (oneDNN, Eigen) and the CUDA kernels (cuBLAS and tir's own).
enum class Backend : uint8_t { kReference, kCpu, kCuda };
inline constexpr int kNumBackends = 3;

std::string_view backend_name(Backend b);

/// A set of dtypes, or "any dtype" (a kernel that takes every dtype it is given).
class DTypeSet {
 public:
  constexpr DTypeSet() = default;
  constexpr DTypeSet(std::initializer_list<DType> dtypes) {
    for (DType d : dtypes) bits_ |= bit(d);
  }
  static constexpr DTypeSet any() { return from_bits(bit(DType::kUndefined)); }

  /// `d` is listed; DType::kUndefined stands for "any dtype".
  constexpr bool contains(DType d) const { return (bits_ & bit(d)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  /// Every listed dtype in DType order, kUndefined ("any") first.
  template <typename F>
  void for_each(F&& f) const {
    for (int v = -1; v < 31; ++v)
      if (bits_ >> (v + 1) & 1u) f(static_cast<DType>(v));
  }

 private:
  static constexpr uint32_t bit(DType d) { return 1u << (static_cast<int>(d) + 1); }
  static constexpr DTypeSet from_bits(uint32_t b) {
    DTypeSet s;
    s.bits_ = b;
    return s;
  }
  uint32_t bits_ = 0;
};

/// What the graph passes may ask of an op's kernels, on the backends that offer it
/// (backend_caps): `epilogue`, the kernels apply a fused activation, batch norm and residual
/// (KernelCall::epilogue, batch_norm, residual; runtime/passes/fusion.h); `channels_last`, bit k
/// set when schema argument k may be a channels-last tensor (KernelCall::channels_last;
/// runtime/passes/layout.h).
struct OpCaps {
  bool epilogue = false;
  uint8_t channels_last = 0;
  /// The row of this op's in-place form (it writes its result into its first argument),
  /// which the state-update pass uses when the old value is dead; empty: none.
  std::string_view in_place = {};
  /// Type promotion (runtime/passes/promotion.h): bit k set when schema argument k's tensor
  /// is cast to the dtype the op computes in; `compare`: that dtype is torch.result_type of
  /// those operands (comparisons), else the output's (arithmetic; and the reductions, scans
  /// and softmax that take dtype=, whose input torch casts to that dtype first). `bool_other`: the
  /// kernels read a bool argument 1 as 0/1 themselves (no cast).
  uint8_t promoted = 0;
  bool compare = false;
  bool bool_other = false;
  /// The kernels take a tensor of every dtype tir stores, float16 and bfloat16 included: they
  /// move elements (views, copies, gathers, scatters that overwrite) or cast them, never
  /// compute on their values. runtime/passes/narrow_dtypes.h leaves such nodes in the
  /// program's dtype; other ops on float16/bfloat16 compute in float32, on uint8/int8/int16 in
  /// int64.
  bool all_dtypes = false;
  /// Bit k: the kernels of a float32 node read schema argument k as stored when it is a
  /// float16/bfloat16 weight (the GEMM family's B: no float32 copy of a half-precision
  /// program's weights). runtime/passes/narrow_dtypes.h leaves such a weight narrow.
  uint8_t half_weight = 0;
  /// Bit k: the kernels may read schema argument k from its int8 storage alone when it is an
  /// int8-stored weight (KernelCall::input_quantization). The runtime then binds it without
  /// its float32 dequantization (data null); a kernel that needs that after all says so in
  /// PrepareInfo::needs_float_inputs and is prepared again with it.
  uint8_t int8_weight = 0;

  bool accepts_channels_last(size_t arg) const { return arg < 8 && (channels_last >> arg & 1u); }
  friend bool operator==(const OpCaps&, const OpCaps&) = default;
};

/// The capabilities a backend's kernels offer where their op's row lists them: the reference
/// and CPU kernels apply epilogues, only the optimized CPU kernels read channels-last.
constexpr OpCaps backend_caps(Backend b) {
  switch (b) {
    case Backend::kReference:
      return {.epilogue = true, .half_weight = 0xff};
    case Backend::kCpu:
      return {.epilogue = true, .channels_last = 0xff, .half_weight = 0xff, .int8_weight = 0xff};
    case Backend::kCuda:
      return {};
  }
  return {};
}

/// One ATen overload: "aten::add.Tensor", the dtypes of its first tensor input each backend
/// implements (empty: none) and its capabilities.
struct OpRow {
  std::string_view op;
  DTypeSet reference;
  DTypeSet cpu;
  DTypeSet cuda;
  OpCaps caps;

  DTypeSet dtypes(Backend b) const {
    return b == Backend::kReference ? reference : b == Backend::kCpu ? cpu : cuda;
  }
  /// The row's capabilities as backend `b` offers them.
  OpCaps caps_on(Backend b) const {
    const OpCaps offered = backend_caps(b);
    return {.epilogue = caps.epilogue && offered.epilogue,
            .channels_last = static_cast<uint8_t>(caps.channels_last & offered.channels_last),
            .in_place = caps.in_place,
            .promoted = caps.promoted,
            .compare = caps.compare,
            .bool_other = caps.bool_other,
            .all_dtypes = caps.all_dtypes,
            .half_weight = static_cast<uint8_t>(caps.half_weight & offered.half_weight),
            .int8_weight = static_cast<uint8_t>(caps.int8_weight & offered.int8_weight)};
  }
};

/// One family's table.
struct FamilyTable {
  Family family;
  std::span<const OpRow> rows;
};

/// Every family, in Family order.
std::span<const FamilyTable> op_catalogue();

/// The row of `op` and its family; nullptr when the catalogue has no such op.
const OpRow* find_op_row(std::string_view op, Family* family = nullptr);

/// The backend of a kernel on `device` of implementation `optimized` (registry entries).
constexpr Backend backend_of(DeviceType device, bool optimized) {
  return device == DeviceType::kCuda ? Backend::kCuda
         : optimized                 ? Backend::kCpu
                                     : Backend::kReference;
}

/// True when some backend on `device` implements `op` for some dtype.
bool catalogue_has_op(std::string_view op, DeviceType device);

/// True for a custom op: "ns::name[.overload]" whose namespace is none that torch or tir own
/// (aten, prims, higher_order, quantized_decomposed, tir, _operator, ...), such as a user's
/// torch.library op "mylib::scaled_add". The catalogue never lists one; an application
/// registers its kernel (KernelRegistry::add_custom) and `tirc import --custom-op` keeps it.
bool is_custom_op(std::string_view op);

}  // namespace tir::kernels
