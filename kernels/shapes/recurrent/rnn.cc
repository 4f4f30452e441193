#include "kernels/shapes/recurrent/rnn.h"

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

Result<std::vector<int>> tensor_list(const KernelCall& call, size_t idx, const char* name) {
  if (idx >= call.args.size() || call.args[idx].kind != ArgKind::kTensors)
    return op_error(call, StatusCode::kInvalidArgument, "argument '", name,
                    "' must be a Tensor list");
  std::vector<int> out;
  for (int64_t slot : call.args[idx].ints) {
    if (slot < 0)
      return op_error(call, StatusCode::kInvalidArgument, "argument '", name, "' holds a None");
    const Tensor& t = call.inputs[size_t(slot)];
    TIR_RETURN_IF_ERROR(require_dtype(call, t, DType::kFloat32, name));
    TIR_RETURN_IF_ERROR(require_contiguous(call, t, name));
    out.push_back(int(slot));
  }
  return out;
}

/// Checks one weight's shape.
Status expect_shape(const KernelCall& call, const Tensor& t, std::vector<int64_t> want,
                    const char* what) {
  const auto s = t.shape();
  if (!std::equal(s.begin(), s.end(), want.begin(), want.end()))
    return op_error(call, StatusCode::kInvalidArgument, what, " is ", shape_str(s), ", expected ",
                    shape_str(want));
  return ok_status();
}

Result<RnnParams> prepare(const KernelCall& call, bool lstm) {
  TIR_RETURN_IF_ERROR(check_arity(call, 9, lstm ? 3 : 2));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
  TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "input"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
  RnnParams p;
  p.lstm = lstm;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  if (lstm) {
    TIR_ASSIGN_OR_RETURN(p.hx, tensor_list(call, 1, "hx"));
  } else {
    TIR_ASSIGN_OR_RETURN(const Tensor* h0, tensor_arg(call, 1, "hx"));
    TIR_RETURN_IF_ERROR(require_dtype(call, *h0, DType::kFloat32, "hx"));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *h0, "hx"));
    p.hx = {static_cast<int>(tensor_input_index(call, 1))};
  }
  TIR_ASSIGN_OR_RETURN(p.params, tensor_list(call, 2, "params"));
  TIR_ASSIGN_OR_RETURN(p.has_biases, bool_arg(call, 3, "has_biases"));
  TIR_ASSIGN_OR_RETURN(p.layers, int_arg(call, 4, "num_layers"));
  TIR_ASSIGN_OR_RETURN(const bool train, bool_arg(call, 6, "train"));
  TIR_ASSIGN_OR_RETURN(const bool bidirectional, bool_arg(call, 7, "bidirectional"));
  TIR_ASSIGN_OR_RETURN(p.batch_first, bool_arg(call, 8, "batch_first"));
  if (train)
    return op_error(call, StatusCode::kUnsupported,
                    "a recurrent layer in training mode (export the model after .eval())");
  p.dirs = bidirectional ? 2 : 1;
  if (p.hx.size() != (lstm ? 2u : 1u))
    return op_error(call, StatusCode::kInvalidArgument, "hx holds ", p.hx.size(), " tensors");
  const size_t per = p.has_biases ? 4 : 2;
  if (p.layers < 1 || p.params.size() != per * size_t(p.layers * p.dirs))
    return op_error(call, StatusCode::kUnsupported, p.params.size(), " parameter tensors for ",
                    p.layers, " layer(s) x ", p.dirs,
                    " direction(s) (a projection, proj_size, is not supported)");
  const bool batched = x->rank == 3;
  if (x->rank != 2 && !batched)
    return op_error(call, StatusCode::kInvalidArgument, "input ", shape_str(x->shape()),
                    " must be 3-D (or 2-D unbatched)");
  p.seq = batched && p.batch_first ? x->sizes[1] : x->sizes[0];
  p.batch = batched ? (p.batch_first ? x->sizes[0] : x->sizes[1]) : 1;
  p.input_size = x->sizes[x->rank - 1];
  const Tensor& w_hh = call.inputs[size_t(p.params[1])];
  p.hidden = w_hh.rank == 2 ? w_hh.sizes[1] : 0;
  const int64_t gh = p.gates() * p.hidden;
  for (int64_t l = 0; l < p.layers; ++l)
    for (int64_t d = 0; d < p.dirs; ++d) {
      const size_t at = per * size_t(l * p.dirs + d);
      const int64_t in = l == 0 ? p.input_size : p.dirs * p.hidden;
      TIR_RETURN_IF_ERROR(expect_shape(call, call.inputs[size_t(p.params[at])], {gh, in}, "w_ih"));
      TIR_RETURN_IF_ERROR(
          expect_shape(call, call.inputs[size_t(p.params[at + 1])], {gh, p.hidden}, "w_hh"));
      for (size_t b = 2; b < per; ++b)
        TIR_RETURN_IF_ERROR(
            expect_shape(call, call.inputs[size_t(p.params[at + b])], {gh}, "bias"));
    }
  std::vector<int64_t> state = batched ? std::vector<int64_t>{p.layers * p.dirs, p.batch, p.hidden}
                                       : std::vector<int64_t>{p.layers * p.dirs, p.hidden};
  for (int h : p.hx) TIR_RETURN_IF_ERROR(expect_shape(call, call.inputs[size_t(h)], state, "hx"));
  std::vector<int64_t> out(x->shape().begin(), x->shape().end());
  out.back() = p.dirs * p.hidden;
  call.outputs[0].dtype = DType::kFloat32;
  call.outputs[0].set_shape(out);
  for (size_t k = 1; k < call.outputs.size(); ++k) {
    call.outputs[k].dtype = DType::kFloat32;
    call.outputs[k].set_shape(state);
  }
  return p;
}

}  // namespace

Result<RnnParams> rnn_prepare_lstm(const KernelCall& call, PrepareInfo* out_info) {
  out_info->scratch_bytes = 0;
  return prepare(call, true);
}

Result<RnnParams> rnn_prepare_gru(const KernelCall& call, PrepareInfo* out_info) {
  out_info->scratch_bytes = 0;
  return prepare(call, false);
}

}  // namespace tir::kernels
