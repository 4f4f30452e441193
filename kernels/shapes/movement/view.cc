#include "kernels/shapes/movement/view.h"

#include <cstring>
#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {

ViewParams view_alias(const KernelCall& call, const Tensor& x, std::span<const int64_t> sizes,
                      PrepareInfo* out_info) {
  ViewParams p;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  call.outputs[0].dtype = x.dtype;
  call.outputs[0].set_shape(sizes);
  out_info->output_alias[0] = static_cast<int8_t>(p.input);
  return p;
}

namespace {

// Copy with output dim d reading input dim perm[d].
ViewParams make_permuted_copy(const KernelCall& call, const Tensor& x, std::span<const int> perm) {
  ViewParams p;
  p.copy = true;
  p.permute = true;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.elem_size = dtype_size(x.dtype);
  p.nbytes = x.nbytes();
  p.rank = x.rank;
  for (int d = 0; d < x.rank; ++d) {
    p.out_sizes[d] = x.sizes[perm[d]];
    p.in_strides[d] = x.strides[perm[d]];
  }
  call.outputs[0].dtype = x.dtype;
  call.outputs[0].set_shape(std::span<const int64_t>(p.out_sizes.data(), p.rank));
  return p;
}

}  // namespace

Result<ViewParams> view_prepare_as(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 2));
  TIR_ASSIGN_OR_RETURN(const Tensor* other, tensor_arg(call, 1, "other"));
  if (other->numel() != x->numel())
    return op_error(call, StatusCode::kInvalidArgument, "shape ", shape_str(other->shape()),
                    " is invalid for input of size ", x->numel(), " ", shape_str(x->shape()));
  const auto shape = other->shape();
  return view_alias(call, *x, std::vector<int64_t>(shape.begin(), shape.end()), out_info);
}

Result<ViewParams> view_prepare_view(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 2));
  TIR_ASSIGN_OR_RETURN(auto size, ints_arg(call, 1, "size"));
  if (size.size() > static_cast<size_t>(kMaxRank)) {
    return op_error(call, StatusCode::kUnsupported, "rank ", size.size(), " exceeds ", kMaxRank);
  }
  std::vector<int64_t> out(size.begin(), size.end());
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1 && infer < 0) {
      infer = static_cast<int>(i);
    } else if (out[i] < 0) {
      return op_error(call, StatusCode::kInvalidArgument, "invalid size ", shape_str(size),
                      " (only one -1, no other negative sizes)");
    } else {
      known *= out[i];
    }
  }
  const int64_t numel = x->numel();
  if (infer >= 0) {
    if (known == 0 || numel % known != 0) {
      return op_error(call, StatusCode::kInvalidArgument, "shape ", shape_str(size),
                      " is invalid for input of size ", numel, " ", shape_str(x->shape()));
    }
    out[infer] = numel / known;
  } else if (known != numel) {
    return op_error(call, StatusCode::kInvalidArgument, "shape ", shape_str(size),
                    " is invalid for input of size ", numel, " ", shape_str(x->shape()));
  }
  return view_alias(call, *x, out, out_info);
}

Result<ViewParams> view_prepare_flatten(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 3));
  TIR_ASSIGN_OR_RETURN(int64_t s, int_arg(call, 1, "start_dim"));
  TIR_ASSIGN_OR_RETURN(int64_t e, int_arg(call, 2, "end_dim"));
  TIR_ASSIGN_OR_RETURN(int start, normalize_dim(call, s, x->rank, "start_dim"));
  TIR_ASSIGN_OR_RETURN(int end, normalize_dim(call, e, x->rank, "end_dim"));
  if (start > end) {
    return op_error(call, StatusCode::kInvalidArgument, "start_dim ", s,
                    " cannot come after end_dim ", e);
  }
  if (x->rank == 0) {
    const int64_t one[1] = {1};
    return view_alias(call, *x, one, out_info);
  }
  std::vector<int64_t> out(x->shape().begin(), x->shape().begin() + start);
  out.push_back(prod(x->shape(), start, end + 1));
  out.insert(out.end(), x->shape().begin() + end + 1, x->shape().end());
  return view_alias(call, *x, out, out_info);
}

Result<ViewParams> view_prepare_unsqueeze(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 2));
  TIR_ASSIGN_OR_RETURN(int64_t raw, int_arg(call, 1, "dim"));
  if (x->rank >= kMaxRank) {
    return op_error(call, StatusCode::kUnsupported, "rank would exceed ", kMaxRank);
  }
  // dim ranges over [-(rank+1), rank] for unsqueeze
  TIR_ASSIGN_OR_RETURN(int d, normalize_dim(call, raw, x->rank + 1, "dim"));
  std::vector<int64_t> out(x->shape().begin(), x->shape().end());
  out.insert(out.begin() + d, 1);
  return view_alias(call, *x, out, out_info);
}

Result<ViewParams> view_prepare_squeeze_dim(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 2));
  TIR_ASSIGN_OR_RETURN(int64_t raw, int_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(int d, normalize_dim(call, raw, x->rank, "dim"));
  std::vector<int64_t> out(x->shape().begin(), x->shape().end());
  if (x->rank > 0 && out[d] == 1) out.erase(out.begin() + d);
  return view_alias(call, *x, out, out_info);
}

Result<ViewParams> view_prepare_identity(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 1));
  return view_alias(call, *x, x->shape(), out_info);
}

Result<ViewParams> view_prepare_unflatten(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 3));
  TIR_ASSIGN_OR_RETURN(int64_t raw, int_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw, x->rank, "dim"));
  TIR_ASSIGN_OR_RETURN(auto sizes, ints_arg(call, 2, "sizes"));
  if (x->rank - 1 + static_cast<int64_t>(sizes.size()) > kMaxRank) {
    return op_error(call, StatusCode::kUnsupported, "result rank exceeds ", kMaxRank);
  }
  std::vector<int64_t> split(sizes.begin(), sizes.end());
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < split.size(); ++i) {
    if (split[i] == -1 && infer < 0) {
      infer = static_cast<int>(i);
    } else if (split[i] < 0) {
      return op_error(call, StatusCode::kInvalidArgument, "argument 'sizes' ", shape_str(sizes),
                      " is invalid");
    } else {
      known *= split[i];
    }
  }
  if (infer >= 0 && known != 0) split[infer] = x->sizes[dim] / known;
  int64_t product = 1;
  for (int64_t v : split) product *= v;
  if (product != x->sizes[dim]) {
    return op_error(call, StatusCode::kInvalidArgument, "argument 'sizes' ", shape_str(sizes),
                    " does not multiply to dim ", dim, " of size ", x->sizes[dim]);
  }
  std::vector<int64_t> out(x->sizes.begin(), x->sizes.begin() + dim);
  out.insert(out.end(), split.begin(), split.end());
  out.insert(out.end(), x->sizes.begin() + dim + 1, x->sizes.begin() + x->rank);
  return view_alias(call, *x, out, out_info);
}

Result<ViewParams> view_prepare_clone(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 1));
  ViewParams p;
  p.copy = true;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.nbytes = x->nbytes();
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(x->shape());
  (void)out_info;
  return p;
}

Result<ViewParams> view_prepare_permute(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 2));
  TIR_ASSIGN_OR_RETURN(auto dims, ints_arg(call, 1, "dims"));
  if (dims.size() != static_cast<size_t>(x->rank)) {
    return op_error(call, StatusCode::kInvalidArgument, "dims ", shape_str(dims),
                    " must have one entry per dim of self ", shape_str(x->shape()));
  }
  std::array<int, kMaxRank> perm{};
  std::array<bool, kMaxRank> seen{};
  for (int i = 0; i < x->rank; ++i) {
    TIR_ASSIGN_OR_RETURN(perm[i], normalize_dim(call, dims[i], x->rank, "dims"));
    if (seen[perm[i]]) {
      return op_error(call, StatusCode::kInvalidArgument, "dims ", shape_str(dims), " repeats dim ",
                      perm[i]);
    }
    seen[perm[i]] = true;
  }
  (void)out_info;
  return make_permuted_copy(call, *x, std::span<const int>(perm.data(), x->rank));
}

Result<ViewParams> view_prepare_movedim(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 3));
  TIR_ASSIGN_OR_RETURN(const int64_t source, int_arg(call, 1, "source"));
  TIR_ASSIGN_OR_RETURN(const int64_t destination, int_arg(call, 2, "destination"));
  const int rank = std::max(x->rank, 1);
  TIR_ASSIGN_OR_RETURN(const int from, normalize_dim(call, source, rank, "source"));
  TIR_ASSIGN_OR_RETURN(const int to, normalize_dim(call, destination, rank, "destination"));
  if (x->rank == 0) return view_alias(call, *x, x->shape(), out_info);
  std::array<int, kMaxRank> perm{};
  for (int i = 0, k = 0; i < x->rank; ++i) {
    if (i == to) continue;
    if (k == from) ++k;
    perm[i] = k++;
  }
  perm[to] = from;
  return make_permuted_copy(call, *x, std::span<const int>(perm.data(), x->rank));
}

Result<ViewParams> view_prepare_t(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 1));
  if (x->rank > 2) {
    return op_error(call, StatusCode::kInvalidArgument, "self must be at most 2-D, got ",
                    shape_str(x->shape()));
  }
  if (x->rank < 2) return view_alias(call, *x, x->shape(), out_info);
  const int perm[2] = {1, 0};
  return make_permuted_copy(call, *x, perm);
}

}  // namespace tir::kernels
