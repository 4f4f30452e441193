#include "llm/text_generation.h"

#include <algorithm>

namespace tir::llm {

std::string StopStringFilter::push(std::string_view piece) {
  if (stopped_) return {};
  held_.append(piece);
  size_t cut = std::string::npos;
  for (const std::string& s : stops_)
    if (!s.empty()) cut = std::min(cut, held_.find(s));
  if (cut != std::string::npos) {
    stopped_ = true;
    std::string out = held_.substr(0, cut);
    held_.clear();
    return out;
  }
  // Keep the longest tail of held_ that is a proper prefix of a stop string.
  size_t keep = 0;
  for (const std::string& s : stops_)
    for (size_t n = std::min(s.size() - (s.empty() ? 0 : 1), held_.size()); n > keep; --n)
      if (held_.compare(held_.size() - n, n, s, 0, n) == 0) {
        keep = n;
        break;
      }
  std::string out = held_.substr(0, held_.size() - keep);
  held_.erase(0, held_.size() - keep);
  return out;
}

std::string StopStringFilter::flush() {
  std::string out;
  out.swap(held_);
  return stopped_ ? std::string() : out;
}

Result<TextResult> generate_text(Generator& generator, const tokenizer::Tokenizer& tokenizer,
                                 std::string_view prompt, const TextOptions& options,
                                 const TextCallback& on_text) {
  TextResult result;
  tokenizer::EncodeOptions eo;
  eo.add_special_tokens = options.add_special_tokens;
  TIR_ASSIGN_OR_RETURN(result.prompt_ids, tokenizer.encode(prompt, eo));
  if (tokenizer.vocab_size() > generator.vocab_size() && generator.vocab_size() > 0)
    for (TokenId id : result.prompt_ids)
      if (id >= generator.vocab_size())
        return make_error(StatusCode::kInvalidArgument, "the tokenizer's id ", id, " (",
                          tokenizer.id_to_token(id).value_or("?"),
                          ") is outside the model's vocabulary of ", generator.vocab_size(),
                          ": is this the model's tokenizer?");
  GenerateOptions go = options.generate;
  if (options.stop_at_eos && tokenizer.eos_id()) go.eos_ids.push_back(*tokenizer.eos_id());
  tokenizer::DecodeOptions dopt;
  dopt.skip_special_tokens = options.skip_special_tokens;
  tokenizer::StreamDecoder decoder(tokenizer, dopt);
  StopStringFilter stops(options.stop_strings);
  Status failure;
  bool caller_stopped = false;
  auto pass_on = [&](std::string_view piece) {
    result.text.append(piece);
    if (!piece.empty() && on_text && !on_text(piece)) caller_stopped = true;
  };
  auto on_token = [&](TokenId id) {
    auto piece = decoder.next(id);
    if (!piece.ok()) {
      failure = piece.status();
      return false;
    }
    pass_on(stops.push(*piece));
    return !stops.stopped() && !caller_stopped;
  };
  TIR_ASSIGN_OR_RETURN(result.generated, generator.generate(result.prompt_ids, go, on_token));
  TIR_RETURN_IF_ERROR(failure);
  result.stopped_by_string = stops.stopped();
  if (!stops.stopped()) {
    TIR_ASSIGN_OR_RETURN(std::string rest, decoder.flush());
    std::string tail = stops.push(rest);
    if (!stops.stopped()) tail += stops.flush();
    result.stopped_by_string = stops.stopped();
    if (!caller_stopped) pass_on(tail);
  }
  return result;
}

}  // namespace tir::llm
