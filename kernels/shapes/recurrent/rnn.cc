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

/// The kind, the input (argument 0) and the state: hx (argument 1), a list [h, c] for LSTM.
Status read_input_and_state(const KernelCall& call, RnnKind kind, RnnParams& p) {
  p.kind = kind;
  p.lstm = kind == RnnKind::kLstm;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  if (p.lstm) {
    TIR_ASSIGN_OR_RETURN(p.hx, tensor_list(call, 1, "hx"));
    return ok_status();
  }
  TIR_ASSIGN_OR_RETURN(const Tensor* h0, tensor_arg(call, 1, "hx"));
  TIR_RETURN_IF_ERROR(require_dtype(call, *h0, DType::kFloat32, "hx"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *h0, "hx"));
  p.hx = {static_cast<int>(tensor_input_index(call, 1))};
  return ok_status();
}

Result<RnnParams> prepare(const KernelCall& call, RnnKind kind) {
  const bool lstm = kind == RnnKind::kLstm;
  TIR_RETURN_IF_ERROR(check_arity(call, 9, lstm ? 3 : 2));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
  TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "input"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
  RnnParams p;
  TIR_RETURN_IF_ERROR(read_input_and_state(call, kind, p));
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

/// A cell: one step of one layer and direction over a batch [B, I] (or unbatched [I]).
Result<RnnParams> prepare_cell(const KernelCall& call, RnnKind kind) {
  const bool lstm = kind == RnnKind::kLstm;
  TIR_RETURN_IF_ERROR(check_arity(call, 4, lstm ? 2 : 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
  TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "input"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
  if (x->rank != 1 && x->rank != 2)
    return op_error(call, StatusCode::kInvalidArgument, "input ", shape_str(x->shape()),
                    " must be 2-D (or 1-D unbatched)");
  RnnParams p;
  p.cell = true;
  TIR_RETURN_IF_ERROR(read_input_and_state(call, kind, p));
  if (p.hx.size() != (lstm ? 2u : 1u))
    return op_error(call, StatusCode::kInvalidArgument, "hx holds ", p.hx.size(), " tensors");
  const bool b_ih = call.args.size() > 4 && !call.args[4].is_none();
  const bool b_hh = call.args.size() > 5 && !call.args[5].is_none();
  if (b_ih != b_hh)
    return op_error(call, StatusCode::kUnsupported, "only one of b_ih and b_hh is given");
  p.has_biases = b_ih;
  for (size_t k = 2; k < (p.has_biases ? 6u : 4u); ++k) {
    TIR_ASSIGN_OR_RETURN(const Tensor* t, tensor_arg(call, k, k < 4 ? "weight" : "bias"));
    TIR_RETURN_IF_ERROR(require_dtype(call, *t, DType::kFloat32, "weight"));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *t, "weight"));
    p.params.push_back(static_cast<int>(tensor_input_index(call, k)));
  }
  p.seq = 1;
  p.batch = x->rank == 2 ? x->sizes[0] : 1;
  p.input_size = x->sizes[x->rank - 1];
  const Tensor& w_hh = call.inputs[size_t(p.params[1])];
  p.hidden = w_hh.rank == 2 ? w_hh.sizes[1] : 0;
  const int64_t gh = p.gates() * p.hidden;
  TIR_RETURN_IF_ERROR(
      expect_shape(call, call.inputs[size_t(p.params[0])], {gh, p.input_size}, "w_ih"));
  TIR_RETURN_IF_ERROR(expect_shape(call, w_hh, {gh, p.hidden}, "w_hh"));
  for (size_t b = 2; b < p.params.size(); ++b)
    TIR_RETURN_IF_ERROR(expect_shape(call, call.inputs[size_t(p.params[b])], {gh}, "bias"));
  std::vector<int64_t> state =
      x->rank == 2 ? std::vector<int64_t>{p.batch, p.hidden} : std::vector<int64_t>{p.hidden};
  for (int h : p.hx) TIR_RETURN_IF_ERROR(expect_shape(call, call.inputs[size_t(h)], state, "hx"));
  for (Tensor& out : call.outputs) {
    out.dtype = DType::kFloat32;
    out.set_shape(state);
  }
  return p;
}

}  // namespace

template <RnnKind Kind>
Result<RnnParams> rnn_prepare(const KernelCall& call, PrepareInfo* out_info) {
  out_info->scratch_bytes = 0;
  return prepare(call, Kind);
}

template <RnnKind Kind>
Result<RnnParams> rnn_prepare_cell(const KernelCall& call, PrepareInfo* out_info) {
  out_info->scratch_bytes = 0;
  return prepare_cell(call, Kind);
}

#define TIR_RNN_PREPARE(kind)                                                             \
  template Result<RnnParams> rnn_prepare<RnnKind::kind>(const KernelCall&, PrepareInfo*); \
  template Result<RnnParams> rnn_prepare_cell<RnnKind::kind>(const KernelCall&, PrepareInfo*);
TIR_RNN_PREPARE(kLstm)
TIR_RNN_PREPARE(kGru)
TIR_RNN_PREPARE(kTanh)
TIR_RNN_PREPARE(kRelu)
#undef TIR_RNN_PREPARE

}  // namespace tir::kernels
