#include "kernels/shapes/movement/tensor_split.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

Result<const Tensor*> split_self(const KernelCall& call, size_t n_args) {
  TIR_RETURN_IF_ERROR(check_arity(call, n_args, call.outputs.size()));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  if (x->rank == 0)
    return op_error(call, StatusCode::kInvalidArgument,
                    "expected at least a 1-dimensional tensor to split");
  return x;
}

/// Pieces [0, i0), [i0, i1), ..., [ik, n) of dim `dim`, each bound taken as a slice's.
Result<CopyParams> by_indices(const KernelCall& call, PrepareInfo* info, const Tensor& x, int dim,
                              std::span<const int64_t> indices) {
  const int64_t n = x.sizes[dim];
  auto bound = [n](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n); };
  std::vector<int64_t> starts, lengths;
  int64_t start = 0;
  for (size_t k = 0; k <= indices.size(); ++k) {
    const int64_t end = k < indices.size() ? bound(indices[k]) : n;
    starts.push_back(start);
    lengths.push_back(std::max<int64_t>(end - start, 0));
    start = end;
  }
  return copy_split_slices(call, info, x, dim, starts, lengths);
}

/// `sections` pieces of dim `dim`, the first (n % sections) one longer.
Result<CopyParams> by_sections(const KernelCall& call, PrepareInfo* info, const Tensor& x, int dim,
                               int64_t sections) {
  if (sections <= 0)
    return op_error(call, StatusCode::kInvalidArgument,
                    "number of sections must be larger than 0, got ", sections);
  if (sections > kMaxOutputs)
    return op_error(call, StatusCode::kUnsupported, "split into ", sections,
                    " pieces exceeds the limit of ", kMaxOutputs, " outputs");
  const int64_t n = x.sizes[dim], base = n / sections, longer = n % sections;
  std::vector<int64_t> starts, lengths;
  for (int64_t k = 0, start = 0; k < sections; ++k) {
    starts.push_back(start);
    lengths.push_back(base + (k < longer ? 1 : 0));
    start += lengths.back();
  }
  return copy_split_slices(call, info, x, dim, starts, lengths);
}

/// hsplit / vsplit / dsplit: tensor_split on `dim`; a section count must divide it.
Result<CopyParams> split_on(const KernelCall& call, PrepareInfo* info, int dim, int min_rank,
                            std::string_view name) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, split_self(call, 2));
  if (x->rank < min_rank)
    return op_error(call, StatusCode::kInvalidArgument, "torch.", name,
                    " requires a tensor with at least ", min_rank,
                    " dimension, but got a tensor with ", x->rank, " dimensions");
  if (call.args[1].kind == ArgKind::kInts) {
    TIR_ASSIGN_OR_RETURN(auto indices, ints_arg(call, 1, "indices"));
    return by_indices(call, info, *x, dim, indices);
  }
  TIR_ASSIGN_OR_RETURN(int64_t sections, int_arg(call, 1, "sections"));
  if (sections != 0 && x->sizes[dim] % sections != 0)
    return op_error(call, StatusCode::kInvalidArgument, "torch.", name,
                    " attempted to split along dimension ", dim, ", but the size of the dimension ",
                    x->sizes[dim], " is not divisible by the split_size ", sections, "!");
  return by_sections(call, info, *x, dim, sections);
}

/// tensor_split(self, <what>, dim): self and the normalized dim.
Result<std::pair<const Tensor*, int>> self_and_dim(const KernelCall& call) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, split_self(call, 3));
  TIR_ASSIGN_OR_RETURN(int64_t raw_dim, int_arg(call, 2, "dim"));
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw_dim, x->rank, "dim"));
  return std::pair{x, dim};
}

}  // namespace

Result<CopyParams> copy_prepare_tensor_split_indices(const KernelCall& call,
                                                     PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const auto xd, self_and_dim(call));
  TIR_ASSIGN_OR_RETURN(auto indices, ints_arg(call, 1, "indices"));
  return by_indices(call, out_info, *xd.first, xd.second, indices);
}

Result<CopyParams> copy_prepare_tensor_split_sections(const KernelCall& call,
                                                      PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const auto xd, self_and_dim(call));
  TIR_ASSIGN_OR_RETURN(int64_t sections, int_arg(call, 1, "sections"));
  return by_sections(call, out_info, *xd.first, xd.second, sections);
}

Result<CopyParams> copy_prepare_tensor_split_tensor(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const auto xd, self_and_dim(call));
  const auto [x, dim] = xd;
  TIR_ASSIGN_OR_RETURN(const Tensor* t, tensor_arg(call, 1, "tensor_indices_or_sections"));
  if (t->dtype != DType::kInt64 || t->rank > 1)
    return op_error(call, StatusCode::kInvalidArgument,
                    "tensor_indices_or_sections must be a zero-dimensional or one-dimensional "
                    "int64 tensor, got ",
                    dtype_name(t->dtype), shape_str(t->shape()));
  if (t->data == nullptr)
    return op_error(call, StatusCode::kUnsupported,
                    "tensor_indices_or_sections is computed at run time; tir splits by a constant "
                    "tensor (its values set the number and sizes of the pieces)");
  const auto* v = static_cast<const int64_t*>(t->data);
  if (t->rank == 0) return by_sections(call, out_info, *x, dim, v[0]);
  return by_indices(call, out_info, *x, dim, std::span<const int64_t>(v, size_t(t->numel())));
}

Result<CopyParams> copy_prepare_hsplit(const KernelCall& call, PrepareInfo* out_info) {
  const Tensor* x = call.inputs.empty() ? nullptr : &call.inputs[0];
  return split_on(call, out_info, x && x->rank == 1 ? 0 : 1, 1, "hsplit");
}

Result<CopyParams> copy_prepare_vsplit(const KernelCall& call, PrepareInfo* out_info) {
  return split_on(call, out_info, 0, 2, "vsplit");
}

Result<CopyParams> copy_prepare_dsplit(const KernelCall& call, PrepareInfo* out_info) {
  return split_on(call, out_info, 2, 3, "dsplit");
}

}  // namespace tir::kernels
