#include "kernels/shapes/movement/unfold.h"

#include "kernels/kernel_util.h"

namespace tir::kernels {

Result<UnfoldParams> unfold_prepare(const KernelCall& call, PrepareInfo*) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 4));
  TIR_ASSIGN_OR_RETURN(int64_t dim, int_arg(call, 1, "dimension"));
  TIR_ASSIGN_OR_RETURN(int64_t size, int_arg(call, 2, "size"));
  TIR_ASSIGN_OR_RETURN(int64_t step, int_arg(call, 3, "step"));
  if (x->rank + 1 > kMaxRank)
    return op_error(call, StatusCode::kUnsupported, "rank ", x->rank + 1, " exceeds ", kMaxRank);
  // A 0-d tensor unfolds as one of a single element (ATen).
  const int rank = x->rank;
  TIR_ASSIGN_OR_RETURN(int d, normalize_dim(call, dim, rank, "dimension"));
  const int64_t n = rank == 0 ? 1 : x->sizes[d];
  if (size < 0 || size > n)
    return op_error(call, StatusCode::kInvalidArgument, "size ", size, " is not in [0, ", n,
                    "] (the size of dimension ", dim, ")");
  if (step < 1)
    return op_error(call, StatusCode::kInvalidArgument, "step ", step, " must be positive");
  UnfoldParams p;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.elem_size = dtype_size(x->dtype);
  p.rank = rank + 1;
  int64_t stride = 1;
  std::array<int64_t, kMaxRank> in_strides{};
  for (int k = rank - 1; k >= 0; --k) {
    in_strides[k] = stride;
    stride *= x->sizes[k];
  }
  for (int k = 0; k < rank; ++k) {
    p.out_sizes[k] = k == d ? (n - size) / step + 1 : x->sizes[k];
    p.in_strides[k] = k == d ? in_strides[k] * step : in_strides[k];
  }
  p.out_sizes[rank] = size;
  p.in_strides[rank] = rank == 0 ? 1 : in_strides[d];
  if (rank == 0) p.rank = 1;
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(std::span<const int64_t>(p.out_sizes.data(), size_t(p.rank)));
  return p;
}

}  // namespace tir::kernels
