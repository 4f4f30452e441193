// The reduction family's kind enum: what a reduction over a set of dimensions computes (the
// shape rules are kernels/shapes/reduction/reduction.h's, the loops kernels/reference/reduction/;
// the family's catalogue rows are kernels/ops/reduction.cc).
#pragma once

#include <cstdint>

namespace tir::kernels::ops {

enum class ReduceKind : uint8_t {
  kAmin,
  kAmax,
  kArgmax,
  kArgmin,
  kMaxDim,  // values + indices
  kMinDim,
  kProd,
  kVar,
  kStd,
  kMean,
  kSum,
  kAny,
  kAll,
  kNorm,       // linalg_vector_norm: (sum |x|^ord)^(1/ord); max/min |x| at +-inf; count at 0
  kLogsumexp,  // log(sum(exp(x))), from the max
};

}  // namespace tir::kernels::ops
