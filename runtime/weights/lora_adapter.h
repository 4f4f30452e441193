// LoraAdapter: a PEFT LoRA adapter read from disk and mapped onto a model's weights.
//
// Format (what PEFT's save_pretrained writes): a directory holding
//   adapter_config.json        peft_type "LORA", r, lora_alpha, use_rslora, target_modules,
//                              fan_in_fan_out, modules_to_save, use_dora, ...
//   adapter_model.safetensors  per adapted module M (a Linear or a GPT-2 Conv1D):
//                                base_model.model.M.lora_A.weight  [r, in_features]
//                                base_model.model.M.lora_B.weight  [out_features, r]
//                              and, per module in modules_to_save, its full tensors
//                                base_model.model.M.weight (.bias, ...)
//                              and, with bias "lora_only" or "all", the trained biases
//                                base_model.model.M.base_layer.bias (M adapted) or M.bias
// adapter_config.json is read as PEFT reads it (runtime/weights/peft_config.h): PEFT's
// target_modules / exclude_modules / layers_to_transform / modules_to_save rules decide which
// modules are adapted, r and lora_alpha (rank_pattern, alpha_pattern, use_rslora) their rank and
// scale. Where PEFT would warn and go on, tir refuses: a LoRA tensor of a module the config does
// not adapt (PEFT ignores it), a module the config adapts with no tensors (PEFT leaves it at its
// initial value), A and B whose rank is not the config's, a tensor saved whole that is not of a
// module in modules_to_save (or a bias under `bias`).
// Module M binds to the model weight named M + ".weight" (the state-dict name), else to the
// one weight whose name ends with "." + M + ".weight" (a model exported inside a wrapper); the
// same for the full tensors. The update of weight W is W + s * B A, with s = lora_alpha / r
// (alpha / sqrt(r) with use_rslora). In activation space that is y += s * (x A^T) B^T whatever
// W's layout ([N, K] for nn.Linear, [K, N] for Conv1D), which is how the runtime applies it
// (runtime/exec/lora_step.h).
//
// Refused with one line naming the file and the field or tensor: what peft_config.h refuses,
// trainable tokens, embedding LoRA, a target that names no weight (or several), a shape that
// does not fit, a dtype other than float32 for A and B, a value of A or s * B that is not finite.
//
// Immutable after open; thread-safe; shared by every session it is loaded into.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "runtime/weights/host_tensor.h"
#include "runtime/weights/weight_set.h"

namespace tir {

/// The update of one GEMM weight: y[M, N] += x[M, K] A^T bt, for x the GEMM's input.
struct LoraUpdate {
  std::string module;  // the PEFT module path ("transformer.h.0.attn.c_attn")
  std::string weight;  // the model weight it updates (its canonical name in the base set)
  int64_t rank = 0, in_features = 0, out_features = 0;  // r, K, N
  HostTensor a;                                         // [r, K] float32
  HostTensor bt;                                        // [r, N] float32: s * B^T
};

class LoraAdapter {
 public:
  /// Reads the PEFT adapter at `path` (its directory, or its adapter_model.safetensors with the
  /// config beside it) and maps it onto `base` (the model's weights: names, dtypes, shapes).
  static Result<std::shared_ptr<const LoraAdapter>> open(const std::string& path,
                                                         const WeightSet& base);

  const std::string& path() const { return path_; }
  const std::vector<LoraUpdate>& updates() const { return updates_; }
  /// The modules_to_save tensors under the model's weight names (a partial set for
  /// WeightSet::overlay), or null when the adapter has none.
  const std::shared_ptr<const WeightSet>& replacements() const { return replacements_; }
  /// Bytes the adapter holds in memory (A, s * B^T and the replacement tensors).
  size_t bytes() const { return bytes_; }

 private:
  LoraAdapter() = default;
  std::string path_;
  std::vector<LoraUpdate> updates_;
  std::shared_ptr<const WeightSet> replacements_;
  size_t bytes_ = 0;
};

}  // namespace tir
