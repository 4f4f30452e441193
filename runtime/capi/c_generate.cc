// The C ABI of the generate loop (include/tir/tir.h, "generate") over llm/generator.h.
#include <atomic>
#include <memory>
#include <vector>

#include "include/tir/tir.h"
#include "llm/generator.h"
#include "runtime/capi/c_api_util.h"

using tir::StatusCode;
using tir::capi::fail;
using tir::capi::guarded;

struct tir_generator {
  std::unique_ptr<tir::llm::Generator> generator;
  /// A generate call is running: a second one (another thread, or the callback) is refused,
  /// since `tokens` below, which the first call hands out, belongs to the handle.
  std::atomic<bool> in_call{false};
  int threads = 0;
  std::vector<int32_t> tokens;  // of the last generate
  tir::llm::GenerateStats stats;
  bool has_run = false;
};

struct tir_generate_options {
  tir::llm::GenerateOptions options;
};

tir_status tir_generator_open(const char* model_path, const char* weights_path,
                              const tir_session_options* options, tir_generator** out_generator) {
  return guarded(__func__, [&] {
    TIR_C_CHECK_ARG(model_path, __func__);
    TIR_C_CHECK_ARG(weights_path, __func__);
    TIR_C_CHECK_ARG(out_generator, __func__);
    *out_generator = nullptr;
    tir::llm::GeneratorOptions go;
    go.session = tir::capi::options_of(options);
    go.session.method.clear();
    if (options) tir::set_num_threads(options->threads);
    auto g = tir::llm::Generator::open(model_path, weights_path, go);
    if (!g.ok()) return fail(g.status());
    auto handle = std::make_unique<tir_generator>();
    handle->generator = std::move(*g);
    *out_generator = handle.release();
    return TIR_OK;
  });
}

void tir_generator_free(tir_generator* generator) { delete generator; }

tir_status tir_generator_max_context(const tir_generator* generator, int64_t* out_positions) {
  TIR_C_CHECK_ARG(generator, __func__);
  TIR_C_CHECK_ARG(out_positions, __func__);
  *out_positions = generator->generator->max_context();
  return TIR_OK;
}

tir_status tir_generate_options_create(tir_generate_options** out_options) {
  return guarded(__func__, [&] {
    TIR_C_CHECK_ARG(out_options, __func__);
    *out_options = new tir_generate_options();
    return TIR_OK;
  });
}

void tir_generate_options_free(tir_generate_options* options) { delete options; }

tir_status tir_generate_options_set_max_new_tokens(tir_generate_options* options,
                                                   size_t max_new_tokens) {
  TIR_C_CHECK_ARG(options, __func__);
  options->options.max_new_tokens = max_new_tokens;
  return TIR_OK;
}

tir_status tir_generate_options_set_sampling(tir_generate_options* options, float temperature,
                                             int32_t top_k, float top_p, float repetition_penalty,
                                             uint64_t seed) {
  TIR_C_CHECK_ARG(options, __func__);
  const tir::llm::SamplingOptions s{temperature, top_k, top_p, repetition_penalty, seed};
  const tir::Status st = tir::llm::validate(s);
  if (!st.ok()) return fail(st);
  options->options.sampling = s;
  return TIR_OK;
}

tir_status tir_generate_options_set_eos(tir_generate_options* options, const int32_t* ids,
                                        size_t count) {
  return guarded(__func__, [&] {
    TIR_C_CHECK_ARG(options, __func__);
    if (count > 0) TIR_C_CHECK_ARG(ids, __func__);
    options->options.eos_ids.assign(ids, ids + count);
    return TIR_OK;
  });
}

tir_status tir_generate_options_set_reset(tir_generate_options* options, int reset) {
  TIR_C_CHECK_ARG(options, __func__);
  options->options.reset = reset != 0;
  return TIR_OK;
}

tir_status tir_generator_generate(tir_generator* generator, const int32_t* prompt,
                                  size_t prompt_len, const tir_generate_options* options,
                                  tir_token_callback callback, void* user_data,
                                  const int32_t** out_tokens, size_t* out_count) {
  return guarded(__func__, [&] {
    TIR_C_CHECK_ARG(generator, __func__);
    if (prompt_len > 0) TIR_C_CHECK_ARG(prompt, __func__);
    if (generator->in_call.exchange(true))
      return fail(StatusCode::kInvalidArgument,
                  "tir_generator_generate: another generate is running on this handle (from "
                  "another thread or from its callback); calls on one handle must not overlap");
    struct EndCall {
      std::atomic<bool>& flag;
      ~EndCall() { flag.store(false); }
    } end_call{generator->in_call};
    static const tir::llm::GenerateOptions kDefaults;
    tir::llm::TokenCallback on_token;
    if (callback) on_token = [&](int32_t t) { return callback(t, user_data) != 0; };
    auto r = generator->generator->generate(std::span<const int32_t>(prompt, prompt_len),
                                            options ? options->options : kDefaults, on_token);
    if (!r.ok()) return fail(r.status());
    generator->tokens = std::move(r->tokens);
    generator->stats = r->stats;
    generator->has_run = true;
    if (out_tokens) *out_tokens = generator->tokens.data();
    if (out_count) *out_count = generator->tokens.size();
    return TIR_OK;
  });
}

tir_status tir_generator_stats(const tir_generator* generator, tir_generate_stats* out_stats) {
  TIR_C_CHECK_ARG(generator, __func__);
  TIR_C_CHECK_ARG(out_stats, __func__);
  if (!generator->has_run)
    return fail(StatusCode::kInvalidArgument, "tir_generator_stats: nothing generated yet");
  const tir::llm::GenerateStats& s = generator->stats;
  *out_stats = {s.prompt_tokens,
                s.new_tokens,
                s.time_to_first_token_s * 1e3,
                s.prefill_tokens_per_s(),
                s.decode_tokens_per_s(),
                tir::llm::stop_reason_name(s.stop)};
  return TIR_OK;
}
