// tir.Generator: the generate loop of llm/ from Python.
//
//   g = tir.Generator("llm.tir", "llm.bin", tokenizer="tokenizer.json")
//   out = g.generate("Once upon a time", max_new_tokens=64, temperature=0.8, top_p=0.95,
//                    seed=1, callback=lambda piece: print(piece, end="", flush=True))
//   out["text"], out["tokens"], out["stats"]["decode_tokens_per_s"]
//
// generate runs without the GIL; the callback takes it for each call. A callback that raises
// stops generation and the exception propagates; one that returns False stops it quietly.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/precision.h"
#include "llm/text_generation.h"
#include "python/errors.h"
#include "runtime/weights/streaming_weights.h"

namespace tir::python {
namespace {

py::str utf8(std::string_view s) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(s.data(), py::ssize_t(s.size()), "replace"));
}

py::dict stats_dict(const llm::GenerateStats& s) {
  py::dict d;
  d["prompt_tokens"] = s.prompt_tokens;
  d["new_tokens"] = s.new_tokens;
  d["stop"] = llm::stop_reason_name(s.stop);
  d["time_to_first_token_ms"] = s.time_to_first_token_s * 1e3;
  d["prefill_tokens_per_s"] = s.prefill_tokens_per_s();
  d["decode_tokens_per_s"] = s.decode_tokens_per_s();
  return d;
}

/// The Python callback made safe to call from the loop: the GIL taken per call, an exception
/// kept to be raised after the loop returns.
struct Callback {
  py::object fn;
  std::optional<py::error_already_set> error;

  template <typename T>
  bool operator()(T value) {
    if (fn.is_none()) return true;
    py::gil_scoped_acquire gil;
    try {
      py::object r = fn(value);
      if (r.is_none()) return true;
      if (!py::isinstance<py::bool_>(r))
        throw py::type_error("generate(): callback must return True, False or None, not " +
                             type_name(r));
      return r.cast<bool>();
    } catch (py::error_already_set& e) {
      error.emplace(std::move(e));
      return false;
    } catch (py::builtin_exception& e) {
      e.set_error();
      error.emplace();
      return false;
    }
  }
  void rethrow() {
    if (error) throw std::move(*error);
  }
};

struct GenerateArgs {
  llm::TextOptions text;
  py::object callback;
};

class PyGenerator {
 public:
  PyGenerator(const std::string& model, const std::string& weights, const py::object& tokenizer,
              int threads, const std::string& precision, const py::object& weight_budget,
              const std::string& prefill_method, const std::string& decode_method,
              int64_t max_context) {
    llm::GeneratorOptions o;
    o.prefill_method = prefill_method;
    o.decode_method = decode_method;
    if (threads < 0) raise(StatusCode::kInvalidArgument, "Generator(): threads must be >= 0");
    if (max_context < 0)
      raise(StatusCode::kInvalidArgument, "Generator(): max_context must be >= 0");
    o.max_context = max_context;
    o.session.precision = unwrap(precision_from_name(precision));
    if (py::isinstance<py::str>(weight_budget))
      o.session.weight_budget = unwrap(parse_byte_size(weight_budget.cast<std::string>()));
    else if (!weight_budget.is_none())
      o.session.weight_budget = cast_arg<size_t>(weight_budget, "Generator(): weight_budget",
                                                 "a byte count (int >= 0) or a size like '512M'");
    set_num_threads(threads);
    const std::string tok = tokenizer.is_none() ? "" : py::str(tokenizer).cast<std::string>();
    py::gil_scoped_release nogil;
    if (!tok.empty()) tokenizer_ = open_or_raise(tokenizer::open_tokenizer(tok));
    generator_ = open_or_raise(llm::Generator::open(model, weights, o));
  }

  py::dict generate(const py::object& prompt, GenerateArgs& a) {
    Callback cb{a.callback, {}};
    py::dict out;
    if (py::isinstance<py::str>(prompt)) {
      if (!tokenizer_)
        raise(StatusCode::kInvalidArgument,
              "a text prompt needs a tokenizer: tir.Generator(..., tokenizer='tokenizer.json')");
      const std::string text = prompt.cast<std::string>();
      Result<llm::TextResult> r = Status::ok_status();
      {
        py::gil_scoped_release nogil;
        r = llm::generate_text(*generator_, *tokenizer_, text, a.text,
                               [&](std::string_view piece) { return cb(std::string(piece)); });
      }
      cb.rethrow();
      llm::TextResult t = unwrap(std::move(r));
      out["prompt_ids"] = t.prompt_ids;
      out["tokens"] = t.generated.tokens;
      out["text"] = utf8(t.text);
      out["stats"] = stats_dict(t.generated.stats);
      return out;
    }
    const auto ids = cast_arg<std::vector<llm::TokenId>>(prompt, "generate(): prompt",
                                                         "a str, or a list of int token ids");
    llm::GenerateOptions g = a.text.generate;
    if (a.text.stop_at_eos && tokenizer_ && tokenizer_->eos_id())
      g.eos_ids.push_back(*tokenizer_->eos_id());
    Result<llm::GenerateResult> r = Status::ok_status();
    {
      py::gil_scoped_release nogil;
      r = generator_->generate(ids, g, [&](llm::TokenId t) { return cb(t); });
    }
    cb.rethrow();
    llm::GenerateResult res = unwrap(std::move(r));
    out["prompt_ids"] = ids;
    out["tokens"] = res.tokens;
    if (tokenizer_) {
      tokenizer::DecodeOptions d;
      d.skip_special_tokens = a.text.skip_special_tokens;
      out["text"] = utf8(unwrap(tokenizer_->decode(res.tokens, d)));
    }
    out["stats"] = stats_dict(res.stats);
    return out;
  }

  const llm::Generator& generator() const { return *generator_; }

 private:
  template <typename T>
  static std::unique_ptr<T> open_or_raise(Result<std::unique_ptr<T>> r) {
    if (r.ok()) return std::move(*r);
    py::gil_scoped_acquire gil;
    raise(r.status().code(), r.status().message());
  }
  std::unique_ptr<tokenizer::Tokenizer> tokenizer_;
  std::unique_ptr<llm::Generator> generator_;
};

GenerateArgs generate_args(size_t max_new_tokens, float temperature, int top_k, float top_p,
                           float repetition_penalty, uint64_t seed,
                           const std::vector<llm::TokenId>& eos,
                           const std::vector<std::string>& stop, bool reset, bool stop_at_eos,
                           bool add_special_tokens, bool skip_special_tokens, py::object callback) {
  GenerateArgs a;
  llm::GenerateOptions& g = a.text.generate;
  g.max_new_tokens = max_new_tokens;
  g.sampling = {temperature, top_k, top_p, repetition_penalty, seed};
  g.eos_ids = eos;
  g.reset = reset;
  a.text.stop_strings = stop;
  a.text.stop_at_eos = stop_at_eos;
  a.text.add_special_tokens = add_special_tokens;
  a.text.skip_special_tokens = skip_special_tokens;
  a.callback = std::move(callback);
  return a;
}

#define TIR_GENERATE_KWARGS                                                                       \
  py::kw_only(),                                                                                  \
      py::arg("max_new_tokens") = 128, py::arg("temperature") = 0.0f, py::arg("top_k") = 0,       \
      py::arg("top_p") = 1.0f, py::arg("repetition_penalty") = 1.0f, py::arg("seed") = 0,         \
      py::arg("eos") = std::vector<llm::TokenId>{}, py::arg("stop") = std::vector<std::string>{}, \
      py::arg("reset") = true, py::arg("stop_at_eos") = true,                                     \
      py::arg("add_special_tokens") = true, py::arg("skip_special_tokens") = true,                \
      py::arg("callback") = py::none()

constexpr const char* kGenerateDoc =
    "Generates after `prompt`: a str (encoded by the tokenizer) or a list of token ids. "
    "Greedy by default; temperature > 0 samples (top_k, top_p, repetition_penalty, seed as "
    "transformers). Stops at max_new_tokens, an id in `eos` or the tokenizer's EOS "
    "(stop_at_eos), a string of `stop` (the text ends before it) or a full cache. "
    "callback(piece) gets each new text piece (str) for a str prompt, each token id (int) "
    "otherwise; returning False stops. reset=False continues the previous call's sequence "
    "(a chat's next turn). Returns a dict: prompt_ids, tokens, text (with a tokenizer), stats "
    "(prompt_tokens, new_tokens, stop, time_to_first_token_ms, prefill_tokens_per_s, "
    "decode_tokens_per_s).";

}  // namespace

void bind_generate(py::module_& m) {
  py::class_<PyGenerator>(m, "Generator",
                          "A decoder LLM's prefill and decode methods (tools/export_llm.py, "
                          "`tirc import prefill=... decode=...`) sharing weights and KV cache, "
                          "with an optional tokenizer (tokenizer.json or a SentencePiece "
                          ".model). One generate at a time per Generator.")
      .def(py::init([](py::object model, std::string weights, py::object tokenizer, int threads,
                       std::string precision, py::object weight_budget, std::string prefill,
                       std::string decode, int64_t max_context) {
             const std::string path = py::str(py::module_::import("os").attr("fspath")(model));
             return std::make_unique<PyGenerator>(path, weights, tokenizer, threads, precision,
                                                  weight_budget, prefill, decode, max_context);
           }),
           py::arg("model"), py::arg("weights"), py::kw_only(), py::arg("tokenizer") = py::none(),
           py::arg("threads") = 0, py::arg("precision") = "f32",
           py::arg("weight_budget") = py::none(), py::arg("prefill_method") = "",
           py::arg("decode_method") = "", py::arg("max_context") = 0,
           "Opens `model` (.tir) with `weights`. weight_budget (bytes or '512M') streams the "
           "weights from disk within that budget.")
      .def(
          "generate",
          [](PyGenerator& g, const py::object& prompt, size_t max_new_tokens, float temperature,
             int top_k, float top_p, float repetition_penalty, uint64_t seed,
             const std::vector<llm::TokenId>& eos, const std::vector<std::string>& stop, bool reset,
             bool stop_at_eos, bool add_special_tokens, bool skip_special_tokens,
             py::object callback) {
            GenerateArgs a = generate_args(
                max_new_tokens, temperature, top_k, top_p, repetition_penalty, seed, eos, stop,
                reset, stop_at_eos, add_special_tokens, skip_special_tokens, std::move(callback));
            return g.generate(prompt, a);
          },
          py::arg("prompt"), TIR_GENERATE_KWARGS, kGenerateDoc)
      .def_property_readonly("max_context",
                             [](const PyGenerator& g) { return g.generator().max_context(); })
      .def_property_readonly("vocab_size",
                             [](const PyGenerator& g) { return g.generator().vocab_size(); });
}

}  // namespace tir::python
