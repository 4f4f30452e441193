#include "tooling/generate/generate_command.h"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/precision.h"
#include "core/printable.h"
#include "core/regular_file.h"
#include "llm/text_generation.h"
#include "runtime/weights/mapped_fault.h"
#include "runtime/weights/streaming_weights.h"
#include "tooling/cli/number_flags.h"
#include "tooling/cli/parse_command_line.h"
#include "tooling/cli/read_limit_flags.h"

namespace tir::tools {
namespace {

/// The largest token count or context a flag takes (2^30: far above any model's context,
/// far below where sizes overflow).
constexpr uint64_t kMaxCount = uint64_t{1} << 30;

struct GenerateCommand {
  std::string model_path, weights_path, tokenizer_path, prompt, prompt_ids, prompt_file;
  std::string dtype = "f32", device, weight_budget, prefill_method, decode_method;
  int threads = 0;
  int64_t max_context = 0;
  bool json = false, verify_checksums = true, layout_cache = true, stop_at_eos = true,
       skip_special = true;
  bool all_logits = false;
  std::vector<llm::TokenId> eos_ids;
  llm::TextOptions text;
};

void add_flags(CLI::App& app, GenerateCommand& c) {
  app.add_option("model", c.model_path,
                 "Model file written by `tirc import` of the programs "
                 "tools/export_llm.py writes (prefill + decode methods)")
      ->required();
  app.add_option("--weights,-w", c.weights_path, "Weight file (w.bin or .safetensors)")->required();
  app.add_option("--tokenizer", c.tokenizer_path,
                 "tokenizer.json (byte-level BPE) or a SentencePiece .model; default: one of "
                 "those beside the model, if there");
  app.add_option("--prompt,-p", c.prompt, "Prompt text (needs a tokenizer)");
  app.add_option("--prompt-file", c.prompt_file, "Read the prompt text from this file");
  app.add_option("--prompt-ids", c.prompt_ids, "Prompt as token ids: \"1,2,3\"");
  app.add_option("--max-new-tokens,-n", c.text.generate.max_new_tokens,
                 "Tokens to generate at most")
      ->check(whole_number(0, kMaxCount))
      ->capture_default_str();
  app.add_option("--temperature", c.text.generate.sampling.temperature,
                 "0: greedy; otherwise logits / temperature, then sampled")
      ->capture_default_str();
  app.add_option("--top-k", c.text.generate.sampling.top_k,
                 "Sample among the k most likely (0: all)")
      ->check(whole_number(0, INT32_MAX))
      ->capture_default_str();
  app.add_option("--top-p", c.text.generate.sampling.top_p,
                 "Sample among the most likely whose probability reaches p (1: all)")
      ->capture_default_str();
  app.add_option("--repetition-penalty", c.text.generate.sampling.repetition_penalty,
                 "> 1 makes tokens of the prompt and output less likely (1: off)")
      ->capture_default_str();
  app.add_option("--seed", c.text.generate.sampling.seed, "Sampling seed")
      ->check(whole_number(0, UINT64_MAX))
      ->capture_default_str();
  app.add_option("--eos", c.eos_ids, "Stop after this token id (repeatable)")
      ->check(whole_number(0, INT32_MAX));
  app.add_flag("!--ignore-eos", c.stop_at_eos, "Do not stop at the tokenizer's EOS token");
  app.add_option("--stop", c.text.stop_strings,
                 "Stop when the text contains this; the output ends before it (repeatable)");
  app.add_flag("!--keep-special", c.skip_special, "Print special tokens in the text");
  app.add_option("--prefill-method", c.prefill_method, "Method that prefills (default: prefill)");
  app.add_option("--decode-method", c.decode_method, "Method that decodes (default: decode)");
  app.add_option("--max-context", c.max_context,
                 "Positions the cache holds (default: from the prefill's sequence range; no "
                 "more than the exported cache)")
      ->check(whole_number(0, kMaxCount));
  app.add_flag("--all-logits", c.all_logits,
               "Prefill computes every prompt position's logits, as the program writes them "
               "(default: only the last position's, the ones generation reads)");
  app.add_option("--threads,-t", c.threads,
                 "CPU threads (0: library default; at most the CPUs this process may use)")
      ->check(whole_number(0, INT32_MAX));
  app.add_option("--dtype", c.dtype, "What GEMMs compute in: f32, bf16, int8 (as tirrun --dtype)")
      ->capture_default_str();
  app.add_option("--device", c.device, "cpu, cuda or cuda:N (as tirrun --device)");
  app.add_option("--weight-budget", c.weight_budget,
                 "Stream the weights from disk keeping at most this many bytes in memory (512M)");
  app.add_flag("!--no-verify", c.verify_checksums, "Skip weight checksum verification");
  app.add_flag("!--no-layout-cache", c.layout_cache,
               "Neither read nor write the layout cache beside the weight file (WEIGHTS.layout: "
               "GEMM weights packed for this CPU by an earlier run, mapped instead of packed)");
  app.add_flag("--json", c.json,
               "Print one JSON object (tokens, text, timings) instead of streaming");
}

/// "1,2,3" or "1 2 3" (spaces around commas allowed); an empty item ("1,,2", a trailing
/// comma) or anything but a decimal id is refused, naming the item.
Result<std::vector<llm::TokenId>> parse_ids(const std::string& text) {
  std::vector<llm::TokenId> ids;
  size_t k = 0;
  auto skip_spaces = [&] {
    while (k < text.size() && text[k] == ' ') ++k;
  };
  for (skip_spaces(); k < text.size();) {
    const size_t begin = k;
    while (k < text.size() && text[k] != ',' && text[k] != ' ') ++k;
    const std::string item = text.substr(begin, k - begin);
    uint32_t v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || v > INT32_MAX)
      return make_error(StatusCode::kInvalidArgument, "--prompt-ids: item ", ids.size() + 1,
                        item.empty() ? std::string(" is empty") : " '" + item + "'",
                        ", not a token id (ids are separated by one comma or spaces)");
    ids.push_back(llm::TokenId(v));
    skip_spaces();
    if (k < text.size() && text[k] == ',') {
      ++k;
      skip_spaces();
      if (k == text.size())
        return make_error(StatusCode::kInvalidArgument, "--prompt-ids: a comma ends the list");
    }
  }
  return ids;
}

/// --tokenizer, else tokenizer.json / tokenizer.model beside the model; "" if none.
std::string find_tokenizer(const GenerateCommand& c) {
  if (!c.tokenizer_path.empty()) return c.tokenizer_path;
  const auto dir = std::filesystem::path(c.model_path).parent_path();
  for (const char* name : {"tokenizer.json", "tokenizer.model"})
    if (std::filesystem::exists(dir / name)) return (dir / name).string();
  return "";
}

Result<std::unique_ptr<llm::Generator>> open_generator(const GenerateCommand& c) {
  llm::GeneratorOptions go;
  go.prefill_method = c.prefill_method;
  go.decode_method = c.decode_method;
  go.max_context = c.max_context;
  go.all_logits = c.all_logits;
  go.session.weights.verify_checksums = c.verify_checksums;
  go.session.weights.verify_in_background = true;  // float tensors checked during the prefill
  go.session.weights.layout_cache = c.layout_cache;
  go.session.device = c.device;
  TIR_ASSIGN_OR_RETURN(go.session.precision, precision_from_name(c.dtype));
  if (!c.weight_budget.empty()) {
    TIR_ASSIGN_OR_RETURN(go.session.weight_budget, parse_byte_size(c.weight_budget));
  }
  return llm::Generator::open(c.model_path, c.weights_path, go);
}

void print_summary(const llm::GenerateStats& s, std::ostream& err) {
  char line[256];
  std::snprintf(line, sizeof line,
                "prompt %zu tokens, %zu new (stop: %s) | first token %.1f ms | prefill %.1f "
                "tokens/s | decode %.1f tokens/s",
                s.prompt_tokens, s.new_tokens, llm::stop_reason_name(s.stop),
                s.time_to_first_token_s * 1e3, s.prefill_tokens_per_s(), s.decode_tokens_per_s());
  err << "\n" << line << "\n";
}

nlohmann::json stats_json(const llm::GenerateStats& s) {
  return {{"prompt_tokens", s.prompt_tokens},
          {"new_tokens", s.new_tokens},
          {"stop", llm::stop_reason_name(s.stop)},
          {"time_to_first_token_ms", s.time_to_first_token_s * 1e3},
          {"prefill_ms", s.prefill_s * 1e3},
          {"decode_ms", s.decode_s * 1e3},
          {"prefill_tokens_per_s", s.prefill_tokens_per_s()},
          {"decode_tokens_per_s", s.decode_tokens_per_s()}};
}

Status run(GenerateCommand& c, std::ostream& out, std::ostream& err) {
  const int given = !c.prompt.empty() + !c.prompt_ids.empty() + !c.prompt_file.empty();
  if (given != 1)
    return make_error(StatusCode::kInvalidArgument,
                      "give the prompt once: --prompt, --prompt-file or --prompt-ids");
  if (!c.prompt_file.empty()) {
    TIR_ASSIGN_OR_RETURN(c.prompt, read_regular_file(c.prompt_file, "prompt file"));
  }
  std::unique_ptr<tokenizer::Tokenizer> tok;
  const std::string tok_path = find_tokenizer(c);
  if (!tok_path.empty()) {
    TIR_ASSIGN_OR_RETURN(tok, tokenizer::open_tokenizer(tok_path));
  }
  if (!tok && c.prompt_ids.empty())
    return make_error(StatusCode::kInvalidArgument,
                      "a text prompt needs a tokenizer: --tokenizer FILE (none beside '",
                      c.model_path, "')");
  set_num_threads(c.threads);
  TIR_ASSIGN_OR_RETURN(auto gen, open_generator(c));
  c.text.generate.eos_ids = c.eos_ids;
  c.text.stop_at_eos = c.stop_at_eos;
  c.text.skip_special_tokens = c.skip_special;
  llm::TextResult r;
  if (c.prompt_ids.empty()) {
    TIR_ASSIGN_OR_RETURN(
        r, llm::generate_text(*gen, *tok, c.prompt, c.text, [&](std::string_view piece) {
          if (!c.json) out << piece << std::flush;
          return true;
        }));
  } else {
    TIR_ASSIGN_OR_RETURN(r.prompt_ids, parse_ids(c.prompt_ids));
    if (c.stop_at_eos && tok && tok->eos_id()) c.text.generate.eos_ids.push_back(*tok->eos_id());
    if (!c.text.stop_strings.empty() && !tok)
      return make_error(StatusCode::kInvalidArgument, "--stop needs a tokenizer");
    TIR_ASSIGN_OR_RETURN(r.generated,
                         gen->generate(r.prompt_ids, c.text.generate, [&](llm::TokenId id) {
                           if (!c.json) out << id << ' ' << std::flush;
                           return true;
                         }));
    if (tok) {
      tokenizer::DecodeOptions d;
      d.skip_special_tokens = c.skip_special;
      TIR_ASSIGN_OR_RETURN(r.text, tok->decode(r.generated.tokens, d));
    }
  }
  if (c.json) {
    nlohmann::json j = stats_json(r.generated.stats);
    j["prompt_ids"] = r.prompt_ids;
    j["tokens"] = r.generated.tokens;
    if (tok) j["text"] = r.text;
    j["dtype"] = precision_name(gen->prefill_session().precision());
    j["max_context"] = gen->max_context();
    out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    out << "\n";
    print_summary(r.generated.stats, err);
  }
  return Status::ok_status();
}

}  // namespace

int generate_main(int argc, char** argv) {
  GenerateCommand c;
  CLI::App app{
      "tirrun generate: text from a decoder LLM (prefill then decode, sampling, "
      "streaming)"};
  app.name("tirrun generate");
  app.footer("Guide: docs/guide/generate.md; every flag: docs/reference/cli.md");
  add_flags(app, c);
  ReadLimits limits;
  add_read_limit_flags(&app, &limits);
  if (auto code = parse_command_line(app, argc, argv, "tirrun generate")) return *code;
  set_read_limits(limits);
  report_truncated_mapped_files();
  return exit_status(run(c, std::cout, std::cerr));
}

}  // namespace tir::tools
