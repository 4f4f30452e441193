// tir's public C++ API: load a .tir model, bind a weight file, run a method.
//
//   auto session = tir::Session::open("model.tir", "model.bin");
//   if (!session.ok()) { /* session.status().message() */ }
//   auto outputs = (*session)->run(inputs);  // inputs in signature order
//
// A Session is not thread-safe; use one per thread (they can share a WeightSet).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/core/tensor.h"
#include "runtime/data_loader.h"
#include "runtime/weight_set.h"

namespace tir {

class MethodExecutor;

struct SessionOptions {
  std::string method = "forward";
  WeightSetOptions weights;
  /// Distinct input-shape bindings whose memory plan is kept (least recently used go).
  size_t max_cached_plans = 8;
};

/// A user input or output of the method: name, dtype and shape (-1 for a symbolic dim,
/// whose expression is in `dims`).
struct IoSpec {
  std::string name;
  DType dtype = DType::kUndefined;
  std::vector<int64_t> shape;
  std::vector<std::string> dims;  // "4", "s0", "8*s0"
};

class Session {
 public:
  /// Maps and verifies the model and the weight file, binds every weight by name (dtype
  /// and shape checked), resolves every node to a kernel.
  static Result<std::unique_ptr<Session>> open(const std::string& model_path,
                                               const std::string& weights_path,
                                               const SessionOptions& options = {});
  /// Same over a model already in memory and an opened weight set (shared, not copied).
  static Result<std::unique_ptr<Session>> create(std::shared_ptr<const DataSource> model,
                                                 std::shared_ptr<const WeightSet> weights,
                                                 const SessionOptions& options = {});
  ~Session();

  const std::vector<IoSpec>& inputs() const { return inputs_; }
  const std::vector<IoSpec>& outputs() const { return outputs_; }
  /// Index of the user input named `name`, or -1.
  int input_index(std::string_view name) const;

  /// Runs the method. Inputs are checked (count, dtype, shape, symbol ranges) before any
  /// kernel runs. The returned views stay valid until the next run or destruction.
  Result<std::span<const Tensor>> run(std::span<const Tensor> inputs);

  const std::string& method_name() const { return method_name_; }
  /// Activation arena bytes of the most recent plan.
  size_t arena_bytes() const;
  size_t num_nodes() const;
  /// Input-shape bindings whose plan is cached.
  size_t num_cached_plans() const;
  /// Kernel calls made so far (a rejected input makes none).
  uint64_t kernel_calls() const;
  const WeightSet& weights() const { return *weights_; }

 private:
  Session() = default;
  std::shared_ptr<const DataSource> model_;
  std::shared_ptr<const WeightSet> weights_;
  std::unique_ptr<MethodExecutor> executor_;
  std::string method_name_;
  std::vector<IoSpec> inputs_, outputs_;
};

/// Sets the number of CPU threads kernels use (OpenMP / oneDNN). 0 keeps the default.
void set_num_threads(int threads);

}  // namespace tir
