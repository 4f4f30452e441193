#include "kernels/shapes/pooling/avg_pool.h"

#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

// float32, or float64 as torch's double kernels.
Result<const Tensor*> pool_float_input(const KernelCall& call, std::string_view name) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, name));
  if (x->dtype != DType::kFloat64)
    TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, name));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, name));
  return x;
}

// An int[Dims] argument: one value means all dims; empty takes `fallback`.
Result<std::array<int64_t, 3>> int_n(const KernelCall& call, size_t idx, std::string_view name,
                                     int dims, const std::array<int64_t, 3>* fallback) {
  TIR_ASSIGN_OR_RETURN(auto v, ints_arg(call, idx, name));
  std::array<int64_t, 3> out{};
  if (v.empty() && fallback) return *fallback;
  if (v.size() != 1 && v.size() != static_cast<size_t>(dims))
    return op_error(call, StatusCode::kInvalidArgument, "argument '", name, "' ", shape_str(v),
                    " needs 1 or ", dims, " values");
  for (int d = 0; d < dims; ++d) out[d] = v[v.size() == 1 ? 0 : d];
  return out;
}

}  // namespace

template <int Dims>
Result<AvgPoolParams> avg_pool_prepare(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, Dims == 1 ? 6 : 7, 1));  // avg_pool1d: no divisor
  TIR_ASSIGN_OR_RETURN(const Tensor* x, pool_float_input(call, "self"));
  if (x->rank != Dims + 1 && x->rank != Dims + 2)
    return op_error(call, StatusCode::kInvalidArgument, "self must be ", Dims + 1, "-D or ",
                    Dims + 2, "-D, got ", shape_str(x->shape()));
  AvgPoolParams p;
  p.dims = Dims;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  TIR_ASSIGN_OR_RETURN(p.kernel, int_n(call, 1, "kernel_size", Dims, nullptr));
  TIR_ASSIGN_OR_RETURN(p.stride, int_n(call, 2, "stride", Dims, &p.kernel));
  TIR_ASSIGN_OR_RETURN(p.pad, int_n(call, 3, "padding", Dims, nullptr));
  TIR_ASSIGN_OR_RETURN(const bool ceil_mode, bool_arg(call, 4, "ceil_mode"));
  TIR_ASSIGN_OR_RETURN(p.count_include_pad, bool_arg(call, 5, "count_include_pad"));
  if (Dims > 1 && !call.args[6].is_none()) {
    TIR_ASSIGN_OR_RETURN(p.divisor, int_arg(call, 6, "divisor_override"));
    if (p.divisor == 0)
      return op_error(call, StatusCode::kInvalidArgument, "divisor_override must be non-zero");
  }
  const int lead = x->rank - Dims;
  p.planes = prod(x->shape(), 0, lead);
  std::vector<int64_t> out_shape(x->shape().begin(), x->shape().begin() + lead);
  for (int d = 0; d < Dims; ++d) {
    const int64_t in = x->sizes[lead + d], k = p.kernel[d], s = p.stride[d], pad = p.pad[d];
    if (k <= 0 || s <= 0 || pad < 0 || pad * 2 > k)
      return op_error(call, StatusCode::kInvalidArgument,
                      "kernel and stride must be positive and padding at most half the kernel");
    const int64_t span = in + 2 * pad - k;
    if (span < 0)
      return op_error(call, StatusCode::kInvalidArgument, "kernel ", k,
                      " is larger than the padded input ", in + 2 * pad);
    int64_t o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
    if (ceil_mode && (o - 1) * s >= in + pad) --o;
    p.in[d] = in;
    p.out[d] = o;
    out_shape.push_back(o);
  }
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(out_shape);
  return p;
}

template Result<AvgPoolParams> avg_pool_prepare<1>(const KernelCall&, PrepareInfo*);
template Result<AvgPoolParams> avg_pool_prepare<2>(const KernelCall&, PrepareInfo*);
template Result<AvgPoolParams> avg_pool_prepare<3>(const KernelCall&, PrepareInfo*);

}  // namespace tir::kernels
