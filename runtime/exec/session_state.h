// SessionState: the buffers a model's methods mutate (a KV cache, a step counter), as
// owned, writable tensors carried from one run to the next. Each starts as a copy of the
// buffer's value in the weight set, or, for a non-persistent buffer (transformers' static KV
// cache), of the program's constant of that name; a run reads the state, and what the program
// writes to a buffer (an in-place op on it, or a BUFFER_MUTATION output) goes back into the state
// when the run ends. Sessions given the same state (SessionOptions::state), e.g. a `prefill` and a
// `decode` session of one model, share those buffers.
//
// Not synchronized: runs that mutate a shared state must not overlap.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include "ir/model.h"
#include "runtime/weights/host_tensor.h"
#include "runtime/weights/weight_set.h"

namespace tir {

class SessionState {
 public:
  /// Buffer `name`, made on first request as a copy of `initial` (which later requests
  /// must match in dtype and shape, else an error naming the buffer).
  Result<Tensor*> buffer(const std::string& name, const Tensor& initial);
  /// Buffer `name`, or nullptr when no method has used it yet.
  const Tensor* find(const std::string& name) const;
  /// Puts every buffer back to its initial value (state_initial_value): a new conversation.
  Status reset(const WeightSet& weights, const ir::fb::Model& model);
  size_t size() const { return buffers_.size(); }
  /// Bytes the buffers hold (an LLM's KV cache: layers x 2 x kv heads x context x head dim).
  size_t bytes() const {
    size_t n = 0;
    for (const auto& [name, t] : buffers_) n += t.view().nbytes();
    return n;
  }

 private:
  std::unordered_map<std::string, HostTensor> buffers_;
};

/// What buffer `name` starts as: the tensor of that name in `weights`, else the constant of
/// that name in `model` (a non-persistent buffer is not in the weight file). Views, not copies.
Result<Tensor> state_initial_value(const WeightSet& weights, const ir::fb::Model& model,
                                   std::string_view name);

}  // namespace tir
