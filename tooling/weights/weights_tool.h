// The library behind `tirc weights`: pack (re-encode a weight file or safetensors as a tir
// weight file, optionally bf16/fp16 storage and zstd), diff (compare two weight sources) and
// extract (the weights of a .pt2 program). Kept out of the main so tests drive it directly.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/status.h"

namespace tir::tools {

struct PackOptions {
  std::string source;  // tir weight file or safetensors
  std::string output;
  /// kFloat16 / kBFloat16: store float32 tensors narrow (widened back at open); other
  /// dtypes are stored as they are. kInt8: store the GEMM weights of `model` as int8 with
  /// per-channel scales (tooling/weights/int8_plan.h), the rest as they are. kUndefined: keep every
  /// dtype.
  DType narrow = DType::kUndefined;
  bool zstd = false;
  int zstd_level = 3;
  /// The .tir model these weights belong to: the tensors are written in the order its
  /// methods first read them (a streaming run, `tirrun --weight-budget`, then reads the file
  /// front to back), and with kInt8 it says which tensors are GEMM weights and along which
  /// axis. Empty: source order (kInt8 then refuses).
  std::string model;
  /// With kInt8: per-input-channel max |activation| of the GEMMs reading each weight, by
  /// weight name (tooling/calibrate/calibrate.h, tir-calibrate). A weight found here is stored
  /// smoothed (SmoothQuant: q of w * s with s = smooth_factor(max|a|, max|w|, smooth_alpha) per
  /// input channel, and 1/s beside it, core/quantize.h); the rest as without it. Null: none
  /// smoothed.
  const std::map<std::string, std::vector<float>>* activation_max = nullptr;
  float smooth_alpha = 0.5f;
  /// With kInt8: GEMM weights kept float32 (their GEMMs then run in float32 unless the
  /// session's precision is int8). Every name must be a GEMM weight of the model.
  std::vector<std::string> keep_f32;
  /// With kInt8: > 0 stores every linear weight [N, K] as int4 instead (core/quantize_int4.h),
  /// in groups of this many values along K (32 or 128; anything else is refused), except the
  /// weights int4_kept_int8_weights names (embeddings, lm_head: int8 per channel), and any
  /// whose K is not a multiple of the group or that is read along axis 1 (an addmm/mm [K, N]
  /// weight): those fall back to int8 per channel, counted in the summary line.
  int64_t int4_group = 0;
  /// With int4_group: asymmetric groups (a scale and an offset each); else symmetric.
  bool int4_asymmetric = false;
  /// No "packing: i/n tensors" lines (the summary line stays).
  bool quiet = false;
  /// Called as tensors are written: bytes done and in all; may be empty.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

/// Writes `options.output` atomically; prints progress and a summary line to `out`.
Status weights_pack(const PackOptions& options, std::ostream& out);

/// Prints what differs between two weight sources (any format WeightSet::open reads): names
/// only in A / only in B, dtype or shape changes, the max abs difference of each common
/// tensor whose bytes differ, and a summary line. Returns whether they hold the same tensors
/// (names, dtypes, shapes; values bit for bit, or within `tolerance` max abs difference when it
/// is > 0). Differences are not errors; an unreadable source is.
Result<bool> weights_diff(const std::string& a, const std::string& b, double tolerance,
                          std::ostream& out);

/// `tirc weights extract PROGRAM.pt2 -o w.bin` (importer/weight_extract.h).
Status weights_extract(const std::string& program, const std::string& output, std::ostream& out);

}  // namespace tir::tools
