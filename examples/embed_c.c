/* A C program embedding tir through its C ABI: open a model and its weights, bind one .npy
 * file per method input (float32, C order), run, print each output as `tirrun` does.
 *
 *   tir_embed_c model.tir model.bin input_0.npy [input_1.npy ...]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tir/tir.h>

/* The data of a little-endian float32 .npy file (format 1.0-3.0): the caller frees *out_buf
 * and reads `*out_data`. The shape is the model's; the byte count is checked at bind. */
static int read_npy(const char* path, void** out_buf, const void** out_data, size_t* out_size) {
  FILE* f = fopen(path, "rb");
  if (!f) return fprintf(stderr, "error: cannot open '%s'\n", path), 1;
  fseek(f, 0, SEEK_END);
  const long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* buf = malloc(size > 0 ? (size_t)size : 1);
  const size_t got = buf ? fread(buf, 1, (size_t)size, f) : 0;
  fclose(f);
  if (size < 12 || got != (size_t)size || memcmp(buf, "\x93NUMPY", 6) != 0) {
    free(buf);
    return fprintf(stderr, "error: '%s' is not a .npy file\n", path), 1;
  }
  size_t header =
      buf[6] == 1 ? 10u + (buf[8] | buf[9] << 8)
                  : 12u + (buf[8] | buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24);
  int is_f4 = 0;
  for (size_t i = 10; header <= (size_t)size && i + 5 <= header; ++i)
    is_f4 |= memcmp(buf + i, "'<f4'", 5) == 0;
  if (header > (size_t)size || !is_f4) {
    free(buf);
    return fprintf(stderr, "error: '%s': expected a float32 .npy file\n", path), 1;
  }
  *out_buf = buf;
  *out_data = buf + header;
  *out_size = (size_t)size - header;
  return 0;
}

static const char* dtype_name(tir_dtype d) {
  switch (d) {
    case TIR_DTYPE_FLOAT32:
      return "float32";
    case TIR_DTYPE_INT64:
      return "int64";
    case TIR_DTYPE_INT32:
      return "int32";
    case TIR_DTYPE_BOOL:
      return "bool";
    default:
      return "other";
  }
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s model.tir model.bin [input.npy ...]\n", argv[0]);
    return 2;
  }
  tir_session* s = NULL;
  if (tir_session_open(argv[1], argv[2], NULL, &s) != TIR_OK) {
    fprintf(stderr, "error: %s\n", tir_last_error());
    return 1;
  }
  size_t num_inputs = 0, num_outputs = 0;
  tir_session_input_count(s, &num_inputs);
  tir_session_output_count(s, &num_outputs);
  void* bufs[16] = {0};
  int rc = 0;
  if (num_inputs != (size_t)(argc - 3) || num_inputs > 16) {
    fprintf(stderr, "error: the method takes %zu inputs, %d given\n", num_inputs, argc - 3);
    rc = 1;
  }
  for (size_t i = 0; rc == 0 && i < num_inputs; ++i) {
    tir_io_info info;
    const void* data = NULL;
    size_t size = 0;
    tir_session_input_info(s, i, &info);
    if (read_npy(argv[3 + i], &bufs[i], &data, &size) != 0) rc = 1;
    /* The shape is the model's (static dims); the runtime reads `data` at run, zero copy. */
    else if (tir_session_bind_input(s, i, TIR_DTYPE_FLOAT32, info.dims, info.rank, data, size) !=
             TIR_OK)
      rc = 1, fprintf(stderr, "error: %s\n", tir_last_error());
  }
  if (rc == 0 && tir_session_run(s) != TIR_OK)
    rc = 1, fprintf(stderr, "error: %s\n", tir_last_error());
  for (size_t k = 0; rc == 0 && k < num_outputs; ++k) {
    tir_tensor_view out;
    if (tir_session_output(s, k, &out) != TIR_OK) {
      rc = 1, fprintf(stderr, "error: %s\n", tir_last_error());
      break;
    }
    int64_t numel = 1;
    printf("output %zu  %s[", k, dtype_name(out.dtype));
    for (int32_t d = 0; d < out.rank; ++d) {
      printf("%s%lld", d ? ", " : "", (long long)out.dims[d]);
      numel *= out.dims[d];
    }
    printf("]  [");
    for (int64_t i = 0; i < numel && i < 5 && out.dtype == TIR_DTYPE_FLOAT32; ++i)
      printf("%s%g", i ? ", " : "", (double)((const float*)out.data)[i]);
    printf("%s]\n", numel > 5 ? ", ..." : "");
  }
  for (size_t i = 0; i < 16; ++i) free(bufs[i]);
  tir_session_free(s);
  return rc;
}
