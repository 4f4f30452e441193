// Control flow in the runtime: the SubgraphRunner (kernels/kernel.h) that lets the
// higher_order::cond kernel run its branches. The executor gives one to each prepared node
// that passes subgraphs; it is bound to that plan's symbol binding and owns one
// MethodExecutor per subgraph it prepared, each holding the single plan for that binding.
// Branch weights bind by name from the enclosing executor's current weight set (followed
// across swaps); kernel calls made in branches are added to the enclosing executor's count.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "ir/model.h"
#include "kernels/kernel.h"
#include "runtime/weight_set.h"

namespace tir {

class SessionState;

struct SubgraphContext {
  const ir::ModelView* model = nullptr;
  const ir::fb::Method* method = nullptr;  // holds the node; its `subgraphs` are what runs
  /// The enclosing executor's weight set; must outlive the runner (the executor owns both).
  const std::shared_ptr<const WeightSet>* weights = nullptr;
  std::span<const int64_t> symbols;  // the plan's binding (copied)
  uint64_t* kernel_calls = nullptr;  // the enclosing executor's counter
  SessionState* state = nullptr;     // mutable buffers the branches read, if the session has any
  bool fuse = true;                  // MethodExecutor::create's `fuse` for the branches
  Precision precision = Precision::kFloat32;  // and its `precision`
};

std::unique_ptr<kernels::SubgraphRunner> make_subgraph_runner(const SubgraphContext& context);

}  // namespace tir
