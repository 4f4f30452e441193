/* tir's C ABI: open a model and its weights, bind inputs, run, read outputs, swap weights;
 * generate tokens with an LLM's prefill and decode methods.
 *
 * A thin, stable layer over the C++ API (runtime/exec/session.h), which stays the primary one.
 * C99, opaque handles, no C++ types cross it; link with `pkg-config --cflags --libs tir`.
 *
 *   tir_session* s = NULL;
 *   if (tir_session_open("model.tir", "model.bin", NULL, &s) != TIR_OK) {
 *     fprintf(stderr, "error: %s\n", tir_last_error());
 *     return 1;
 *   }
 *   int64_t dims[4] = {1, 3, 32, 32};
 *   tir_session_bind_input_by_name(s, "x", TIR_DTYPE_FLOAT32, dims, 4, x, sizeof x);
 *   tir_session_run(s);
 *   tir_tensor_view out;
 *   tir_session_output(s, 0, &out);   // out.data valid until the next run on s
 *   tir_session_free(s);
 *
 * Errors. Every fallible function returns a tir_status; TIR_OK is 0. On failure the message
 * (one line naming the file, input, tensor or method) is kept per thread and read with
 * tir_last_error(). No function aborts or lets a C++ exception out: a null handle, unknown
 * name, wrong dtype, rank or shape is a status, never a crash.
 *
 * Ownership. Handles are created by tir_*_create / tir_session_open* and freed by the matching
 * tir_*_free (which accept NULL). Strings and arrays returned through out-params point into
 * memory tir owns: never free them; each function says how long they stay valid.
 *
 * Threads. Each declaration below says which of these it is:
 *   [any thread]  safe to call from any thread at any time, also on a handle another thread
 *                 is using;
 *   [per handle]  calls on one handle must not overlap (serialise them, or give each thread
 *                 its own handle: handles share nothing mutable, so different handles run
 *                 concurrently; tests/capi/c_api_threads_test.cc runs one per thread);
 *   [exclusive]   no other call may be in flight on that handle (create, free).
 * A tir_session_options is a plain value ([per handle]). A tir_session's input bindings and
 * its last outputs belong to the handle, so bind, run and output are [per handle];
 * tir_session_swap_weights* may be called from any thread while another runs: runs in flight
 * finish on the old weights, later ones use the new. tir_last_error() is per thread.
 */
#ifndef TIR_TIR_H_
#define TIR_TIR_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TIR_API __attribute__((visibility("default")))
#else
#define TIR_API
#endif

/** Bumped when a function or type of this header changes incompatibly or is added.
 *  3: custom ops (tir_custom_op, tir_session_options_add_custom_op, tir_custom_call_*).
 *  4: tir_session_options_set_seed.
 *  5: LoRA adapters (tir_session_load_adapter, tir_session_unload_adapter,
 *     tir_session_run_adapter).
 *  6: inputs the program writes (tir_session_input_written, tir_session_written_input). */
#define TIR_API_VERSION 6

/** Mirrors tir::StatusCode (core/status.h); values are stable. */
typedef enum tir_status {
  TIR_OK = 0,
  TIR_INVALID_ARGUMENT = 1, /**< the caller passed something wrong (handle, name, shape) */
  TIR_NOT_FOUND = 2,        /**< a named thing (file, input, method, tensor) does not exist */
  TIR_UNSUPPORTED = 3,      /**< valid but not implemented (op, dtype, format) */
  TIR_CORRUPT = 4,          /**< a file is malformed or fails its checks */
  TIR_IO = 5,               /**< the OS refused (open, read, mmap) */
  TIR_INTERNAL = 6          /**< a bug in tir, a vendor failure or out of memory */
} tir_status;

/** Element types, numbered as ATen's ScalarType (and tir::DType). */
typedef enum tir_dtype {
  TIR_DTYPE_UNDEFINED = -1,
  TIR_DTYPE_UINT8 = 0,
  TIR_DTYPE_INT8 = 1,
  TIR_DTYPE_INT16 = 2,
  TIR_DTYPE_INT32 = 3,
  TIR_DTYPE_INT64 = 4,
  TIR_DTYPE_FLOAT16 = 5,
  TIR_DTYPE_FLOAT32 = 6,
  TIR_DTYPE_FLOAT64 = 7,
  TIR_DTYPE_COMPLEX64 = 9,   /**< two float32, real part first */
  TIR_DTYPE_COMPLEX128 = 10, /**< two float64, real part first */
  TIR_DTYPE_BOOL = 11,       /**< one byte per element, 0 or 1 */
  TIR_DTYPE_BFLOAT16 = 15,
  /* Makes every int32 value a valid tir_dtype, so that tir can reject an unknown one
     instead of meeting an out-of-range enum value (undefined behaviour in C++). */
  TIR_DTYPE_INT32_RANGE_ = 0x7fffffff
} tir_dtype;

/** What GEMM-class kernels compute in (tir::Precision). */
typedef enum tir_precision {
  TIR_PRECISION_F32 = 0,
  TIR_PRECISION_BF16 = 1,
  TIR_PRECISION_INT8 =
      2, /* int8 weights, dynamically quantized activations (docs/guide/low-precision.md) */
  TIR_PRECISION_INT32_RANGE_ = 0x7fffffff /* any int32 is valid: unknown values are rejected */
} tir_precision;

/** The most dimensions a tensor has (tir::kMaxRank). */
#define TIR_MAX_RANK 8

typedef struct tir_session_options tir_session_options;
typedef struct tir_session tir_session;

/** A user input or output of a method. Every pointer is owned by the session and valid until
 *  tir_session_free. `dims[i]` is -1 for a symbolic dimension (its value comes from the
 *  inputs at run time). */
typedef struct tir_io_info {
  const char* name; /**< outputs: "output_<k>" */
  tir_dtype dtype;
  int32_t rank;
  const int64_t* dims; /**< `rank` entries */
} tir_io_info;

/** An output of the last run: a contiguous row-major view of memory the session owns. Valid
 *  until the next tir_session_run on the same handle, or tir_session_free, whichever comes
 *  first; copy what must outlive that. */
typedef struct tir_tensor_view {
  const void* data;
  tir_dtype dtype;
  int32_t rank;
  const int64_t* dims; /**< `rank` entries, owned like `data` */
  size_t nbytes;
} tir_tensor_view;

/* ---------------------------------------------------------------- version and errors */

/** The library's version, e.g. "0.1.0". A static string: never freed. [any thread] */
TIR_API const char* tir_version(void);
/** TIR_API_VERSION of the library actually loaded (compare with the header's). [any thread] */
TIR_API uint32_t tir_api_version(void);
/** The message of the calling thread's most recent failed call ("" if none). Owned by tir,
 *  valid until the next failing tir call on this thread. [any thread]: each thread reads its
 *  own. */
TIR_API const char* tir_last_error(void);
/** "ok", "invalid argument", ... A static string: never freed. [any thread] */
TIR_API const char* tir_status_name(tir_status status);
/** Bytes per element of `dtype`; 0 for an unknown one. [any thread] */
TIR_API size_t tir_dtype_size(tir_dtype dtype);

/* ---------------------------------------------------------------- session options */

/** New options with the defaults: method "forward", threads 0 (library default), precision
 *  f32, fusion on, checksums verified. The caller frees it with tir_session_options_free; a
 *  session copies what it needs at open, so the options may be freed right after.
 *  [any thread] */
TIR_API tir_status tir_session_options_create(tir_session_options** out_options);
/** Frees `options` (NULL is fine). [exclusive] */
TIR_API void tir_session_options_free(tir_session_options* options);
/** The method to run ("forward", "prefill", ...); copied. An unknown name fails at open with
 *  TIR_NOT_FOUND naming it. The setters below are [per handle] on the options. */
TIR_API tir_status tir_session_options_set_method(tir_session_options* options, const char* method);
/** CPU threads kernels use (OpenMP / oneDNN); 0 keeps the default. Applied at open and
 *  process-wide, as OpenMP's thread count is (it applies to sessions already open too, so set
 *  it before threads start running). Negative: TIR_INVALID_ARGUMENT. */
TIR_API tir_status tir_session_options_set_threads(tir_session_options* options, int threads);
/** What GEMM-class kernels compute in (docs/guide/low-precision.md). */
TIR_API tir_status tir_session_options_set_precision(tir_session_options* options,
                                                     tir_precision precision);
/** Fuse GEMM/conv + activation into one kernel call (non-zero, default) or not (0). */
TIR_API tir_status tir_session_options_set_fuse(tir_session_options* options, int fuse);
/** Recompute every weight's checksum at open (non-zero, default) or trust the file (0). */
TIR_API tir_status tir_session_options_set_verify_checksums(tir_session_options* options,
                                                            int verify);
/** Seed of the random ops (rand, randn, randperm, their _like forms; Philox4x32-10): a session
 *  draws the same values for the same seed and sequence of runs, as `tirrun --seed`. Not set:
 *  a fresh seed per open. */
TIR_API tir_status tir_session_options_set_seed(tir_session_options* options, uint64_t seed);

/* ---------------------------------------------------------------- open and close */

/** Maps and verifies `model_path` (.tir) and `weights_path` (tir weight file or safetensors)
 *  and prepares the method. `options` may be NULL (defaults); it is not kept. On success
 *  *out_session is a new handle the caller frees with tir_session_free; on failure it is
 *  NULL. The files are mapped read-only and may be replaced on disk afterwards (the mapping
 *  keeps the old bytes). [any thread]: `options` is only read; several threads may open
 *  sessions at once, from the same files too. */
TIR_API tir_status tir_session_open(const char* model_path, const char* weights_path,
                                    const tir_session_options* options, tir_session** out_session);
/** Same over bytes in the caller's memory: the model (.tir) and a weight file (tir or
 *  safetensors). Not copied where aligned: the caller must keep both buffers alive and
 *  unchanged until tir_session_free (and, for the weights, until they are swapped out and
 *  no run uses them). A buffer that is not 64-byte aligned is copied once at open (the
 *  kernels need aligned weights); then the caller may free it on return. [any thread] */
TIR_API tir_status tir_session_open_from_memory(const void* model_data, size_t model_size,
                                                const void* weights_data, size_t weights_size,
                                                const tir_session_options* options,
                                                tir_session** out_session);
/** Frees the session, its outputs and bindings (NULL is fine). [exclusive]: no call may be
 *  in flight on it (no run, no swap). */
TIR_API void tir_session_free(tir_session* session);

/* ---------------------------------------------------------------- inputs and outputs */

/** The method's name (e.g. "forward"); owned by the session, valid until tir_session_free.
 *  This and the signature queries below read what open fixed: [any thread]. */
TIR_API tir_status tir_session_method(const tir_session* session, const char** out_name);
TIR_API tir_status tir_session_input_count(const tir_session* session, size_t* out_count);
TIR_API tir_status tir_session_output_count(const tir_session* session, size_t* out_count);
/** Signature of input / output `index` (its pointers valid until tir_session_free). */
TIR_API tir_status tir_session_input_info(const tir_session* session, size_t index,
                                          tir_io_info* out_info);
TIR_API tir_status tir_session_output_info(const tir_session* session, size_t index,
                                           tir_io_info* out_info);
/** Index of the input named `name`; TIR_NOT_FOUND naming it (and listing the inputs). */
TIR_API tir_status tir_session_input_index(const tir_session* session, const char* name,
                                           size_t* out_index);

/** Binds input `index` to the caller's contiguous row-major buffer, zero copy: the runtime
 *  reads `data` directly when tir_session_run is called (not at bind), so the caller keeps it
 *  alive and may change its contents between runs; the runtime never writes to it. The
 *  binding lasts until it is replaced or the session is freed. Checked now: index, dtype,
 *  rank, every static dimension, and `nbytes` >= the bytes the shape needs; symbolic
 *  dimensions and symbol ranges are checked at run. `dims` is copied. [per handle] */
TIR_API tir_status tir_session_bind_input(tir_session* session, size_t index, tir_dtype dtype,
                                          const int64_t* dims, int32_t rank, const void* data,
                                          size_t nbytes);
/** Same, by input name. [per handle] */
TIR_API tir_status tir_session_bind_input_by_name(tir_session* session, const char* name,
                                                  tir_dtype dtype, const int64_t* dims,
                                                  int32_t rank, const void* data, size_t nbytes);

/** Runs the method on the bound inputs (every input must be bound: TIR_INVALID_ARGUMENT
 *  naming the first that is not). Invalidates the views of the previous run. [per handle]:
 *  for concurrent runs of one model open a handle per thread. */
TIR_API tir_status tir_session_run(tir_session* session);
/** Output `index` of the last successful run (TIR_INVALID_ARGUMENT before any). The view is
 *  valid until the next tir_session_run on this handle or tir_session_free. [per handle] */
TIR_API tir_status tir_session_output(const tir_session* session, size_t index,
                                      tir_tensor_view* out_view);
/** Sets `*out_written` to 1 when the program writes input `index` (torch's
 *  user_input_mutation, e.g. `x.add_(1)` on an input), else 0. */
TIR_API tir_status tir_session_input_written(const tir_session* session, size_t index,
                                             int* out_written);
/** The value the last successful run wrote to input `index` (TIR_INVALID_ARGUMENT if the
 *  program does not write it). The caller's bound buffer is never written: the run reads a
 *  copy the handle owns, and the view shows that copy, valid as an output's view is; copy it
 *  back to the buffer to get torch's in-place behaviour. [per handle] */
TIR_API tir_status tir_session_written_input(const tir_session* session, size_t index,
                                             tir_tensor_view* out_view);

/* ---------------------------------------------------------------- custom ops */

/* Kernels for custom ops: ops of a namespace of their own, such as a torch.library op
 * "mylib::scaled_add" that the program calls (imported with `tirc import --custom-op NAME`).
 * Register each on the options before opening a session; a session whose method calls a
 * custom op with no registered kernel fails at open naming node and op.
 *
 *   static tir_status scaled_add_prepare(tir_custom_call* call, void* user_data) {
 *     tir_tensor_view x;
 *     tir_custom_call_input(call, 0, &x);           // dtype and dims; data may be NULL here
 *     return tir_custom_call_set_output(call, 0, x.dtype, x.dims, x.rank);
 *   }
 *   static tir_status scaled_add_run(tir_custom_call* call, void* user_data) {
 *     tir_tensor_view x, y;
 *     double alpha = 1.0;                            // the schema's default
 *     tir_custom_call_input(call, 0, &x);
 *     tir_custom_call_input(call, 1, &y);
 *     tir_custom_call_arg_float(call, "alpha", &alpha);   // TIR_NOT_FOUND: left at default
 *     float* out = (float*)tir_custom_call_output_data(call, 0);
 *     ...
 *     return TIR_OK;
 *   }
 *   tir_dtype dtypes[] = {TIR_DTYPE_FLOAT32};
 *   tir_custom_op op = {"mylib::scaled_add", dtypes, 1, scaled_add_prepare, scaled_add_run, NULL};
 *   tir_session_options_add_custom_op(options, &op);
 *
 * Arguments. A custom op's node holds the arguments the program gave, with the names of the
 * op's schema; torch.export leaves out those at their default, so read them by name and fall
 * back to the default. Tensor arguments are the inputs, in the order the program gives them.
 * Inputs are contiguous; outputs are contiguous, and memory tir owns.
 *
 * Threads: prepare runs when a session opens or meets a new input shape, run on each
 * tir_session_run; sessions on different threads call them concurrently (with different
 * calls), so callbacks must be safe for that. */

typedef struct tir_custom_call tir_custom_call;

/** A custom op's kernel. prepare: check the inputs and set every output's dtype and dims
 *  (tir_custom_call_set_output), once per input shape. run: compute the outputs. Both return
 *  TIR_OK, or a status with a message set by tir_custom_call_set_error. */
typedef struct tir_custom_op {
  const char* name;        /**< "mylib::scaled_add" ("ns::op.overload" for another overload) */
  const tir_dtype* dtypes; /**< dtypes of the first tensor input it takes; NULL/0: any */
  size_t num_dtypes;
  tir_status (*prepare)(tir_custom_call* call, void* user_data);
  tir_status (*run)(tir_custom_call* call, void* user_data);
  void* user_data; /**< passed to both; must outlive every session opened with the options */
} tir_custom_op;

/** Registers `op` for sessions opened with `options` (copied; the strings and dtypes may be
 *  freed afterwards). TIR_INVALID_ARGUMENT for a name that is not a custom op (aten::relu),
 *  a missing callback, or an op and dtype registered twice. [per handle] on the options. */
TIR_API tir_status tir_session_options_add_custom_op(tir_session_options* options,
                                                     const tir_custom_op* op);

/** The node's name and op ("mylib::scaled_add"), valid during the callback. [per handle] */
TIR_API const char* tir_custom_call_node(const tir_custom_call* call);
TIR_API const char* tir_custom_call_op(const tir_custom_call* call);
/** Number of tensor inputs and of outputs (the op's returns). */
TIR_API size_t tir_custom_call_input_count(const tir_custom_call* call);
TIR_API size_t tir_custom_call_output_count(const tir_custom_call* call);
/** Input `index`: dtype, dims and (in run; in prepare only for weights) its data, valid
 *  during the callback. */
TIR_API tir_status tir_custom_call_input(const tir_custom_call* call, size_t index,
                                         tir_tensor_view* out_view);
/** In prepare: output `index`'s dtype and dims (rank <= TIR_MAX_RANK). */
TIR_API tir_status tir_custom_call_set_output(tir_custom_call* call, size_t index, tir_dtype dtype,
                                              const int64_t* dims, int32_t rank);
/** In run: output `index` as prepare shaped it; `data` is where run writes it. */
TIR_API tir_status tir_custom_call_output(const tir_custom_call* call, size_t index,
                                          tir_tensor_view* out_view);
/** In run: output `index`'s writable buffer (NULL out of range or in prepare). */
TIR_API void* tir_custom_call_output_data(const tir_custom_call* call, size_t index);
/** The argument named `name`: an int (also a bool, 0/1) or a float (an int is widened).
 *  TIR_NOT_FOUND when the node does not give it (the op's default applies),
 *  TIR_INVALID_ARGUMENT when it is of another kind. */
TIR_API tir_status tir_custom_call_arg_int(const tir_custom_call* call, const char* name,
                                           int64_t* out_value);
TIR_API tir_status tir_custom_call_arg_float(const tir_custom_call* call, const char* name,
                                             double* out_value);
/** Sets the message of the status the callback returns; tir reports it as
 *  "node '<node>' (<op>): <message>". */
TIR_API void tir_custom_call_set_error(tir_custom_call* call, const char* message);

/* ---------------------------------------------------------------- weights */

/** Opens `weights_path` (tir weight file or safetensors) and installs it for later runs;
 *  checked against the model first (a missing or extra tensor, a dtype or shape mismatch
 *  fails naming the tensor) and the current weights stay on failure. [any thread]: also
 *  while another thread runs this handle (that run finishes on the old weights). */
TIR_API tir_status tir_session_swap_weights(tir_session* session, const char* weights_path);
/** Installs `paths[0]` with `paths[1..count)` laid over it in order (later wins), each
 *  delta's tensors checked against the base by name, dtype and shape (`tirrun --weights A
 *  --weights B`). count >= 1. [any thread], as tir_session_swap_weights. */
TIR_API tir_status tir_session_swap_weights_overlay(tir_session* session, const char* const* paths,
                                                    size_t count);

/* ---------------------------------------------------------------- LoRA adapters */

/** Reads the PEFT LoRA adapter at `path` (the folder save_pretrained wrote, with
 *  adapter_config.json and adapter_model.safetensors, or that .safetensors file), maps it onto
 *  the model's weights by module name and makes it runnable as `name` (a loaded name is
 *  replaced). Unsupported or malformed adapters fail naming the file and the field or tensor.
 *  The base weights are not changed. [any thread]: also while another thread runs this handle. */
TIR_API tir_status tir_session_load_adapter(tir_session* session, const char* name,
                                            const char* path);
/** Forgets adapter `name` (TIR_NOT_FOUND if none); a run in flight with it finishes with it.
 *  [any thread] */
TIR_API tir_status tir_session_unload_adapter(tir_session* session, const char* name);
/** As tir_session_run, with the low-rank updates (and modules_to_save) of adapter `adapter`
 *  applied; NULL or "" runs the base model. Choosing an adapter per run costs a lookup.
 *  [per handle] */
TIR_API tir_status tir_session_run_adapter(tir_session* session, const char* adapter);

/* ---------------------------------------------------------------- generate (LLMs) */

/* A generate loop over a decoder LLM exported as transformers exports it for native runtimes
 * (tools/export_llm.py, then `tirc import prefill=... decode=...`): the prompt's token ids run
 * through the prefill method, each new token through the decode method; both share one copy
 * of the weights and the KV cache. Token ids in and out: text goes through your tokenizer (or
 * `tirrun generate --tokenizer`, or the Python module's tokenizer argument).
 *
 *   tir_generator* g = NULL;
 *   tir_generator_open("llm.tir", "llm.bin", NULL, &g);
 *   tir_generate_options* o = NULL;
 *   tir_generate_options_create(&o);
 *   tir_generate_options_set_max_new_tokens(o, 64);
 *   const int32_t* tokens; size_t n;
 *   tir_generator_generate(g, prompt, prompt_len, o, on_token, user, &tokens, &n);
 */
typedef struct tir_generator tir_generator;
typedef struct tir_generate_options tir_generate_options;

/** Called with each new token as soon as it is picked; return 0 to stop after it. */
typedef int (*tir_token_callback)(int32_t token, void* user_data);

/** What the last tir_generator_generate did. `stop` is a static string: "max_new_tokens",
 *  "eos", "context_full" or "stopped" (the callback returned 0). */
typedef struct tir_generate_stats {
  size_t prompt_tokens;
  size_t new_tokens;
  double time_to_first_token_ms;
  double prefill_tokens_per_s;
  double decode_tokens_per_s;
  const char* stop;
} tir_generate_stats;

/** Opens the model's prefill and decode methods ("prefill"/"decode", else its one method) with
 *  `options` (NULL: defaults; the method set there is ignored). [exclusive] */
TIR_API tir_status tir_generator_open(const char* model_path, const char* weights_path,
                                      const tir_session_options* options,
                                      tir_generator** out_generator);
/** [exclusive]; NULL is a no-op. */
TIR_API void tir_generator_free(tir_generator* generator);
/** Positions the model's cache holds (0: unbounded). [per handle] */
TIR_API tir_status tir_generator_max_context(const tir_generator* generator,
                                             int64_t* out_positions);

/** Defaults: 128 new tokens, greedy, no EOS, a new conversation per call. [exclusive] */
TIR_API tir_status tir_generate_options_create(tir_generate_options** out_options);
TIR_API void tir_generate_options_free(tir_generate_options* options);
TIR_API tir_status tir_generate_options_set_max_new_tokens(tir_generate_options* options,
                                                           size_t max_new_tokens);
/** temperature 0: greedy; top_k 0 and top_p 1: no filter; repetition_penalty 1: off. Checked
 *  here: a value out of range is TIR_INVALID_ARGUMENT naming it. */
TIR_API tir_status tir_generate_options_set_sampling(tir_generate_options* options,
                                                     float temperature, int32_t top_k, float top_p,
                                                     float repetition_penalty, uint64_t seed);
/** Stop after any of these `count` ids (copied). */
TIR_API tir_status tir_generate_options_set_eos(tir_generate_options* options, const int32_t* ids,
                                                size_t count);
/** 1 (default): a new conversation. 0: the prompt continues the previous call's sequence. */
TIR_API tir_status tir_generate_options_set_reset(tir_generate_options* options, int reset);

/** Generates after `prompt` (`prompt_len` >= 1 ids; options NULL: defaults), calling `callback`
 *  (may be NULL) with each new token. `*out_tokens` (may be NULL) receives the new tokens,
 *  valid until the next generate on this handle or tir_generator_free. [per handle]: a call
 *  while another runs on the handle (another thread, or `callback` calling back in) fails with
 *  TIR_INVALID_ARGUMENT. */
TIR_API tir_status tir_generator_generate(tir_generator* generator, const int32_t* prompt,
                                          size_t prompt_len, const tir_generate_options* options,
                                          tir_token_callback callback, void* user_data,
                                          const int32_t** out_tokens, size_t* out_count);
/** The statistics of the last successful generate. [per handle] */
TIR_API tir_status tir_generator_stats(const tir_generator* generator,
                                       tir_generate_stats* out_stats);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // TIR_TIR_H_
