// Shape inference for the products that are one fixed einsum (kernels/shapes/linear_algebra/
// einsum.h), so they share its plan and kernels:
//   outer(self, vec2), ger           i,j->ij          dot(self, tensor), vdot   i,i->
//   mv(self, vec)                    ij,j->i          trace(self)  the diagonal summed
//   addmv(self, mat, vec, *, beta, alpha)      beta self + alpha (ij,j->i)
//   addr(self, vec1, vec2, *, beta, alpha)     beta self + alpha (i,j->ij)
//   addbmm(self, b1, b2, *, beta, alpha)       beta self + alpha (bij,bjk->ik)
//   bilinear(input1, input2, weight, bias?)    ...i,...j,oij->...o + bias
//   _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim): each input
//     unsqueezed at its expand dims, the product summed over sumdim (the core IR's bilinear)
#pragma once

#include "kernels/shapes/linear_algebra/einsum.h"

namespace tir::kernels {

enum class Contraction : uint8_t { kOuter, kDot, kMv, kAddmv, kAddr, kAddbmm };

template <Contraction C>
Result<EinsumParams> contraction_prepare(const KernelCall& call, PrepareInfo* out_info);
/// trace(self) of an [n, m] matrix: its first min(n, m) diagonal elements summed.
Result<EinsumParams> contraction_prepare_trace(const KernelCall& call, PrepareInfo* out_info);
Result<EinsumParams> contraction_prepare_bilinear(const KernelCall& call, PrepareInfo* out_info);
Result<EinsumParams> contraction_prepare_trilinear(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
