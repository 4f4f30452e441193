/* A custom op's kernel written in C against tir/tir.h alone (C99), for c_custom_op_test.cc:
 * mylib::scaled_add(x, y, alpha=1.0) = x + alpha * y on float32 tensors of one shape, the op
 * tests/data/gen_custom_op.py exports. */
#include "tests/capi/c_custom_op_kernel.h"

#include <string.h>

static tir_status scaled_add_prepare(tir_custom_call* call, void* user_data) {
  scaled_add_state* state = (scaled_add_state*)user_data;
  tir_tensor_view x, y;
  int32_t i;
  state->prepares++;
  if (state->refuse) {
    tir_custom_call_set_error(call, "refused by the test");
    return TIR_UNSUPPORTED;
  }
  if (tir_custom_call_input_count(call) != 2 || tir_custom_call_output_count(call) != 1) {
    tir_custom_call_set_error(call, "expected 2 inputs and 1 output");
    return TIR_INVALID_ARGUMENT;
  }
  if (tir_custom_call_input(call, 0, &x) != TIR_OK || tir_custom_call_input(call, 1, &y) != TIR_OK)
    return TIR_INTERNAL;
  if (x.dtype != TIR_DTYPE_FLOAT32 || y.dtype != TIR_DTYPE_FLOAT32 || x.rank != y.rank) {
    tir_custom_call_set_error(call, "x and y must be float32 tensors of one shape");
    return TIR_INVALID_ARGUMENT;
  }
  for (i = 0; i < x.rank; ++i)
    if (x.dims[i] != y.dims[i]) {
      tir_custom_call_set_error(call, "x and y must be float32 tensors of one shape");
      return TIR_INVALID_ARGUMENT;
    }
  return tir_custom_call_set_output(call, 0, x.dtype, x.dims, x.rank);
}

static tir_status scaled_add_run(tir_custom_call* call, void* user_data) {
  scaled_add_state* state = (scaled_add_state*)user_data;
  tir_tensor_view x, y, out;
  double alpha = 1.0; /* the schema's default, when the program leaves it out */
  const float* xs;
  const float* ys;
  float* o;
  size_t i, n;
  tir_status st = tir_custom_call_arg_float(call, "alpha", &alpha);
  if (st == TIR_OK)
    state->alpha_given++;
  else if (st == TIR_NOT_FOUND)
    state->alpha_defaulted++;
  else
    return st;
  if (tir_custom_call_input(call, 0, &x) != TIR_OK ||
      tir_custom_call_input(call, 1, &y) != TIR_OK ||
      tir_custom_call_output(call, 0, &out) != TIR_OK)
    return TIR_INTERNAL;
  xs = (const float*)x.data;
  ys = (const float*)y.data;
  o = (float*)tir_custom_call_output_data(call, 0);
  if (!o || out.nbytes != x.nbytes) return TIR_INTERNAL;
  n = out.nbytes / sizeof(float);
  for (i = 0; i < n; ++i) o[i] = xs[i] + (float)alpha * ys[i];
  state->runs++;
  if (strcmp(tir_custom_call_op(call), "mylib::scaled_add") != 0) return TIR_INTERNAL;
  return TIR_OK;
}

tir_custom_op scaled_add_op(scaled_add_state* state, const tir_dtype* dtypes, size_t num_dtypes) {
  tir_custom_op op;
  op.name = "mylib::scaled_add";
  op.dtypes = dtypes;
  op.num_dtypes = num_dtypes;
  op.prepare = scaled_add_prepare;
  op.run = scaled_add_run;
  op.user_data = state;
  return op;
}
