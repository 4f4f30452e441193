/* The C kernel of c_custom_op_kernel.c: mylib::scaled_add through the C ABI. */
#ifndef TIR_TESTS_CAPI_C_CUSTOM_OP_KERNEL_H_
#define TIR_TESTS_CAPI_C_CUSTOM_OP_KERNEL_H_

#include "tir/tir.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What the callbacks saw (their user_data); `refuse` makes prepare fail. */
typedef struct scaled_add_state {
  int prepares, runs, alpha_given, alpha_defaulted;
  int refuse;
} scaled_add_state;

/** The op's description, its callbacks reading and counting into `state`. */
tir_custom_op scaled_add_op(scaled_add_state* state, const tir_dtype* dtypes, size_t num_dtypes);

#ifdef __cplusplus
}
#endif

#endif
