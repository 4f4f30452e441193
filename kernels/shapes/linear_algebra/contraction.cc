#include "kernels/shapes/linear_algebra/contraction.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

struct Form {
  const char* equation;
  int operands;  // tensor arguments after the added one (if any)
  bool added;    // argument 0 is the tensor beta scales
};

constexpr Form form(Contraction c) {
  switch (c) {
    case Contraction::kOuter:
      return {"i,j->ij", 2, false};
    case Contraction::kDot:
      return {"i,i->", 2, false};
    case Contraction::kMv:
      return {"ij,j->i", 2, false};
    case Contraction::kAddmv:
      return {"ij,j->i", 2, true};
    case Contraction::kAddr:
      return {"i,j->ij", 2, true};
    case Contraction::kAddbmm:
      return {"bij,bjk->ik", 2, true};
  }
  return {"", 0, false};
}

/// Broadcasts the tensor argument `idx` to the output (its trailing dims against the output's
/// labels) and makes it the plan's added tensor.
Status add_tensor(const KernelCall& call, size_t idx, EinsumParams& p) {
  TIR_ASSIGN_OR_RETURN(const Tensor* t, tensor_arg(call, idx, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *t, "self"));
  const Tensor& out = call.outputs[0];
  if (t->dtype != p.dtype)
    return op_error(call, StatusCode::kInvalidArgument, "self of dtype ", dtype_name(t->dtype),
                    ", the product is ", dtype_name(p.dtype));
  if (t->rank > out.rank)
    return op_error(call, StatusCode::kInvalidArgument, "self ", shape_str(t->shape()),
                    " does not broadcast to ", shape_str(out.shape()));
  p.added = static_cast<int>(tensor_input_index(call, idx));
  p.added_stride.assign(p.size.size(), 0);
  for (int d = 0; d < t->rank; ++d) {
    const int od = out.rank - t->rank + d;
    if (t->sizes[d] == out.sizes[od]) {
      p.added_stride[size_t(p.out_labels[size_t(od)])] = t->sizes[d] == 1 ? 0 : t->strides[d];
    } else if (t->sizes[d] != 1) {
      return op_error(call, StatusCode::kInvalidArgument, "self ", shape_str(t->shape()),
                      " does not broadcast to ", shape_str(out.shape()));
    }
  }
  return ok_status();
}

Result<double> optional_scalar(const KernelCall& call, size_t idx, std::string_view name) {
  if (idx >= call.args.size() || call.args[idx].is_none()) return 1.0;
  return scalar_arg(call, idx, name);
}

}  // namespace

Result<EinsumParams> contraction_prepare_trace(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 1, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  if (x->rank != 2 || !dtype_is_float(x->dtype) || dtype_size(x->dtype) < 4)
    return op_error(call, StatusCode::kUnsupported, "trace of a ", dtype_name(x->dtype), " ",
                    shape_str(x->shape()), " (a float32 or float64 matrix)");
  EinsumParams p;
  p.dtype = x->dtype;
  p.size = {std::min(x->sizes[0], x->sizes[1])};
  p.sum_labels = {0};
  p.inputs = {static_cast<int>(tensor_input_index(call, 0))};
  p.stride = {{x->strides[0] + x->strides[1]}};
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(std::span<const int64_t>());
  return p;
}

template <Contraction C>
Result<EinsumParams> contraction_prepare(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  constexpr Form f = form(C);
  const size_t first = f.added ? 1 : 0;
  TIR_RETURN_IF_ERROR(check_arity(call, first + size_t(f.operands), 1));
  std::array<int64_t, 2> slots{};
  for (int k = 0; k < f.operands; ++k) {
    TIR_ASSIGN_OR_RETURN(const Tensor* t, tensor_arg(call, first + size_t(k), "tensor"));
    (void)t;
    slots[size_t(k)] = static_cast<int64_t>(tensor_input_index(call, first + size_t(k)));
  }
  TIR_ASSIGN_OR_RETURN(EinsumParams p,
                       einsum_plan(call, f.equation, std::span(slots.data(), size_t(f.operands))));
  if (f.added) {
    TIR_ASSIGN_OR_RETURN(p.beta, optional_scalar(call, 3, "beta"));
    TIR_ASSIGN_OR_RETURN(p.alpha, optional_scalar(call, 4, "alpha"));
    TIR_RETURN_IF_ERROR(add_tensor(call, 0, p));
  }
  return p;
}

Result<EinsumParams> contraction_prepare_bilinear(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  std::array<int64_t, 3> slots{};
  for (size_t k = 0; k < 3; ++k) {
    TIR_ASSIGN_OR_RETURN(const Tensor* t, tensor_arg(call, k, "input"));
    (void)t;
    slots[k] = static_cast<int64_t>(tensor_input_index(call, k));
  }
  std::swap(slots[1], slots[2]);  // (input1, weight, input2)
  TIR_ASSIGN_OR_RETURN(EinsumParams p, einsum_plan(call, "...i,oij,...j->...o", slots));
  if (call.args.size() > 3 && !call.args[3].is_none()) {
    TIR_RETURN_IF_ERROR(add_tensor(call, 3, p));
  }
  return p;
}

Result<EinsumParams> contraction_prepare_trilinear(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 7, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* i1, tensor_arg(call, 0, "i1"));
  std::array<std::span<const int64_t>, 3> expand;
  for (size_t k = 0; k < 3; ++k) {
    TIR_ASSIGN_OR_RETURN(expand[k], ints_arg(call, 3 + k, "expand"));
  }
  TIR_ASSIGN_OR_RETURN(auto sumdim, ints_arg(call, 6, "sumdim"));
  const int rank = i1->rank + int(expand[0].size());
  if (rank > 26) return op_error(call, StatusCode::kUnsupported, "rank ", rank);
  // Dim d of the unsqueezed inputs is label 'a' + d; an input names the dims it has.
  std::string eq;
  std::array<int64_t, 3> slots{};
  for (size_t k = 0; k < 3; ++k) {
    TIR_ASSIGN_OR_RETURN(const Tensor* t, tensor_arg(call, k, "input"));
    if (t->rank + int(expand[k].size()) != rank)
      return op_error(call, StatusCode::kInvalidArgument, "input ", k, " ", shape_str(t->shape()),
                      " does not reach rank ", rank);
    slots[k] = static_cast<int64_t>(tensor_input_index(call, k));
    if (k) eq += ',';
    for (int d = 0; d < rank; ++d)
      if (std::find(expand[k].begin(), expand[k].end(), d) == expand[k].end()) eq += char('a' + d);
  }
  eq += "->";
  for (int d = 0; d < rank; ++d)
    if (std::find(sumdim.begin(), sumdim.end(), d) == sumdim.end()) eq += char('a' + d);
  return einsum_plan(call, eq, slots);
}

#define TIR_CONTRACTION(c)                                                             \
  template Result<EinsumParams> contraction_prepare<Contraction::c>(const KernelCall&, \
                                                                    PrepareInfo*);
TIR_CONTRACTION(kOuter)
TIR_CONTRACTION(kDot)
TIR_CONTRACTION(kMv)
TIR_CONTRACTION(kAddmv)
TIR_CONTRACTION(kAddr)
TIR_CONTRACTION(kAddbmm)
#undef TIR_CONTRACTION

}  // namespace tir::kernels
