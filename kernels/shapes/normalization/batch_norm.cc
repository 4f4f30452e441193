#include "kernels/shapes/normalization/batch_norm.h"

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

Result<BatchNormParams> bn_common(const KernelCall& call, size_t eps_pos) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
  if (x->dtype != DType::kFloat64)  // float64 as torch's double kernels; else float32
    TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "input"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
  if (x->rank < 2) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "input must have rank >= 2 [N, C, ...], got ", shape_str(x->shape()));
  }
  BatchNormParams p;
  p.dtype = x->dtype;
  p.n = x->sizes[0];
  p.c = x->sizes[1];
  p.inner = prod(x->shape(), 2, x->rank);
  TIR_ASSIGN_OR_RETURN(p.eps, scalar_arg(call, eps_pos, "eps"));
  p.input = static_cast<int>(tensor_input_index(call, 0));
  const char* names[4] = {"weight", "bias", "running_mean", "running_var"};
  int* slots[4] = {&p.weight, &p.bias, &p.mean, &p.var};
  for (size_t i = 0; i < 4; ++i) {
    TIR_ASSIGN_OR_RETURN(const Tensor* t, optional_tensor_arg(call, i + 1, names[i]));
    if (t == nullptr) {
      if (i >= 2) {
        return op_error(call, StatusCode::kUnsupported, "argument '", names[i],
                        "' is None; inference batch norm needs running statistics");
      }
      continue;
    }
    TIR_RETURN_IF_ERROR(require_dtype(call, *t, p.dtype, names[i]));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *t, names[i]));
    if (t->rank != 1 || t->sizes[0] != p.c) {
      return op_error(call, StatusCode::kInvalidArgument, "argument '", names[i], "' ",
                      shape_str(t->shape()), " must be [", p.c, "] (input channels)");
    }
    *slots[i] = static_cast<int>(tensor_input_index(call, i + 1));
  }
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(x->shape());
  return p;
}

}  // namespace

Result<bool> batch_norm_training(const KernelCall& call) {
  TIR_RETURN_IF_ERROR(check_arity(call, 9, 1));
  return bool_arg(call, 5, "training");
}

Result<BatchNormParams> norm_prepare_batch_norm(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const bool training, batch_norm_training(call));
  if (training)
    return op_error(call, StatusCode::kInvalidArgument, "training=True: batch statistics");
  (void)out_info;
  return bn_common(call, 7);
}

Result<BatchNormParams> norm_prepare_native_no_training(const KernelCall& call,
                                                        PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 7, 3));
  TIR_ASSIGN_OR_RETURN(BatchNormParams p, bn_common(call, 6));
  for (int k = 1; k < 3; ++k) {
    call.outputs[k].dtype = p.dtype;
    call.outputs[k].set_shape({0});
  }
  (void)out_info;
  return p;
}

Result<BatchNormParams> norm_prepare_native_legit(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 8, 3));
  TIR_ASSIGN_OR_RETURN(bool training, bool_arg(call, 5, "training"));
  if (training) {
    return op_error(call, StatusCode::kUnsupported,
                    "training=True updates running_mean/running_var in place, which is not "
                    "supported (export the model in eval mode)");
  }
  TIR_ASSIGN_OR_RETURN(BatchNormParams p, bn_common(call, 7));
  for (int k = 1; k < 3; ++k) {
    call.outputs[k].dtype = DType::kFloat32;
    call.outputs[k].set_shape({0});
  }
  (void)out_info;
  return p;
}

namespace {

// Input [N, C, ...] with optional affine weight/bias at schema positions 1 and 2, eps at
// `eps_pos`; `per_sample` takes statistics per (sample, channel) instead of per channel.
Result<BatchStatsParams> batch_stats_common(const KernelCall& call, size_t eps_pos,
                                            bool per_sample) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
  TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "input"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
  if (x->rank < 2) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "input must have rank >= 2 [N, C, ...], got ", shape_str(x->shape()));
  }
  BatchStatsParams p;
  p.affine_channels = x->sizes[1];
  p.n = per_sample ? 1 : x->sizes[0];
  p.c = per_sample ? x->sizes[0] * x->sizes[1] : x->sizes[1];
  p.inner = prod(x->shape(), 2, x->rank);
  if (p.n * p.inner == 0) {
    return op_error(call, StatusCode::kInvalidArgument, "input ", shape_str(x->shape()),
                    " has no values per channel to take statistics of");
  }
  TIR_ASSIGN_OR_RETURN(p.eps, scalar_arg(call, eps_pos, "eps"));
  p.input = static_cast<int>(tensor_input_index(call, 0));
  const char* names[2] = {"weight", "bias"};
  int* slots[2] = {&p.weight, &p.bias};
  for (size_t i = 0; i < 2; ++i) {
    TIR_ASSIGN_OR_RETURN(const Tensor* t, optional_tensor_arg(call, i + 1, names[i]));
    if (t == nullptr) continue;
    TIR_RETURN_IF_ERROR(require_dtype(call, *t, DType::kFloat32, names[i]));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *t, names[i]));
    if (t->rank != 1 || t->sizes[0] != p.affine_channels) {
      return op_error(call, StatusCode::kInvalidArgument, "argument '", names[i], "' ",
                      shape_str(t->shape()), " must be [", p.affine_channels, "] (input channels)");
    }
    *slots[i] = static_cast<int>(tensor_input_index(call, i + 1));
  }
  call.outputs[0].dtype = DType::kFloat32;
  call.outputs[0].set_shape(x->shape());
  return p;
}

}  // namespace

Result<BatchStatsParams> norm_prepare_batch_norm_training(const KernelCall& call,
                                                          PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const bool training, batch_norm_training(call));
  if (!training)
    return op_error(call, StatusCode::kInvalidArgument, "training=False: running statistics");
  for (size_t i : {3, 4})
    if (!call.args[i].is_none())
      return op_error(call, StatusCode::kUnsupported,
                      "training=True with running statistics updates running_mean and "
                      "running_var in place, which is not supported (export the model in eval "
                      "mode)");
  (void)out_info;
  return batch_stats_common(call, 7, false);
}

Result<bool> native_functional_training(const KernelCall& call) {
  TIR_RETURN_IF_ERROR(check_arity(call, 8, 5));
  return bool_arg(call, 5, "training");
}

Result<BatchTrainParams> norm_prepare_native_functional_training(const KernelCall& call,
                                                                 PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const bool training, native_functional_training(call));
  if (!training)
    return op_error(call, StatusCode::kInvalidArgument, "training=False: running statistics");
  BatchTrainParams p;
  TIR_ASSIGN_OR_RETURN(p.stats, batch_stats_common(call, 7, false));
  const char* names[2] = {"running_mean", "running_var"};
  int* slots[2] = {&p.mean, &p.var};
  for (size_t i = 0; i < 2; ++i) {
    TIR_ASSIGN_OR_RETURN(const Tensor* t, tensor_arg(call, 3 + i, names[i]));
    TIR_RETURN_IF_ERROR(require_dtype(call, *t, DType::kFloat32, names[i]));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *t, names[i]));
    if (t->rank != 1 || t->sizes[0] != p.stats.c)
      return op_error(call, StatusCode::kInvalidArgument, "argument '", names[i], "' ",
                      shape_str(t->shape()), " must be [", p.stats.c, "] (input channels)");
    *slots[i] = static_cast<int>(tensor_input_index(call, 3 + i));
  }
  TIR_ASSIGN_OR_RETURN(p.momentum, scalar_arg(call, 6, "momentum"));
  for (int k = 1; k < 5; ++k) {
    call.outputs[k].dtype = DType::kFloat32;
    call.outputs[k].set_shape({p.stats.c});
  }
  (void)out_info;
  return p;
}

Result<BatchStatsParams> norm_prepare_native_no_stats(const KernelCall& call,
                                                      PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 6, 3));
  TIR_ASSIGN_OR_RETURN(bool training, bool_arg(call, 3, "training"));
  if (!training) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "training=False needs running statistics, which the .no_stats overload "
                    "does not take");
  }
  TIR_ASSIGN_OR_RETURN(BatchStatsParams p, batch_stats_common(call, 5, false));
  for (int k = 1; k < 3; ++k) {
    call.outputs[k].dtype = DType::kFloat32;
    call.outputs[k].set_shape({p.c});
  }
  (void)out_info;
  return p;
}

Result<BatchStatsParams> norm_prepare_instance_norm(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 9, 1));
  TIR_ASSIGN_OR_RETURN(bool use_input_stats, bool_arg(call, 5, "use_input_stats"));
  if (!use_input_stats) {
    return op_error(call, StatusCode::kUnsupported,
                    "use_input_stats=False (running statistics) is not supported");
  }
  (void)out_info;
  return batch_stats_common(call, 7, true);
}

Result<BatchNormParams> norm_prepare_native_functional(const KernelCall& call,
                                                       PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 8, 5));
  TIR_ASSIGN_OR_RETURN(bool training, bool_arg(call, 5, "training"));
  if (training) {
    return op_error(call, StatusCode::kUnsupported,
                    "training=True (batch statistics with running-statistics updates) is not "
                    "supported (export the model in eval mode)");
  }
  TIR_ASSIGN_OR_RETURN(BatchNormParams p, bn_common(call, 7));
  for (int k = 1; k < 5; ++k) {
    call.outputs[k].dtype = DType::kFloat32;
    call.outputs[k].set_shape({k < 3 ? 0 : p.c});
  }
  (void)out_info;
  return p;
}

}  // namespace tir::kernels
