#include "kernels/shapes/indexing/index.h"

#include <cmath>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

Status require_int_index(const KernelCall& call, const Tensor& t, std::string_view name) {
  if (t.dtype == DType::kInt64 || t.dtype == DType::kInt32) {
    return require_contiguous(call, t, name);
  }
  return op_error(call, StatusCode::kInvalidArgument, "argument '", name,
                  "' must be int64 or int32, got ", dtype_name(t.dtype));
}

using IndexShapes = std::vector<std::vector<int64_t>>;  // each index source's shape

// A bool (or uint8) mask over self's dims d.. becomes one source per masked dim, holding the
// coordinates of its true elements.
Status add_mask_sources(const KernelCall& call, const Tensor& x, const Tensor& t, int* d,
                        bool dynamic_ok, IndexParams* p, IndexShapes* shapes) {
  if (*d + t.rank > x.rank) {
    return op_error(call, StatusCode::kInvalidArgument, "too many indices for tensor ",
                    shape_str(x.shape()));
  }
  for (int k = 0; k < t.rank; ++k) {
    if (t.sizes[k] != x.sizes[*d + k]) {
      return op_error(call, StatusCode::kInvalidArgument, "the mask ", shape_str(t.shape()),
                      " does not match self ", shape_str(x.shape()), " at dim ", *d + k);
    }
  }
  if (t.rank == 0) {
    return op_error(call, StatusCode::kUnsupported, "0-d boolean mask indices are not supported");
  }
  const int m = t.rank;
  if (t.data == nullptr) {  // computed at run time: its count bound (the trailing int) or found
    const bool bound = call.args.size() >= 3 && call.args[2].kind == ArgKind::kInt;
    if (!bound && !dynamic_ok) {
      return op_error(call, StatusCode::kUnsupported,
                      "a boolean mask index must be a constant here (its output size depends "
                      "on its values)");
    }
    if (p->mask_count >= 0) {
      return op_error(call, StatusCode::kUnsupported,
                      "a boolean mask index computed at run time must be the only index tensor");
    }
    TIR_RETURN_IF_ERROR(require_contiguous(call, t, "indices"));
    // Unbound: a placeholder of 2 (1 would read as a broadcast dim), replaced in run.
    p->mask_dynamic = !bound;
    p->mask_count = bound ? call.args[2].i : 2;
    p->mask_capacity = bound ? p->mask_count : t.numel();
    p->mask_walk_dim = *d;
    for (int k = 0; k < m; ++k) {
      IndexSource s;
      s.mask_input = int(&t - call.inputs.data());
      s.mask_dim = k;
      s.self_dim = *d + k;
      shapes->push_back({p->mask_count});
      p->sources.push_back(std::move(s));
    }
    *d += m;
    return ok_status();
  }
  std::vector<IndexSource> mask(m);
  const auto* bytes = t.data_as<const uint8_t>();
  for (int64_t e = 0; e < t.numel(); ++e) {
    if (!bytes[e]) continue;
    for (int k = 0; k < m; ++k) mask[k].owned.push_back((e / t.strides[k]) % t.sizes[k]);
  }
  for (int k = 0; k < m; ++k) {
    mask[k].self_dim = *d + k;
    shapes->push_back({static_cast<int64_t>(mask[k].owned.size())});
    p->sources.push_back(std::move(mask[k]));
  }
  *d += m;
  return ok_status();
}

// One source per indexed dim of self (bool masks expand to one per masked dim).
Status add_index_sources(const KernelCall& call, const Tensor& x, bool dynamic_ok, IndexParams* p,
                         IndexShapes* shapes) {
  int d = 0;
  for (int64_t in : call.args[1].ints) {
    if (in < 0) {  // None: full slice
      ++d;
      continue;
    }
    if (static_cast<size_t>(in) >= call.inputs.size()) {
      return op_error(call, StatusCode::kInvalidArgument, "argument 'indices' refers to input ",
                      in);
    }
    const Tensor& t = call.inputs[in];
    if (t.dtype == DType::kBool || t.dtype == DType::kUInt8) {
      TIR_RETURN_IF_ERROR(add_mask_sources(call, x, t, &d, dynamic_ok, p, shapes));
      continue;
    }
    TIR_RETURN_IF_ERROR(require_int_index(call, t, "indices"));
    if (d >= x.rank) {
      return op_error(call, StatusCode::kInvalidArgument, "too many indices for tensor ",
                      shape_str(x.shape()));
    }
    IndexSource s;
    s.input = static_cast<int>(in);
    s.elem_size = dtype_size(t.dtype);
    s.self_dim = d++;
    shapes->emplace_back(t.shape().begin(), t.shape().end());
    p->sources.push_back(std::move(s));
  }
  if (p->sources.empty()) {
    return op_error(call, StatusCode::kUnsupported, "argument 'indices' has no index tensor");
  }
  return ok_status();
}

// Appends self's dim sd (not indexed) to the output.
void push_self_dim(const Tensor& x, int sd, IndexParams* p, std::vector<int64_t>* out) {
  p->sizes[p->rank] = x.sizes[sd];
  p->self_strides[p->rank] = x.strides[sd];
  ++p->rank;
  out->push_back(x.sizes[sd]);
}

// Appends the broadcast index dims b to the output; false when they exceed kMaxRank.
bool push_batch_dims(const std::vector<int64_t>& b, const IndexShapes& shapes, IndexParams* p,
                     std::vector<int64_t>* out) {
  const int br = static_cast<int>(b.size());
  if (p->rank + br > kMaxRank) return false;
  for (int j = 0; j < br; ++j) {
    for (size_t i = 0; i < p->sources.size(); ++i) {
      const auto& s = shapes[i];
      const int k = j - (br - static_cast<int>(s.size()));
      int64_t stride = 0;
      if (k >= 0 && s[k] != 1) stride = prod(s, k + 1, s.size());
      p->sources[i].out_strides[p->rank] = stride;
    }
    p->sizes[p->rank] = b[j];
    p->self_strides[p->rank] = 0;
    ++p->rank;
    out->push_back(b[j]);
  }
  return true;
}

// Output dims: [self dims before] B [self dims after] when the indexed dims are adjacent,
// else B [others]; the self dims after the last indexed one are contiguous in self and form
// the copied tail.
Status index_output_dims(const KernelCall& call, const Tensor& x, const std::vector<int64_t>& b,
                         const IndexShapes& shapes, IndexParams* p, std::vector<int64_t>* out) {
  const int first = p->sources.front().self_dim, last = p->sources.back().self_dim;
  bool adjacent = true;
  for (size_t i = 1; i < p->sources.size(); ++i) {
    adjacent = adjacent && p->sources[i].self_dim == p->sources[i - 1].self_dim + 1;
  }
  bool fits = true;
  if (adjacent) {
    for (int sd = 0; sd < first; ++sd) push_self_dim(x, sd, p, out);
    fits = push_batch_dims(b, shapes, p, out);
  } else {
    fits = push_batch_dims(b, shapes, p, out);
    for (int sd = 0; fits && sd < last; ++sd) {
      bool indexed = false;
      for (const auto& s : p->sources) indexed = indexed || s.self_dim == sd;
      if (!indexed) push_self_dim(x, sd, p, out);
    }
  }
  if (!fits || out->size() + (x.rank - last - 1) > static_cast<size_t>(kMaxRank)) {
    return op_error(call, StatusCode::kUnsupported, "output rank exceeds ", kMaxRank);
  }
  for (int sd = last + 1; sd < x.rank; ++sd) {
    out->push_back(x.sizes[sd]);
    p->inner *= x.sizes[sd];
  }
  for (int sd = 0; sd < x.rank; ++sd) {
    p->self_sizes[sd] = x.sizes[sd];
    p->self_dim_stride[sd] = x.strides[sd];
  }
  return ok_status();
}

}  // namespace

namespace {

Result<IndexParams> index_prepare(const KernelCall& call, PrepareInfo* out_info, bool dynamic_ok) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 2));
  if (call.args[1].kind != ArgKind::kTensors) {
    return op_error(call, StatusCode::kInvalidArgument, "argument 'indices' must be a Tensor list");
  }
  IndexParams p;
  p.elem_size = dtype_size(x->dtype);
  p.self_input = static_cast<int>(tensor_input_index(call, 0));
  // 1. One source per indexed dim of self (bool masks expand to one per masked dim).
  IndexShapes shapes;
  TIR_RETURN_IF_ERROR(add_index_sources(call, *x, dynamic_ok, &p, &shapes));
  if (p.mask_count >= 0 && out_info) {
    int mask_dims = 0;
    for (const IndexSource& s : p.sources) mask_dims += s.mask_input >= 0;
    out_info->scratch_bytes = size_t(p.mask_capacity) * mask_dims * sizeof(int64_t);
  }
  // 2. Broadcast the index shapes.
  std::vector<int64_t> b = shapes[0];
  for (const auto& s : shapes) {
    TIR_ASSIGN_OR_RETURN(b, broadcast_shapes(call, b, s));
  }
  // 3. Output dims, the index strides along them and the contiguous tail.
  std::vector<int64_t> out;
  TIR_RETURN_IF_ERROR(index_output_dims(call, *x, b, shapes, &p, &out));
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(out);
  return p;
}

}  // namespace

Result<IndexParams> index_prepare_index(const KernelCall& call, PrepareInfo* out_info) {
  return index_prepare(call, out_info, false);
}

Result<IndexParams> index_prepare_put_walk(const KernelCall& call, PrepareInfo* out_info) {
  return index_prepare(call, out_info, true);
}

Result<int64_t> index_mask_coordinates(const IndexParams& p, const KernelCall& call,
                                       void* scratch) {
  int mask = -1, m = 0;
  for (const IndexSource& s : p.sources)
    if (s.mask_input >= 0) mask = s.mask_input, ++m;
  if (mask < 0) return int64_t{0};
  const Tensor& t = call.inputs[mask];
  const auto* bytes = t.data_as<const uint8_t>();
  auto* coords = static_cast<int64_t*>(scratch);
  const int64_t cap = p.mask_capacity;
  int64_t found = 0, all = 0;
  for (int64_t e = 0; e < t.numel(); ++e) {
    if (!bytes[e]) continue;
    if (all++ >= cap) continue;
    for (int k = 0; k < m; ++k) coords[k * cap + found] = (e / t.strides[k]) % t.sizes[k];
    ++found;
  }
  if (!p.mask_dynamic && all != p.mask_count) {
    return op_error(call, StatusCode::kInvalidArgument, "the boolean mask index has ", all,
                    " true elements, ", p.mask_count, " were bound before the run");
  }
  return found;
}

Result<GatherParams> index_prepare_index_select(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 3));
  TIR_ASSIGN_OR_RETURN(int64_t raw_dim, int_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(const Tensor* index, tensor_arg(call, 2, "index"));
  TIR_RETURN_IF_ERROR(require_int_index(call, *index, "index"));
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw_dim, x->rank, "dim"));
  if (index->rank > 1) {
    return op_error(call, StatusCode::kInvalidArgument, "index ", shape_str(index->shape()),
                    " must be 0-D or 1-D");
  }
  GatherParams p;
  p.elem_size = dtype_size(x->dtype);
  p.self_input = static_cast<int>(tensor_input_index(call, 0));
  p.index_input = static_cast<int>(tensor_input_index(call, 2));
  p.index_elem_size = dtype_size(index->dtype);
  p.n_index = index->numel();
  std::vector<int64_t> out(x->shape().begin(), x->shape().end());
  if (x->rank > 0) {
    p.outer = prod(x->shape(), 0, dim);
    p.dim_size = x->sizes[dim];
    p.inner = prod(x->shape(), dim + 1, x->rank);
    out[dim] = p.n_index;
  } else if (p.n_index != 1) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "index_select of a 0-d tensor needs exactly one index");
  }
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(out);
  return p;
}

Result<GatherParams> index_prepare_gather(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 4));
  TIR_ASSIGN_OR_RETURN(int64_t raw_dim, int_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(const Tensor* index, tensor_arg(call, 2, "index"));
  if (index->dtype != DType::kInt64 && index->dtype != DType::kInt32) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "gather(): index must be int64 or int32, got ", dtype_name(index->dtype));
  }
  TIR_RETURN_IF_ERROR(require_contiguous(call, *index, "index"));
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw_dim, x->rank, "dim"));
  const int r = std::max(x->rank, 1);
  if (std::max(index->rank, 1) != r) {
    return op_error(call, StatusCode::kInvalidArgument, "index ", shape_str(index->shape()),
                    " must have the same number of dims as self ", shape_str(x->shape()));
  }
  GatherParams p;
  p.elem_size = dtype_size(x->dtype);
  p.index_elem_size = dtype_size(index->dtype);
  p.self_input = static_cast<int>(tensor_input_index(call, 0));
  p.index_input = static_cast<int>(tensor_input_index(call, 2));
  p.rank = r;
  p.dim = dim;
  for (int d = 0; d < r; ++d) {
    const int64_t xs = x->rank ? x->sizes[d] : 1;
    p.index_sizes[d] = index->rank ? index->sizes[d] : 1;
    p.self_strides[d] = x->rank ? x->strides[d] : 1;
    if (d != dim && p.index_sizes[d] > xs) {
      return op_error(call, StatusCode::kInvalidArgument, "index ", shape_str(index->shape()),
                      " is larger than self ", shape_str(x->shape()), " outside dim ", dim);
    }
  }
  p.dim_size = x->rank ? x->sizes[dim] : 1;
  p.n_index = index->numel();
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(index->shape());
  return p;
}

}  // namespace tir::kernels
