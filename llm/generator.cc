#include "llm/generator.h"

#include <algorithm>
#include <chrono>

#include "core/float16.h"
#include "ir/model.h"
#include "runtime/weights/data_loader.h"

namespace tir::llm {

/// Where a method takes the ids and the positions, and how long one run may be.
struct MethodInputs {
  int ids = -1, positions = -1;  // input indices; positions -1: no cache (whole sequence)
  DType dtype = DType::kInt64;   // of both
  int64_t max_seq = -1;          // the ids' sequence dim at most; -1 unbounded
  bool fixed_seq = false;        // the sequence dim is static (exactly max_seq)
};

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// The method to use: `wanted`, else the first of `defaults` the model has, else its only
/// method.
Result<std::string> pick_method(const ir::ModelView& view, const std::string& wanted,
                                std::initializer_list<std::string_view> defaults,
                                std::string_view file) {
  if (!wanted.empty()) {
    if (!view.method(wanted))
      return make_error(StatusCode::kNotFound, "'", file, "' has no method '", wanted,
                        "' (it has: ", view.method_names(), ")");
    return wanted;
  }
  for (std::string_view name : defaults)
    if (view.method(name)) return std::string(name);
  const auto* methods = view.model().methods();
  if (methods && methods->size() == 1) return std::string(ir::str(methods->Get(0)->name()));
  return make_error(StatusCode::kInvalidArgument, "'", file,
                    "': which method prefills? it has several (", view.method_names(),
                    "); name one (prefill_method, --prefill-method)");
}

/// The index of the input named `name`, else `fallback` if the method has enough inputs.
int find_input(const Session& s, std::string_view name, int fallback) {
  const int k = s.input_index(name);
  if (k >= 0) return k;
  return fallback < int(s.inputs().size()) ? fallback : -1;
}

Result<MethodInputs> describe(const Session& s) {
  const std::string where = "method '" + s.method_name() + "'";
  MethodInputs m;
  m.ids = find_input(s, "input_ids", 0);
  m.positions = s.inputs().size() >= 2 ? find_input(s, "cache_position", m.ids == 0 ? 1 : 0) : -1;
  if (m.ids < 0 || s.inputs().size() > 2)
    return make_error(StatusCode::kUnsupported, where,
                      ": a generate loop needs inputs (input_ids [1, seq], cache_position [seq]) "
                      "or (input_ids); it has ",
                      s.inputs().size(), " inputs");
  const IoSpec& ids = s.inputs()[size_t(m.ids)];
  if (!(ids.dtype == DType::kInt64 || ids.dtype == DType::kInt32) || ids.shape.size() != 2 ||
      ids.shape[0] != 1)
    return make_error(StatusCode::kUnsupported, where, ": input '", ids.name,
                      "' must be int64 or int32 token ids of shape [1, seq]; it is ",
                      dtype_name(ids.dtype), " [", ids.dims.size(), " dims]");
  m.dtype = ids.dtype;
  m.fixed_seq = ids.shape[1] >= 0;
  m.max_seq = ids.max_shape[1];
  if (m.positions >= 0) {
    const IoSpec& pos = s.inputs()[size_t(m.positions)];
    if (pos.dtype != ids.dtype || pos.shape.size() != 1)
      return make_error(StatusCode::kUnsupported, where, ": input '", pos.name,
                        "' must be the positions, ", dtype_name(ids.dtype), " [seq]");
  }
  if (s.outputs().empty() || s.outputs()[0].shape.empty())
    return make_error(StatusCode::kUnsupported, where, ": its first output must be the logits");
  const DType out = s.outputs()[0].dtype;
  if (out != DType::kFloat32 && out != DType::kFloat16 && out != DType::kBFloat16)
    return make_error(StatusCode::kUnsupported, where, ": logits of dtype ", dtype_name(out),
                      " (float32, float16 or bfloat16 expected)");
  return m;
}

}  // namespace

const char* stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::kMaxNewTokens:
      return "max_new_tokens";
    case StopReason::kEos:
      return "eos";
    case StopReason::kContextFull:
      return "context_full";
    case StopReason::kCallback:
      return "stopped";
  }
  return "?";
}

double GenerateStats::prefill_tokens_per_s() const {
  return prefill_s > 0 ? double(prompt_tokens) / prefill_s : 0;
}

double GenerateStats::decode_tokens_per_s() const {
  return decode_s > 0 && new_tokens > 1 ? double(new_tokens - 1) / decode_s : 0;
}

namespace {

/// Rank of `method`'s first output as declared (the logits, [1, seq, vocab]); 0 if none.
size_t logits_rank(const ir::ModelView& view, const std::string& method) {
  const ir::fb::Method* m = view.method(method);
  if (!m || !m->outputs() || m->outputs()->size() == 0 || !m->values()) return 0;
  const ir::fb::Value* v = m->values()->Get(size_t(m->outputs()->Get(0)));
  return v && v->sizes() ? v->sizes()->size() : 0;
}

}  // namespace

Generator::~Generator() = default;

Result<std::unique_ptr<Generator>> Generator::open(const std::string& model_path,
                                                   const std::string& weights_path,
                                                   const GeneratorOptions& options) {
  TIR_ASSIGN_OR_RETURN(auto model, data_source_mmap(model_path));
  TIR_ASSIGN_OR_RETURN(auto weights,
                       WeightSet::open(weights_path, weight_open_options(options.session)));
  return create(std::move(model), std::move(weights), options);
}

Result<std::unique_ptr<Generator>> Generator::create(std::shared_ptr<const DataSource> model,
                                                     std::shared_ptr<const WeightSet> weights,
                                                     const GeneratorOptions& options) {
  TIR_ASSIGN_OR_RETURN(ir::ModelView view, ir::ModelView::open(model->bytes(), model->name()));
  TIR_ASSIGN_OR_RETURN(std::string prefill, pick_method(view, options.prefill_method,
                                                        {"prefill", "forward"}, model->name()));
  TIR_ASSIGN_OR_RETURN(std::string decode,
                       options.decode_method.empty() && !view.method("decode")
                           ? Result<std::string>(prefill)
                           : pick_method(view, options.decode_method, {"decode"}, model->name()));
  std::unique_ptr<Generator> g(new Generator());
  SessionOptions so = options.session;
  so.method = prefill;
  if (!options.all_logits && logits_rank(view, prefill) >= 2) so.last_position = {{0, -2}};
  TIR_ASSIGN_OR_RETURN(g->prefill_, Session::create(model, weights, so));
  TIR_ASSIGN_OR_RETURN(MethodInputs p, describe(*g->prefill_));
  g->prefill_io_ = std::make_unique<MethodInputs>(p);
  if (decode != prefill) {
    so.method = decode;
    so.state = g->prefill_->state();  // one cache for both methods
    if (!so.weight_pool) so.weight_pool = g->prefill_->weight_pool();
    TIR_ASSIGN_OR_RETURN(g->decode_, Session::create(model, weights, so));
    TIR_ASSIGN_OR_RETURN(MethodInputs d, describe(*g->decode_));
    if ((d.positions < 0) != (p.positions < 0) || (d.fixed_seq && d.max_seq != 1))
      return make_error(StatusCode::kUnsupported, "method '", decode, "' cannot decode after '",
                        prefill, "': it must take one token at a time, with positions if '",
                        prefill, "' takes them");
    g->decode_io_ = std::make_unique<MethodInputs>(d);
  }
  g->vocab_ = g->prefill_->outputs()[0].shape.back();
  // What the program holds: its sequence range + 1 with a cache (transformers exports the
  // sequence dim with max = cache length - 1), the range itself without (one run holds all).
  const int64_t exported =
      p.max_seq > 0 && !p.fixed_seq ? (p.positions >= 0 ? p.max_seq + 1 : p.max_seq) : 0;
  if (options.max_context < 0)
    return make_error(StatusCode::kInvalidArgument, "max_context ", options.max_context,
                      " is negative");
  if (exported > 0 && options.max_context > exported)
    return make_error(StatusCode::kInvalidArgument, "max_context ", options.max_context,
                      " is outside what '", model->name(), "' holds: 1 to ", exported,
                      " positions (method '", prefill, "' takes sequences of at most ", p.max_seq,
                      ")");
  g->max_context_ = options.max_context > 0 ? options.max_context : exported;
  return g;
}

Result<std::span<const float>> Generator::step(Session& session, const MethodInputs& m,
                                               size_t begin, size_t end) {
  if (m.positions < 0) begin = 0;  // no cache: the whole sequence every time
  const int64_t n = int64_t(end - begin);
  std::vector<Tensor> inputs(m.positions < 0 ? 1 : 2);
  const std::vector<int64_t> ids_shape = {1, n}, pos_shape = {n};
  ids_.assign(sequence_.begin() + ptrdiff_t(begin), sequence_.begin() + ptrdiff_t(end));
  positions_.resize(size_t(n));
  for (int64_t k = 0; k < n; ++k) positions_[size_t(k)] = int64_t(begin) + k;
  if (m.dtype == DType::kInt32) {
    ids32_.assign(ids_.begin(), ids_.end());
    positions32_.assign(positions_.begin(), positions_.end());
    inputs[size_t(m.ids)] = make_tensor(DType::kInt32, ids_shape, ids32_.data());
    if (m.positions >= 0)
      inputs[size_t(m.positions)] = make_tensor(DType::kInt32, pos_shape, positions32_.data());
  } else {
    inputs[size_t(m.ids)] = make_tensor(DType::kInt64, ids_shape, ids_.data());
    if (m.positions >= 0)
      inputs[size_t(m.positions)] = make_tensor(DType::kInt64, pos_shape, positions_.data());
  }
  TIR_ASSIGN_OR_RETURN(std::span<const Tensor> out, session.run(inputs));
  const Tensor& logits = out[0];
  if (logits.shape().empty() || logits.shape().back() != vocab_ || logits.numel() < vocab_)
    return make_error(StatusCode::kInvalidArgument, "method '", session.method_name(),
                      "': logits of ", logits.numel(),
                      " elements, not a multiple of the vocabulary (", vocab_, ")");
  const size_t last = size_t(logits.numel() - vocab_);
  if (logits.dtype == DType::kFloat32)
    return std::span<const float>(static_cast<const float*>(logits.data) + last, size_t(vocab_));
  const uint16_t* half = static_cast<const uint16_t*>(logits.data) + last;
  logits_.resize(size_t(vocab_));
  for (size_t k = 0; k < logits_.size(); ++k)
    logits_[k] = logits.dtype == DType::kBFloat16 ? bf16_to_float(half[k]) : fp16_to_float(half[k]);
  return std::span<const float>(logits_);
}

Result<std::span<const float>> Generator::prefill() {
  const MethodInputs& m = *prefill_io_;
  size_t begin = size_t(cached_);
  std::span<const float> logits;
  while (begin < sequence_.size()) {
    size_t n = sequence_.size() - begin;
    if (m.max_seq > 0) n = std::min(n, size_t(m.max_seq));
    if (m.fixed_seq && int64_t(n) != m.max_seq)
      return make_error(StatusCode::kInvalidArgument, "method '", prefill_->method_name(),
                        "' takes exactly ", m.max_seq, " tokens; the prompt leaves ", n,
                        " (export it with a dynamic sequence length)");
    TIR_ASSIGN_OR_RETURN(logits, step(*prefill_, m, begin, begin + n));
    begin += n;
    if (m.positions < 0) break;  // the whole sequence ran at once
  }
  cached_ = int64_t(sequence_.size());
  return logits;
}

Status Generator::check_prompt(std::span<const TokenId> prompt, const GenerateOptions& o) const {
  TIR_RETURN_IF_ERROR(validate(o.sampling));
  if (prompt.empty()) return make_error(StatusCode::kInvalidArgument, "the prompt is empty");
  for (size_t k = 0; k < prompt.size(); ++k)
    if (prompt[k] < 0 || prompt[k] >= vocab_)
      return make_error(StatusCode::kInvalidArgument, "prompt token ", k, " is id ", prompt[k],
                        ", outside the model's vocabulary of ", vocab_);
  for (TokenId e : o.eos_ids)
    if (e < 0 || e >= vocab_)
      return make_error(StatusCode::kInvalidArgument, "eos id ", e,
                        " is outside the model's vocabulary of ", vocab_);
  const size_t held = o.reset ? 0 : sequence_.size();
  if (max_context_ > 0 && int64_t(held + prompt.size()) > max_context_)
    return make_error(StatusCode::kInvalidArgument, "the prompt's ", prompt.size(), " tokens",
                      held ? " after the " + std::to_string(held) + " of earlier turns" : "",
                      " do not fit the model's context of ", max_context_, " positions");
  return Status::ok_status();
}

Result<GenerateResult> Generator::generate(std::span<const TokenId> prompt,
                                           const GenerateOptions& o,
                                           const TokenCallback& on_token) {
  TIR_ASSIGN_OR_RETURN(SerialCalls::Turn turn, calls_.enter("generate"));
  TIR_RETURN_IF_ERROR(check_prompt(prompt, o));
  if (o.reset || broken_) {
    if (state_used_ && prefill_io_->positions >= 0) TIR_RETURN_IF_ERROR(prefill_->reset_state());
    sequence_.clear();
    cached_ = 0;
    broken_ = false;
  }
  state_used_ = true;
  broken_ = true;  // until this call returns normally
  sequence_.insert(sequence_.end(), prompt.begin(), prompt.end());
  GenerateResult result;
  GenerateStats& stats = result.stats;
  stats.prompt_tokens = size_t(int64_t(sequence_.size()) - cached_);
  Sampler sampler(o.sampling);
  const auto t0 = Clock::now();
  auto logits = prefill();
  if (!logits.ok()) return logits.status();
  stats.prefill_s = seconds_since(t0);
  Session& decoder = decode_session();
  const MethodInputs& dm = decode_ ? *decode_io_ : *prefill_io_;
  auto t_decode = Clock::now();
  while (o.max_new_tokens > 0) {
    const TokenId token = sampler.next(*logits, sequence_);
    result.tokens.push_back(token);
    sequence_.push_back(token);
    const bool go_on = !on_token || on_token(token);
    if (result.tokens.size() == 1) {
      stats.time_to_first_token_s = seconds_since(t0);
      t_decode = Clock::now();
    }
    if (std::find(o.eos_ids.begin(), o.eos_ids.end(), token) != o.eos_ids.end()) {
      stats.stop = StopReason::kEos;
    } else if (!go_on) {
      stats.stop = StopReason::kCallback;
    } else if (result.tokens.size() >= o.max_new_tokens) {
      stats.stop = StopReason::kMaxNewTokens;
    } else if (max_context_ > 0 && int64_t(sequence_.size()) >= max_context_) {
      stats.stop = StopReason::kContextFull;
    } else {
      logits = step(decoder, dm, sequence_.size() - 1, sequence_.size());
      if (!logits.ok()) return logits.status();
      cached_ = int64_t(sequence_.size());
      continue;
    }
    break;
  }
  broken_ = false;
  stats.new_tokens = result.tokens.size();
  if (stats.new_tokens > 1) stats.decode_s = seconds_since(t_decode);
  return result;
}

}  // namespace tir::llm
