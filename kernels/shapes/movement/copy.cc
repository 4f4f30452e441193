#include "kernels/shapes/movement/copy.h"

#include <algorithm>
#include <limits>

#include "kernels/kernel_util.h"
#include "kernels/shapes/movement/copy_window.h"

namespace tir::kernels {
namespace {

// Drops size-1 dims and merges dims that are contiguous in both input and output.
void coalesce(CopyRegion& r) {
  int n = 0;
  for (int d = 0; d < r.rank; ++d) {
    if (r.sizes[d] == 1) continue;
    if (n > 0 && r.in_strides[n - 1] == r.in_strides[d] * r.sizes[d] &&
        r.out_strides[n - 1] == r.out_strides[d] * r.sizes[d]) {
      r.sizes[n - 1] *= r.sizes[d];
      r.in_strides[n - 1] = r.in_strides[d];
      r.out_strides[n - 1] = r.out_strides[d];
      continue;
    }
    r.sizes[n] = r.sizes[d];
    r.in_strides[n] = r.in_strides[d];
    r.out_strides[n] = r.out_strides[d];
    ++n;
  }
  r.rank = n;
}

}  // namespace

Window whole(const Tensor& x) {
  Window w;
  w.rank = x.rank;
  for (int d = 0; d < x.rank; ++d) {
    w.sizes[d] = x.sizes[d];
    w.strides[d] = x.strides[d];
  }
  return w;
}

// Adds the region copying window `w` of input `in` into output `out` at `out_offset`
// with `out_strides` (contiguous over w.sizes when empty).
void add_region(CopyParams& p, int in, int out, const Window& w, int64_t out_offset,
                const int64_t* out_strides) {
  CopyRegion r;
  r.input = in;
  r.output = out;
  r.in_offset = w.offset;
  r.out_offset = out_offset;
  r.rank = w.rank;
  int64_t s = 1;
  for (int d = w.rank - 1; d >= 0; --d) {
    if (w.sizes[d] == 0) return;  // empty copy
    r.sizes[d] = w.sizes[d];
    r.in_strides[d] = w.strides[d];
    r.out_strides[d] = out_strides ? out_strides[d] : s;
    s *= w.sizes[d];
  }
  coalesce(r);
  p.regions.push_back(r);
}

/// An output of `shape` and x's dtype that is one window `w` of x (argument 0).
CopyParams one_window(const KernelCall& call, const Tensor& x, std::span<const int64_t> shape,
                      const Window& w) {
  call.outputs[0].dtype = x.dtype;
  call.outputs[0].set_shape(shape);
  CopyParams p;
  p.elem_size = dtype_size(x.dtype);
  add_region(p, static_cast<int>(tensor_input_index(call, 0)), 0, w);
  return p;
}

namespace {

Result<const Tensor*> self_input(const KernelCall& call, size_t n_args, size_t n_outputs) {
  TIR_RETURN_IF_ERROR(check_arity(call, n_args, n_outputs));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  if (dtype_size(x->dtype) == 0) {
    return op_error(call, StatusCode::kUnsupported, "argument 'self' has an undefined dtype");
  }
  return x;
}

// Sets output `out` to `w.sizes` (dtype of `x`) and copies the window, or aliases input
// `in` when the window is exactly its bytes and the op is a view in torch (`may_alias`): an op
// that torch computes into a new tensor (flip) must not see a later in-place write to `in`.
void emit_window(const KernelCall& call, CopyParams& p, PrepareInfo* info, const Tensor& x, int in,
                 int out, const Window& w, bool may_alias = true) {
  call.outputs[out].dtype = x.dtype;
  call.outputs[out].set_shape(std::span<const int64_t>(w.sizes.data(), w.rank));
  const size_t before = p.regions.size();
  add_region(p, in, out, w);
  if (p.regions.size() == before) return;  // empty
  const CopyRegion& r = p.regions.back();
  const bool identity = may_alias && r.in_offset == 0 && r.rank <= 1 &&
                        (r.rank == 0 || r.in_strides[0] == 1) &&
                        call.outputs[out].numel() == x.numel();
  if (identity) {
    info->output_alias[out] = static_cast<int8_t>(in);
    p.regions.pop_back();
  }
}

Window drop_dim(Window w, int dim) {
  for (int d = dim; d + 1 < w.rank; ++d) {
    w.sizes[d] = w.sizes[d + 1];
    w.strides[d] = w.strides[d + 1];
  }
  --w.rank;
  return w;
}

// Pieces of `sizes` along `dim`, one after the other, one output each.
Result<CopyParams> split_pieces(const KernelCall& call, PrepareInfo* info, const Tensor& x, int dim,
                                std::span<const int64_t> sizes) {
  std::vector<int64_t> starts;
  int64_t start = 0;
  for (int64_t size : sizes) {
    starts.push_back(start);
    start += size;
  }
  return copy_split_slices(call, info, x, dim, starts, sizes);
}

Result<CopyParams> split_even(const KernelCall& call, PrepareInfo* info, const Tensor& x, int dim,
                              int64_t split_size, int64_t min_pieces) {
  const int64_t n = x.rank == 0 ? 1 : x.sizes[dim];
  if (split_size < 0 || (split_size == 0 && n != 0)) {
    return op_error(call, StatusCode::kInvalidArgument, "split_size ", split_size,
                    " must be positive");
  }
  const int64_t pieces =
      std::max<int64_t>(split_size ? (n + split_size - 1) / split_size : 0, min_pieces);
  if (pieces > kMaxOutputs) {
    return op_error(call, StatusCode::kUnsupported, "split into ", pieces,
                    " pieces exceeds the limit of ", kMaxOutputs, " outputs");
  }
  std::vector<int64_t> sizes;
  for (int64_t k = 0, left = n; k < pieces; ++k) {
    sizes.push_back(std::min(split_size, left));
    left -= sizes.back();
  }
  return split_pieces(call, info, x, dim, sizes);
}

// Optional SymInt (None or int).
Result<std::optional<int64_t>> optional_int(const KernelCall& call, size_t idx,
                                            std::string_view name) {
  if (idx < call.args.size() && call.args[idx].is_none()) return std::optional<int64_t>();
  TIR_ASSIGN_OR_RETURN(int64_t v, int_arg(call, idx, name));
  return std::optional<int64_t>(v);
}

}  // namespace

Result<CopyParams> copy_split_slices(const KernelCall& call, PrepareInfo* info, const Tensor& x,
                                     int dim, std::span<const int64_t> starts,
                                     std::span<const int64_t> lengths) {
  if (lengths.size() != call.outputs.size()) {
    return op_error(call, StatusCode::kInvalidArgument, "splitting dim ", dim, " of ",
                    shape_str(x.shape()), " gives ", lengths.size(), " pieces but the node has ",
                    call.outputs.size(), " outputs");
  }
  CopyParams p;
  p.elem_size = dtype_size(x.dtype);
  const int in = static_cast<int>(tensor_input_index(call, 0));
  for (size_t k = 0; k < lengths.size(); ++k) {
    Window w = whole(x);
    w.sizes[dim] = lengths[k];
    w.offset = starts[k] * x.strides[dim];
    emit_window(call, p, info, x, in, static_cast<int>(k), w);
  }
  return p;
}

Result<CopyParams> copy_prepare_slice(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 5, 1));
  TIR_ASSIGN_OR_RETURN(int64_t raw_dim, int_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(auto start_opt, optional_int(call, 2, "start"));
  TIR_ASSIGN_OR_RETURN(auto end_opt, optional_int(call, 3, "end"));
  TIR_ASSIGN_OR_RETURN(int64_t step, int_arg(call, 4, "step"));
  if (x->rank == 0) {
    return op_error(call, StatusCode::kInvalidArgument, "cannot slice a 0-d tensor");
  }
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw_dim, x->rank, "dim"));
  if (step <= 0) {
    return op_error(call, StatusCode::kInvalidArgument, "step ", step, " must be positive");
  }
  const int64_t n = x->sizes[dim];
  auto clamp = [n](int64_t v) {
    if (v < 0) v = v < -n ? 0 : v + n;  // no overflow for INT64_MIN
    return std::min(v, n);
  };
  const int64_t start = clamp(start_opt.value_or(0));
  const int64_t end = std::max(start, clamp(end_opt.value_or(n)));
  CopyParams p;
  p.elem_size = dtype_size(x->dtype);
  Window w = whole(*x);
  w.sizes[dim] = (end - start + step - 1) / step;
  w.strides[dim] = x->strides[dim] * step;
  w.offset = start * x->strides[dim];
  emit_window(call, p, out_info, *x, static_cast<int>(tensor_input_index(call, 0)), 0, w);
  return p;
}

Result<CopyParams> copy_prepare_select(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(int64_t raw_dim, int_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(int64_t index, int_arg(call, 2, "index"));
  if (x->rank == 0) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "select() cannot be applied to a 0-d tensor");
  }
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw_dim, x->rank, "dim"));
  const int64_t n = x->sizes[dim];
  if (index < -n || index >= n) {
    return op_error(call, StatusCode::kInvalidArgument, "index ", index,
                    " is out of range for dim ", dim, " of size ", n);
  }
  if (index < 0) index += n;
  CopyParams p;
  p.elem_size = dtype_size(x->dtype);
  Window w = whole(*x);
  w.offset = index * x->strides[dim];
  w = drop_dim(w, dim);
  emit_window(call, p, out_info, *x, static_cast<int>(tensor_input_index(call, 0)), 0, w);
  return p;
}

Result<CopyParams> copy_prepare_narrow(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(int64_t raw_dim, int_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(int64_t start, int_arg(call, 2, "start"));
  TIR_ASSIGN_OR_RETURN(int64_t length, int_arg(call, 3, "length"));
  if (x->rank == 0) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "narrow() cannot be applied to a 0-d tensor");
  }
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw_dim, x->rank, "dim"));
  const int64_t n = x->sizes[dim];
  if (start < -n || start > n) {
    return op_error(call, StatusCode::kInvalidArgument, "start ", start,
                    " is out of range for dim ", dim, " of size ", n);
  }
  if (start < 0) start += n;
  if (length < 0 || start + length > n) {
    return op_error(call, StatusCode::kInvalidArgument, "start (", start, ") + length (", length,
                    ") exceeds dimension size (", n, ")");
  }
  CopyParams p;
  p.elem_size = dtype_size(x->dtype);
  Window w = whole(*x);
  w.sizes[dim] = length;
  w.offset = start * x->strides[dim];
  emit_window(call, p, out_info, *x, static_cast<int>(tensor_input_index(call, 0)), 0, w);
  return p;
}

Result<CopyParams> copy_prepare_split(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 3, call.outputs.size()));
  TIR_ASSIGN_OR_RETURN(int64_t split_size, int_arg(call, 1, "split_size"));
  TIR_ASSIGN_OR_RETURN(int64_t raw_dim, int_arg(call, 2, "dim"));
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw_dim, x->rank, "dim"));
  return split_even(call, out_info, *x, dim, split_size, 1);
}

Result<CopyParams> copy_prepare_split_with_sizes(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 3, call.outputs.size()));
  TIR_ASSIGN_OR_RETURN(auto sizes, ints_arg(call, 1, "split_sizes"));
  TIR_ASSIGN_OR_RETURN(int64_t raw_dim, int_arg(call, 2, "dim"));
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw_dim, x->rank, "dim"));
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) {
      return op_error(call, StatusCode::kInvalidArgument, "split_sizes ", shape_str(sizes),
                      " has a negative entry");
    }
    total += s;
  }
  if (x->rank == 0 || total != x->sizes[dim]) {
    return op_error(call, StatusCode::kInvalidArgument, "split_sizes ", shape_str(sizes),
                    " must sum to the size of dim ", dim, " of ", shape_str(x->shape()));
  }
  return split_pieces(call, out_info, *x, dim, sizes);
}

Result<CopyParams> copy_prepare_chunk(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 3, call.outputs.size()));
  TIR_ASSIGN_OR_RETURN(int64_t chunks, int_arg(call, 1, "chunks"));
  TIR_ASSIGN_OR_RETURN(int64_t raw_dim, int_arg(call, 2, "dim"));
  if (x->rank == 0) {
    return op_error(call, StatusCode::kInvalidArgument, "chunk expects at least a 1-d tensor");
  }
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw_dim, x->rank, "dim"));
  if (chunks <= 0) {
    return op_error(call, StatusCode::kInvalidArgument, "chunks ", chunks, " must be positive");
  }
  const int64_t n = x->sizes[dim];
  if (n == 0) {  // torch returns `chunks` empty pieces
    if (chunks > kMaxOutputs) {
      return op_error(call, StatusCode::kUnsupported, "chunks ", chunks, " exceeds ", kMaxOutputs);
    }
    return split_pieces(call, out_info, *x, dim, std::vector<int64_t>(chunks, 0));
  }
  return split_even(call, out_info, *x, dim, (n + chunks - 1) / chunks, 1);
}

Result<CopyParams> copy_prepare_unbind(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 2, call.outputs.size()));
  TIR_ASSIGN_OR_RETURN(int64_t raw_dim, int_arg(call, 1, "dim"));
  if (x->rank == 0) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "unbind() cannot be applied to a 0-d tensor");
  }
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw_dim, x->rank, "dim"));
  const int64_t n = x->sizes[dim];
  if (static_cast<size_t>(n) != call.outputs.size()) {
    return op_error(call, StatusCode::kInvalidArgument, "unbind of dim ", dim, " of ",
                    shape_str(x->shape()), " gives ", n, " pieces but the node has ",
                    call.outputs.size(), " outputs");
  }
  CopyParams p;
  p.elem_size = dtype_size(x->dtype);
  const int in = static_cast<int>(tensor_input_index(call, 0));
  for (int64_t k = 0; k < n; ++k) {
    Window w = whole(*x);
    w.offset = k * x->strides[dim];
    emit_window(call, p, out_info, *x, in, static_cast<int>(k), drop_dim(w, dim));
  }
  return p;
}

Result<CopyParams> copy_prepare_rot90(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(int64_t k, int_arg(call, 1, "k"));
  TIR_ASSIGN_OR_RETURN(auto dims, ints_arg(call, 2, "dims"));
  if (dims.size() != 2 || x->rank < 2)
    return op_error(call, StatusCode::kInvalidArgument, "needs two dims of a tensor of rank >= 2");
  TIR_ASSIGN_OR_RETURN(int d0, normalize_dim(call, dims[0], x->rank, "dims"));
  TIR_ASSIGN_OR_RETURN(int d1, normalize_dim(call, dims[1], x->rank, "dims"));
  if (d0 == d1) return op_error(call, StatusCode::kInvalidArgument, "the two dims are the same");
  k = ((k % 4) + 4) % 4;
  // Output dims d0 and d1 read input dims (d0, d1) as they are (k = 0), flipped both (2), or
  // swapped with one flipped: input d1 flipped into output d0 (k = 1), input d0 flipped into
  // output d1 (k = 3).
  Window w = whole(*x);
  const int64_t n0 = x->sizes[d0], n1 = x->sizes[d1], s0 = x->strides[d0], s1 = x->strides[d1];
  auto read = [&](int out_dim, int64_t n, int64_t stride, bool flip) {
    w.sizes[out_dim] = n;
    w.strides[out_dim] = flip ? -stride : stride;
    if (flip) w.offset += (n - 1) * stride;
  };
  if (k == 1 || k == 3) {
    read(d0, n1, s1, k == 1);
    read(d1, n0, s0, k == 3);
  } else {
    read(d0, n0, s0, k == 2);
    read(d1, n1, s1, k == 2);
  }
  std::vector<int64_t> shape(x->shape().begin(), x->shape().end());
  shape[size_t(d0)] = w.sizes[d0];
  shape[size_t(d1)] = w.sizes[d1];
  return one_window(call, *x, shape, w);
}

Result<CopyParams> copy_prepare_channel_shuffle(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(int64_t groups, int_arg(call, 1, "groups"));
  if (x->rank < 3 || groups <= 0 || x->sizes[1] % groups)
    return op_error(call, StatusCode::kInvalidArgument, "groups ", groups,
                    " must divide the channels of ", shape_str(x->shape()), " (at least 3-D)");
  // Output [N, C / g, g, S] (contiguous) reads input channel i * (C / g) + j at (j, i).
  const int64_t c = x->sizes[1], s = x->numel() / std::max<int64_t>(1, x->sizes[0] * c);
  Window w;
  w.rank = 4;
  w.sizes = {x->sizes[0], c / groups, groups, s};
  w.strides = {c * s, s, (c / groups) * s, 1};
  return one_window(call, *x, x->shape(), w);
}

namespace {

Result<CopyParams> expand_to(const KernelCall& call, PrepareInfo* info, const Tensor& x,
                             std::span<const int64_t> size) {
  const int r = static_cast<int>(size.size());
  if (r < x.rank || r > kMaxRank) {
    return op_error(call, StatusCode::kInvalidArgument, "the expanded size ", shape_str(size),
                    " must have at least as many dims as self ", shape_str(x.shape()),
                    " (and at most ", kMaxRank, ")");
  }
  Window w;
  w.rank = r;
  for (int d = 0; d < r; ++d) {
    const int xd = d - (r - x.rank);
    int64_t s = size[d];
    if (xd < 0) {
      if (s < 0) {
        return op_error(call, StatusCode::kInvalidArgument, "the expanded size ", shape_str(size),
                        " cannot use -1 for the new leading dim ", d);
      }
      w.sizes[d] = s;
      w.strides[d] = 0;
      continue;
    }
    if (s == -1) s = x.sizes[xd];
    if (s < 0 || (x.sizes[xd] != s && x.sizes[xd] != 1)) {
      return op_error(call, StatusCode::kInvalidArgument, "the expanded size ", shape_str(size),
                      " must match the existing size ", x.sizes[xd], " at non-singleton dim ", d,
                      " of self ", shape_str(x.shape()));
    }
    w.sizes[d] = s;
    w.strides[d] = x.sizes[xd] == s ? x.strides[xd] : 0;
  }
  CopyParams p;
  p.elem_size = dtype_size(x.dtype);
  emit_window(call, p, info, x, static_cast<int>(tensor_input_index(call, 0)), 0, w);
  return p;
}

}  // namespace

Result<CopyParams> copy_prepare_expand(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(auto size, ints_arg(call, 1, "size"));
  return expand_to(call, out_info, *x, size);
}

Result<CopyParams> copy_prepare_expand_as(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* other, tensor_arg(call, 1, "other"));
  return expand_to(call, out_info, *x, other->shape());
}

Result<CopyParams> copy_prepare_repeat(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(auto reps, ints_arg(call, 1, "repeats"));
  const int r = static_cast<int>(reps.size());
  if (r < x->rank || r > kMaxRank) {
    return op_error(call, StatusCode::kInvalidArgument, "repeats ", shape_str(reps),
                    " must have at least as many entries as self has dims ", shape_str(x->shape()));
  }
  std::array<int64_t, kMaxRank> out{};
  Window w;  // virtual dims (rep_d, size_d) per output dim d
  w.rank = 2 * r;
  for (int d = 0; d < r; ++d) {
    if (reps[d] < 0) {
      return op_error(call, StatusCode::kInvalidArgument, "repeats ", shape_str(reps),
                      " has a negative entry");
    }
    const int xd = d - (r - x->rank);
    const int64_t s = xd < 0 ? 1 : x->sizes[xd];
    out[d] = reps[d] * s;
    w.sizes[2 * d] = reps[d];
    w.strides[2 * d] = 0;
    w.sizes[2 * d + 1] = s;
    w.strides[2 * d + 1] = xd < 0 ? 0 : x->strides[xd];
  }
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(std::span<const int64_t>(out.data(), r));
  CopyParams p;
  p.elem_size = dtype_size(x->dtype);
  // Never an alias, even where nothing repeats: torch's repeat is a new tensor, which an
  // in-place write to the input (copy_, index_put_, a buffer update) must not reach.
  add_region(p, static_cast<int>(tensor_input_index(call, 0)), 0, w);
  (void)out_info;
  return p;
}

// repeat_interleave.self_int(self, repeats, dim?, *, output_size?): element i of `dim` (of the
// flattened self when dim is None) `repeats` times in a row, as one window with a stride-0
// virtual dim after `dim`.
Result<CopyParams> copy_prepare_repeat_interleave(const KernelCall& call, PrepareInfo*) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(const int64_t reps, int_arg(call, 1, "repeats"));
  if (reps < 0)
    return op_error(call, StatusCode::kInvalidArgument, "repeats ", reps, " must be >= 0");
  const bool flat = call.args[2].is_none();
  int dim = x->rank - 1;
  if (!flat) {
    TIR_ASSIGN_OR_RETURN(const int64_t raw, int_arg(call, 2, "dim"));
    TIR_ASSIGN_OR_RETURN(dim, normalize_dim(call, raw, x->rank, "dim"));
  }
  if (x->rank == 0 && !flat)
    return op_error(call, StatusCode::kInvalidArgument, "self is 0-dim; dim must be None");
  Window w = whole(*x);  // insert the repeat dim (stride 0) after `dim`
  w.rank = x->rank + 1;
  for (int d = x->rank; d > dim + 1; --d) {
    w.sizes[d] = w.sizes[d - 1];
    w.strides[d] = w.strides[d - 1];
  }
  w.sizes[dim + 1] = reps;
  w.strides[dim + 1] = 0;
  std::vector<int64_t> out(x->shape().begin(), x->shape().end());
  if (flat) out = {x->numel() * reps};
  if (!flat) out[dim] *= reps;
  if (!call.args[3].is_none()) {
    TIR_ASSIGN_OR_RETURN(const int64_t want, int_arg(call, 3, "output_size"));
    if (want != (flat ? out[0] : out[dim]))
      return op_error(call, StatusCode::kInvalidArgument, "output_size ", want, " is not ",
                      flat ? out[0] : out[dim], " (the repeated dim's size)");
  }
  return one_window(call, *x, out, w);
}

Result<CopyParams> copy_prepare_transpose(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(int64_t raw0, int_arg(call, 1, "dim0"));
  TIR_ASSIGN_OR_RETURN(int64_t raw1, int_arg(call, 2, "dim1"));
  TIR_ASSIGN_OR_RETURN(int d0, normalize_dim(call, raw0, x->rank, "dim0"));
  TIR_ASSIGN_OR_RETURN(int d1, normalize_dim(call, raw1, x->rank, "dim1"));
  Window w = whole(*x);
  if (x->rank > 0) {
    std::swap(w.sizes[d0], w.sizes[d1]);
    std::swap(w.strides[d0], w.strides[d1]);
  }
  CopyParams p;
  p.elem_size = dtype_size(x->dtype);
  emit_window(call, p, out_info, *x, static_cast<int>(tensor_input_index(call, 0)), 0, w);
  return p;
}

namespace {

Result<CopyParams> squeeze_mask(const KernelCall& call, PrepareInfo* info, const Tensor& x,
                                const std::array<bool, kMaxRank>& drop) {
  Window w;
  for (int d = 0; d < x.rank; ++d) {
    if (drop[d] && x.sizes[d] == 1) continue;
    w.sizes[w.rank] = x.sizes[d];
    w.strides[w.rank] = x.strides[d];
    ++w.rank;
  }
  CopyParams p;
  p.elem_size = dtype_size(x.dtype);
  emit_window(call, p, info, x, static_cast<int>(tensor_input_index(call, 0)), 0, w);
  return p;
}

}  // namespace

Result<CopyParams> copy_prepare_squeeze(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 1, 1));
  std::array<bool, kMaxRank> drop;
  drop.fill(true);
  return squeeze_mask(call, out_info, *x, drop);
}

Result<CopyParams> copy_prepare_squeeze_dims(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(auto dims, ints_arg(call, 1, "dim"));
  std::array<bool, kMaxRank> drop{};
  for (int64_t raw : dims) {
    TIR_ASSIGN_OR_RETURN(int d, normalize_dim(call, raw, x->rank, "dim"));
    if (x->rank > 0) drop[d] = true;
  }
  return squeeze_mask(call, out_info, *x, drop);
}

Result<CopyParams> copy_prepare_flip(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(auto dims, ints_arg(call, 1, "dims"));
  Window w = whole(*x);
  std::array<bool, kMaxRank> seen{};
  for (int64_t raw : dims) {
    TIR_ASSIGN_OR_RETURN(int d, normalize_dim(call, raw, x->rank, "dims"));
    if (x->rank == 0) continue;
    if (seen[d]) {
      return op_error(call, StatusCode::kInvalidArgument, "dims ", shape_str(dims), " repeats dim ",
                      d);
    }
    seen[d] = true;
    if (x->sizes[d] == 0) continue;
    w.offset += (x->sizes[d] - 1) * x->strides[d];
    w.strides[d] = -x->strides[d];
  }
  CopyParams p;
  p.elem_size = dtype_size(x->dtype);
  emit_window(call, p, out_info, *x, static_cast<int>(tensor_input_index(call, 0)), 0, w,
              /*may_alias=*/false);
  return p;
}

Result<CopyParams> copy_prepare_roll(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_input(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(auto shifts, ints_arg(call, 1, "shifts"));
  TIR_ASSIGN_OR_RETURN(auto dims_raw, ints_arg(call, 2, "dims"));
  // Empty dims: roll the flattened tensor (a 1-D view with the same bytes).
  Tensor flat = *x;
  std::vector<int64_t> dims(dims_raw.begin(), dims_raw.end());
  if (dims.empty()) {
    const int64_t n[1] = {x->numel()};
    flat.set_shape(n);
    dims.push_back(0);
  }
  if (shifts.size() != dims.size()) {
    return op_error(call, StatusCode::kInvalidArgument, "shifts ", shape_str(shifts), " and dims ",
                    shape_str(dims), " must have the same length");
  }
  std::array<int64_t, kMaxRank> shift{};
  for (size_t k = 0; k < dims.size(); ++k) {
    TIR_ASSIGN_OR_RETURN(int d, normalize_dim(call, dims[k], flat.rank, "dims"));
    if (flat.rank == 0 || flat.sizes[d] == 0) continue;
    shift[d] += shifts[k];
  }
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(x->shape());
  const Tensor& o = call.outputs[0];
  Tensor oflat = o;
  oflat.set_shape(flat.shape());
  CopyParams p;
  p.elem_size = dtype_size(x->dtype);
  const int in = static_cast<int>(tensor_input_index(call, 0));
  // Each rolled dim splits into two runs: out[s..n) <- in[0..n-s), out[0..s) <- in[n-s..n).
  const int r = flat.rank;
  for (int mask = 0; mask < (1 << r); ++mask) {
    Window w = whole(flat);
    int64_t out_off = 0;
    bool valid = true;
    for (int d = 0; d < r; ++d) {
      const int64_t n = flat.sizes[d];
      const int64_t s = n ? ((shift[d] % n) + n) % n : 0;
      const bool hi = (mask >> d) & 1;
      if (s == 0 && hi) valid = false;
      if (s == 0) continue;
      if (!hi) {  // out[s, n) <- in[0, n - s)
        w.sizes[d] = n - s;
        out_off += s * oflat.strides[d];
      } else {  // out[0, s) <- in[n - s, n)
        w.sizes[d] = s;
        w.offset += (n - s) * flat.strides[d];
      }
    }
    if (valid) add_region(p, in, 0, w, out_off, oflat.strides.data());
  }
  (void)out_info;  // a new tensor in torch even when nothing moves (see repeat)
  return p;
}

}  // namespace tir::kernels
