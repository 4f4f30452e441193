// PeftLoraConfig: a PEFT adapter_config.json read with PEFT's (0.21) rules, and the question
// PEFT asks of every module of the model: is it adapted, with which rank and alpha?
//
// Read and applied (peft/tuners/tuners_utils.py check_target_module_exists, utils/other.py
// get_pattern_key, tuners/lora/model.py _create_and_replace):
//   target_modules       a list: a module key equal to an entry or ending with "." + entry;
//                        a string: a regular expression the whole key matches.
//                        Required ("all-linear" and a null list are resolved by PEFT against the
//                        model class, which tir does not have: refused).
//   exclude_modules      the same forms; an excluded module is never adapted.
//   modules_to_save      a module key matching "(^|.*\.)" + entry + "($|\..*)" is never adapted;
//                        its full tensors in the file replace the model's (key ending with entry).
//   layers_to_transform  an index or a list, with layers_pattern (a string, a list, or empty for
//                        "any segment before the index"): applies only to a list target_modules
//                        entry matched by suffix, as PEFT does.
//   r, lora_alpha        the default rank and alpha; rank_pattern / alpha_pattern override them
//                        for the first key (file order) K where the module key matches
//                        "(.*\.)?(" + K + ")" in full.
//   use_rslora           scale alpha / sqrt(r) instead of alpha / r.
//   bias                 "none"; "all" or "lora_only" allow the saved bias tensors (they replace
//                        the model's).
//   fan_in_fan_out       read, no effect: the update is applied as y += s x A^T B^T, which is the
//                        same for a Linear and a Conv1D (PEFT corrects the flag per layer type).
// Refused, naming the field: another peft_type; a scale s that is not finite or |s| > 1e6
// (kMaxLoraScale: far beyond any trained adapter, and enough to turn float32 logits to inf);
// r or a rank_pattern value that is not a positive integer; the forward-changing options tir
// does not implement (use_dora, lora_bias, layer_replication, target_parameters,
// trainable_token_indices, use_qalora, alora_invocation_tokens, arrow_config, kasa_config,
// monteclora_config, velora_config, use_bdlora, megatron_config, ensure_weight_tying); a
// combination PEFT's LoraConfig refuses (layers_to_transform or layers_pattern with a string
// target_modules; layers_pattern without layers_to_transform). Ignored as PEFT ignores them at
// inference: lora_dropout, init_lora_weights and its *_config, inference_mode, task_type,
// base_model_name_or_path, revision, runtime_config, and fields PEFT does not know.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "runtime/weights/peft_regex.h"

namespace tir {

/// The largest |lora_alpha / r| (or / sqrt(r)) accepted.
inline constexpr double kMaxLoraScale = 1e6;

/// Module names given as a list (exact or "." suffix) or as one regular expression (full match).
struct PeftModuleSet {
  std::vector<std::string> names;
  std::optional<PeftRegex> regex;
  bool empty() const { return names.empty() && !regex; }
};

struct PeftLoraConfig {
  std::string file;  // adapter_config.json, for messages
  int64_t r = 8;
  double alpha = 8;
  bool rslora = false;
  PeftModuleSet target, exclude;
  std::vector<std::string> modules_to_save;
  std::vector<PeftRegex> saved_exclusions;      // one per modules_to_save entry
  std::vector<int64_t> layers;                  // layers_to_transform; empty: every layer
  std::vector<PeftRegex> layer_index_patterns;  // from layers_pattern
  std::vector<std::pair<PeftRegex, int64_t>> rank_pattern;
  std::vector<std::pair<PeftRegex, double>> alpha_pattern;
  std::string bias = "none";
};

/// How PEFT treats module `key` (its name in the model PEFT wrapped).
struct PeftTarget {
  bool adapted = false;
  std::string why_not;  // when not adapted: the field that leaves it out
  int64_t rank = 0;     // when adapted: r (rank_pattern)
  double scale = 0;     // when adapted: alpha / r, or alpha / sqrt(r) with use_rslora
};

/// Reads `file` (adapter_config.json).
Result<PeftLoraConfig> peft_config_read(const std::string& file);

/// PEFT's decision for module `key`; errors: a scale out of bounds, a pattern that cannot run.
Result<PeftTarget> peft_config_target(const PeftLoraConfig& config, const std::string& key);

/// Whether module `key`'s tensors are saved whole (modules_to_save: key ends with an entry).
bool peft_config_saves(const PeftLoraConfig& config, const std::string& key);

}  // namespace tir
