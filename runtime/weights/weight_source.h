// WeightSource: how an executor gets a weight's bytes. The executor acquires each weight by
// its WeightId (the model's weight index) before the first node that reads it and releases
// it after its last use in the method (the plan computes both at prepare), so a source may
// keep only what the next nodes need resident: the streaming source of a later issue reads
// ahead in that order within a byte budget.
//
// ResidentWeights, the source every session uses today, serves a WeightSet that is already
// in memory (a mapped file, an overlay): acquire is an array lookup, release does nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/model.h"
#include "kernels/kernel.h"
#include "runtime/weights/weight_set.h"

namespace tir {

/// Index into Model.weights (ir/tir.fbs): what a weight value of any method refers to.
using WeightId = int32_t;

/// The weights one node of a method reads, in the method's execution order.
struct NodeWeights {
  std::string_view node;
  std::vector<WeightId> weights;
};

class WeightSource {
 public:
  virtual ~WeightSource() = default;
  /// Makes weight `id` available and returns it; the view stays valid until release(id).
  /// Thread-safe. An error (an unreadable file) names the weight.
  virtual Result<const Tensor*> acquire(WeightId id) = 0;
  /// The caller is done with `id` for this run.
  virtual void release(WeightId id) = 0;
  /// Which bytes `id` has (slot and generation), for packed-copy keys.
  virtual kernels::WeightKey key(WeightId id) const = 0;
  /// `id`'s int8 storage when the source holds it quantized (kernels::QuantizedWeight),
  /// else null. Valid while the source lives.
  virtual const kernels::QuantizedWeight* quantized(WeightId id) const {
    (void)id;
    return nullptr;
  }
  /// False for an int8-stored weight whose float32 dequantization nothing has asked for yet
  /// (acquire makes it): a node whose kernel reads only the int8 storage binds it unmade.
  virtual bool dequantized(WeightId id) const {
    (void)id;
    return true;
  }
  /// True when acquire never fails and its views never move while the source lives (the
  /// executor may then bind pointers at prepare and skip acquire/release when running).
  virtual bool resident() const = 0;
  /// An executor binding a method tells the source which weights each node reads, in order,
  /// once per method; a budgeted source refuses a method it cannot run (the error names the
  /// node, its tensors and the minimum budget).
  virtual Status check_uses(std::string_view /*method*/, std::span<const NodeWeights> /*uses*/) {
    return ok_status();
  }
  /// Brackets one run of a method that does not see resident weights: `order` lists the
  /// weights its plan acquires, first uses in order (a source reads ahead in that order).
  /// Runs nest (a cond branch runs inside its method's run); end_run drops what the run
  /// still holds, after an error too.
  virtual void begin_run(std::span<const WeightId> /*order*/) {}
  virtual void end_run() {}
  /// The weight set behind the source (names, packed cache, messages).
  virtual const WeightSet& set() const = 0;
  const std::shared_ptr<const WeightSet>& set_ptr() const { return set_; }

 protected:
  std::shared_ptr<const WeightSet> set_;
};

/// The slot in `set` of the model's weight `w`, by its name or any of its aliases;
/// kNotFound "weight '<name>' is missing from '<set>'" when it has none.
Result<int32_t> weight_slot(const WeightSet& set, const ir::fb::WeightRef& w);

/// A WeightSet in memory, bound to `model`'s weights by name (each weight present; dtypes
/// and shapes were checked by check_weights). Built once per bound set and shared by every
/// executor of a session.
class ResidentWeights final : public WeightSource {
 public:
  static Result<std::shared_ptr<ResidentWeights>> bind(const ir::ModelView& model,
                                                       std::shared_ptr<const WeightSet> set);
  /// The view of the weight set (an int8-stored tensor dequantized on first acquire).
  Result<const Tensor*> acquire(WeightId id) override {
    return &set_->tensor(size_t(keys_[id].slot));
  }
  void release(WeightId) override {}
  kernels::WeightKey key(WeightId id) const override { return keys_[id]; }
  const kernels::QuantizedWeight* quantized(WeightId id) const override {
    return set_->quantized(size_t(keys_[id].slot));
  }
  bool dequantized(WeightId id) const override { return set_->dequantized(size_t(keys_[id].slot)); }
  bool resident() const override { return true; }
  const WeightSet& set() const override { return *set_; }

 private:
  std::vector<kernels::WeightKey> keys_;  // per WeightId
};

}  // namespace tir
