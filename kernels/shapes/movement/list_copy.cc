// The data-movement ops over a Tensor[] argument (kernels/shapes/movement/copy.h): cat,
// stack, meshgrid and pad_sequence, each a set of windows of its list's tensors.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/shapes/dtype_util.h"
#include "kernels/shapes/movement/copy.h"
#include "kernels/shapes/movement/copy_window.h"

namespace tir::kernels {
namespace {

// Tensor[] argument: every entry must be present, contiguous and of one dtype.
struct TensorList {
  std::vector<const Tensor*> tensors;
  std::vector<int> inputs;
};
Result<TensorList> tensor_list_arg(const KernelCall& call, size_t idx, std::string_view name) {
  if (idx >= call.args.size() || call.args[idx].kind != ArgKind::kTensors) {
    return op_error(call, StatusCode::kInvalidArgument, "argument '", name,
                    "' must be a Tensor list");
  }
  TensorList l;
  for (int64_t i : call.args[idx].ints) {
    if (i < 0 || static_cast<size_t>(i) >= call.inputs.size()) {
      return op_error(call, StatusCode::kInvalidArgument, "argument '", name,
                      "' has a missing entry");
    }
    const Tensor& t = call.inputs[i];
    TIR_RETURN_IF_ERROR(require_contiguous(call, t, name));
    if (!l.tensors.empty() && t.dtype != l.tensors[0]->dtype) {
      return op_error(call, StatusCode::kUnsupported, "argument '", name, "' mixes dtypes ",
                      dtype_name(l.tensors[0]->dtype), " and ", dtype_name(t.dtype),
                      " (type promotion is not supported)");
    }
    l.tensors.push_back(&t);
    l.inputs.push_back(static_cast<int>(i));
  }
  if (l.tensors.empty()) {
    return op_error(call, StatusCode::kInvalidArgument, "argument '", name,
                    "' must be a non-empty list");
  }
  if (dtype_size(l.tensors[0]->dtype) == 0) {
    return op_error(call, StatusCode::kUnsupported, "argument '", name, "' has undefined dtype");
  }
  return l;
}

}  // namespace

Result<CopyParams> copy_prepare_cat(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;  // a new tensor in torch, even of one input: never an alias
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(TensorList l, tensor_list_arg(call, 0, "tensors"));
  TIR_ASSIGN_OR_RETURN(int64_t raw_dim, int_arg(call, 1, "dim"));
  // Legacy behaviour: 1-D empty tensors are skipped whatever their rank.
  const Tensor* ref = nullptr;
  for (const Tensor* t : l.tensors) {
    if (!(t->rank == 1 && t->sizes[0] == 0)) {
      ref = t;
      break;
    }
  }
  CopyParams p;
  p.elem_size = dtype_size(l.tensors[0]->dtype);
  call.outputs[0].dtype = l.tensors[0]->dtype;
  if (ref == nullptr) {
    call.outputs[0].set_shape({0});
    return p;
  }
  if (ref->rank == 0) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "zero-dimensional tensors cannot be concatenated");
  }
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw_dim, ref->rank, "dim"));
  std::array<int64_t, kMaxRank> out{};
  for (int d = 0; d < ref->rank; ++d) out[d] = ref->sizes[d];
  out[dim] = 0;
  for (const Tensor* t : l.tensors) {
    if (t->rank == 1 && t->sizes[0] == 0) continue;
    bool ok = t->rank == ref->rank;
    for (int d = 0; ok && d < ref->rank; ++d) ok = d == dim || t->sizes[d] == ref->sizes[d];
    if (!ok) {
      return op_error(call, StatusCode::kInvalidArgument, "tensors ", shape_str(ref->shape()),
                      " and ", shape_str(t->shape()), " differ outside dim ", dim);
    }
    out[dim] += t->sizes[dim];
  }
  call.outputs[0].set_shape(std::span<const int64_t>(out.data(), ref->rank));
  const Tensor& o = call.outputs[0];
  int64_t at = 0;
  for (size_t k = 0; k < l.tensors.size(); ++k) {
    const Tensor* t = l.tensors[k];
    if (t->rank == 1 && t->sizes[0] == 0) continue;
    add_region(p, l.inputs[k], 0, whole(*t), at * o.strides[dim], o.strides.data());
    at += t->sizes[dim];
  }
  return p;
}

Result<CopyParams> copy_prepare_stack(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;  // a new tensor in torch, even of one input: never an alias
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(TensorList l, tensor_list_arg(call, 0, "tensors"));
  TIR_ASSIGN_OR_RETURN(int64_t raw_dim, int_arg(call, 1, "dim"));
  const Tensor& ref = *l.tensors[0];
  if (ref.rank >= kMaxRank) {
    return op_error(call, StatusCode::kUnsupported, "rank would exceed ", kMaxRank);
  }
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw_dim, ref.rank + 1, "dim"));
  for (const Tensor* t : l.tensors) {
    if (!t->same_shape(ref)) {
      return op_error(call, StatusCode::kInvalidArgument,
                      "stack expects each tensor to be equal "
                      "size, got ",
                      shape_str(ref.shape()), " and ", shape_str(t->shape()));
    }
  }
  std::vector<int64_t> out(ref.shape().begin(), ref.shape().end());
  out.insert(out.begin() + dim, static_cast<int64_t>(l.tensors.size()));
  call.outputs[0].dtype = ref.dtype;
  call.outputs[0].set_shape(out);
  CopyParams p;
  p.elem_size = dtype_size(ref.dtype);
  const Tensor& o = call.outputs[0];
  // Each input is the output with dim `dim` fixed: skip that dim's output stride.
  std::array<int64_t, kMaxCopyRank> strides{};
  for (int d = 0, j = 0; d < o.rank; ++d) {
    if (d != dim) strides[j++] = o.strides[d];
  }
  for (size_t k = 0; k < l.tensors.size(); ++k) {
    add_region(p, l.inputs[k], 0, whole(*l.tensors[k]), static_cast<int64_t>(k) * o.strides[dim],
               strides.data());
  }
  return p;
}

Result<CopyParams> copy_prepare_pad_sequence(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(TensorList l, tensor_list_arg(call, 0, "sequences"));
  TIR_ASSIGN_OR_RETURN(const bool batch_first, bool_arg(call, 1, "batch_first"));
  TIR_RETURN_IF_ERROR(scalar_arg(call, 2, "padding_value").status());
  const ScalarValue padding = scalar_value(call.args[2]);
  const Arg& side = call.args[3];
  if (side.kind != ArgKind::kString || (side.s != "right" && side.s != "left"))
    return op_error(call, StatusCode::kInvalidArgument,
                    "padding_side must be \"right\" or \"left\"");
  const Tensor& ref = *l.tensors[0];
  if (ref.rank < 1 || ref.rank >= kMaxRank)
    return op_error(call, StatusCode::kInvalidArgument, "sequences must be 1-D to ", kMaxRank - 1,
                    "-D, got ", shape_str(ref.shape()));
  int64_t longest = 0;
  for (const Tensor* t : l.tensors) {
    bool same = t->rank == ref.rank;
    for (int d = 1; same && d < ref.rank; ++d) same = t->sizes[d] == ref.sizes[d];
    if (!same)
      return op_error(call, StatusCode::kInvalidArgument, "sequences ", shape_str(ref.shape()),
                      " and ", shape_str(t->shape()), " differ after their first dim");
    longest = std::max(longest, t->sizes[0]);
  }
  const int64_t count = static_cast<int64_t>(l.tensors.size());
  std::vector<int64_t> out = {batch_first ? count : longest, batch_first ? longest : count};
  for (int d = 1; d < ref.rank; ++d) out.push_back(ref.sizes[d]);
  call.outputs[0].dtype = ref.dtype;
  call.outputs[0].set_shape(out);
  CopyParams p;
  p.elem_size = dtype_size(ref.dtype);
  p.fill.assign(p.elem_size, 0);
  if (!scalar_to_element(padding, ref.dtype, p.fill.data()))
    return op_error(call, StatusCode::kUnsupported, "sequences of dtype ", dtype_name(ref.dtype));
  const Tensor& o = call.outputs[0];
  const int64_t seq_stride = o.strides[batch_first ? 1 : 0];
  const int64_t batch_stride = o.strides[batch_first ? 0 : 1];
  std::array<int64_t, kMaxCopyRank> strides{};  // an input's dims in the output
  strides[0] = seq_stride;
  for (int d = 1; d < ref.rank; ++d) strides[d] = o.strides[d + 1];
  for (int64_t k = 0; k < count; ++k) {
    const Tensor& t = *l.tensors[size_t(k)];
    const int64_t start = side.s == "left" ? longest - t.sizes[0] : 0;
    add_region(p, l.inputs[size_t(k)], 0, whole(t), k * batch_stride + start * seq_stride,
               strides.data());
  }
  return p;
}

namespace {

Result<CopyParams> meshgrid_common(const KernelCall& call, bool xy) {
  TIR_ASSIGN_OR_RETURN(TensorList l, tensor_list_arg(call, 0, "tensors"));
  const int n = static_cast<int>(l.tensors.size());
  if (n == 0) return op_error(call, StatusCode::kInvalidArgument, "expects a non-empty list");
  if (n > kMaxRank) return op_error(call, StatusCode::kUnsupported, "rank ", n);
  TIR_RETURN_IF_ERROR(check_arity(call, 1, static_cast<size_t>(n)));
  std::vector<int64_t> shape;
  for (const Tensor* t : l.tensors) {
    if (t->rank > 1 || t->dtype != l.tensors[0]->dtype)
      return op_error(call, StatusCode::kInvalidArgument,
                      "expects 0-D or 1-D tensors of one dtype, got ", dtype_name(t->dtype), " ",
                      shape_str(t->shape()));
    shape.push_back(t->numel());
  }
  // xy indexing: the first two inputs' dims trade places in every output.
  auto out_dim = [&](int k) { return xy && n >= 2 && k < 2 ? 1 - k : k; };
  if (xy && n >= 2) std::swap(shape[0], shape[1]);
  CopyParams p;
  p.elem_size = dtype_size(l.tensors[0]->dtype);
  for (int k = 0; k < n; ++k) {
    call.outputs[k].dtype = l.tensors[k]->dtype;
    call.outputs[k].set_shape(shape);
    Window w;  // input k along its output dim, broadcast along the others
    w.rank = n;
    for (int d = 0; d < n; ++d) w.sizes[d] = shape[d];
    if (l.tensors[k]->rank == 1) w.strides[out_dim(k)] = l.tensors[k]->strides[0];
    add_region(p, l.inputs[k], k, w);
  }
  return p;
}

}  // namespace

Result<CopyParams> copy_prepare_meshgrid(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  return meshgrid_common(call, false);
}

Result<CopyParams> copy_prepare_meshgrid_indexing(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 2, call.outputs.size()));
  const Arg& a = call.args[1];
  if (a.kind != ArgKind::kString || (a.s != "ij" && a.s != "xy"))
    return op_error(call, StatusCode::kInvalidArgument, "indexing must be 'ij' or 'xy'");
  return meshgrid_common(call, a.s == "xy");
}

Result<CopyParams> copy_prepare_broadcast_tensors(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_ASSIGN_OR_RETURN(TensorList l, tensor_list_arg(call, 0, "tensors"));
  const size_t n = l.tensors.size();
  TIR_RETURN_IF_ERROR(check_arity(call, 1, n));
  int rank = 0;
  for (const Tensor* t : l.tensors) rank = std::max(rank, t->rank);
  if (rank > kMaxCopyRank) return op_error(call, StatusCode::kUnsupported, "rank ", rank);
  std::vector<int64_t> shape(size_t(rank), 1);
  for (const Tensor* t : l.tensors) {  // numpy's rule: dims align at the right
    for (int d = 0; d < t->rank; ++d) {
      int64_t& s = shape[size_t(rank - t->rank + d)];
      const int64_t v = t->sizes[d];
      if (v != 1 && s != 1 && v != s)
        return op_error(call, StatusCode::kInvalidArgument,
                        "shapes do not broadcast: ", shape_str(t->shape()), " against size ", s,
                        " at dim ", rank - t->rank + d);
      if (v != 1) s = v;
    }
  }
  CopyParams p;
  p.elem_size = dtype_size(l.tensors[0]->dtype);
  for (size_t k = 0; k < n; ++k) {
    const Tensor& t = *l.tensors[k];
    call.outputs[k].dtype = t.dtype;
    call.outputs[k].set_shape(shape);
    Window w;  // input k, its size-1 and missing dims read again (stride 0)
    w.rank = rank;
    for (int d = 0; d < rank; ++d) {
      w.sizes[d] = shape[size_t(d)];
      const int src = d - (rank - t.rank);
      w.strides[d] = src >= 0 && t.sizes[src] != 1 ? t.strides[src] : 0;
    }
    add_region(p, l.inputs[k], int(k), w);
  }
  return p;
}

}  // namespace tir::kernels
