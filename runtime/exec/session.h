// tir's public C++ API: load a .tir model, bind a weight file, run a method.
//
//   auto session = tir::Session::open("model.tir", "model.bin");
//   if (!session.ok()) { /* session.status().message() */ }
//   auto outputs = (*session)->run(inputs);  // inputs in signature order
//
// A Session is thread-safe: each calling thread runs in its own execution context (plans,
// activation arena), so several threads can run one session at once, and another thread may
// call swap_weights meanwhile. Views returned by run stay valid until the same thread's next
// run on this session.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/precision.h"
#include "core/status.h"
#include "core/tensor.h"
#include "runtime/devices/device.h"
#include "runtime/exec/session_state.h"
#include "runtime/passes/last_position.h"
#include "runtime/passes/placement.h"
#include "runtime/weights/data_loader.h"
#include "runtime/weights/weight_set.h"

namespace tir {

struct ExecGraph;
class BoundAdapter;
class LoraAdapter;
class LoweredMethod;
class MethodExecutor;
struct ExecutorOptions;
class Profiler;
class WeightSource;
class WeightPool;
namespace ir {
class ModelView;
}
namespace kernels {
class RandomStream;
}

struct SessionOptions {
  std::string method = "forward";
  WeightSetOptions weights;
  /// Distinct input-shape bindings whose memory plan is kept (least recently used go).
  size_t max_cached_plans = 8;
  /// A while_loop whose predicate still holds after this many iterations fails with one line
  /// naming the node (`tirrun --max-loop-iterations`).
  uint64_t max_loop_iterations = 1'000'000;
  /// Where the buffers the method mutates live between runs (runtime/exec/session_state.h). Give
  /// the sessions of several methods of one model the same state to share them (a KV cache
  /// filled by `prefill`, extended by `decode`); null: the session makes its own.
  std::shared_ptr<SessionState> state;
  /// Run each GEMM/convolution and the activation right after it as one kernel call with a
  /// oneDNN post-op (runtime/passes/fusion.h). Off: every node runs on its own (`tirrun
  /// --no-fuse`).
  bool fuse = true;
  /// What GEMM-class kernels (linear, addmm, mm, matmul, bmm, baddbmm) compute in. kBFloat16:
  /// weights packed to bf16 once per prepared node, activations converted per run, float32
  /// accumulation and outputs (`tirrun --dtype bf16`; accuracy in docs/performance.md); refused
  /// with one line and run in float32 on a CPU without native bf16. kInt8: linear/addmm/mm on int8
  /// weights with dynamically quantized activations (core/precision.h). Other ops: f32.
  Precision precision = Precision::kFloat32;
  /// Where the method runs when `devices` is empty (runtime/exec/device_select.h): "" or "cpu",
  /// "cuda" or "cuda:N" (the GPU runs every node it has a kernel for, the CPU the rest;
  /// `tirrun --device cuda`). An unusable device fails open with one line.
  std::string device;
  /// Devices the method may run on (runtime/devices/device.h); the first holds inputs and outputs.
  /// Empty: those `device` names (the process's CPU device by default).
  std::vector<std::shared_ptr<Device>> devices;
  /// Which of `devices` runs each node (runtime/passes/placement.h); unset: the first for all.
  /// Copies are inserted where values cross devices.
  PlacementPolicy placement;
  /// Stream weights from the tir weight file, keeping at most this many bytes of them in
  /// memory (runtime/weights/streaming_weights.h; `tirrun --weight-budget 512M`); 0: map the whole
  /// file. Checksums are then verified per tensor as it is read (`weights.verify_checksums`).
  size_t weight_budget = 0;
  /// The budgeted pool to stream into, shared by the sessions given the same one (the
  /// methods of one model); null with a weight_budget: the session makes its own.
  std::shared_ptr<WeightPool> weight_pool;
  /// Read streamed weights with O_DIRECT (else pread + posix_fadvise DONTNEED).
  bool direct_io = true;
  /// Threads reading streamed weights ahead (StreamingOptions::io_threads).
  int weight_io_threads = 4;
  /// Seed of the random ops (aten::rand, randn, randperm, ...; the generator is documented in
  /// kernels/random.h): a session draws the same values for the same seed and sequence of
  /// runs (`tirrun --seed N`). Unset: a seed from std::random_device, different every open.
  std::optional<uint64_t> seed;
  /// Outputs of which only the last position along a dim is wanted (a generate loop's
  /// logits: {0, -2}). The method computes that position alone as far up the graph as
  /// positions are independent (runtime/passes/last_position.h: the final norm, lm_head and
  /// the last layer's MLP of an LLM) and returns the output with that dim of size 1.
  std::vector<LastPosition> last_position;
};

/// A user input or output of the method: name, dtype and shape (-1 for a symbolic dim,
/// whose expression is in `dims`).
struct IoSpec {
  std::string name;
  DType dtype = DType::kUndefined;
  std::vector<int64_t> shape;
  std::vector<std::string> dims;  // "4", "s0", "8*s0"
  /// The largest each dim may be: its size, a bare symbol's range max, or -1 (unbounded, or
  /// an expression of symbols).
  std::vector<int64_t> max_shape;
  /// An input the program writes (torch's user_input_mutation): each run writes its new value
  /// into the memory of the tensor the caller passed, as torch's eager module does.
  bool mutated = false;
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
  /// kernel runs. The returned views stay valid until this thread's next run or destruction.
  Result<std::span<const Tensor>> run(std::span<const Tensor> inputs);
  /// The same with the LoRA adapter loaded as `adapter` (load_adapter); "" runs the base
  /// model. Runs on other threads may use other adapters at the same time: the adapter is
  /// applied around the GEMMs it updates (runtime/exec/lora_step.h), never written into the
  /// shared weights. Choosing an adapter costs a lookup; the first run with an adapter that has
  /// modules_to_save builds this thread's executor over those tensors (kept until unload).
  Result<std::span<const Tensor>> run(std::span<const Tensor> inputs, std::string_view adapter);

  /// Reads the PEFT LoRA adapter at `path` (runtime/weights/lora_adapter.h: its directory or
  /// its adapter_model.safetensors), maps it onto this model's weights and makes it runnable
  /// as `name`. Any thread, while runs go on. A name already loaded is replaced (runs in flight
  /// finish on the old one). Errors name the file and the tensor or module; nothing changes.
  Status load_adapter(const std::string& name, const std::string& path);
  /// The same for an adapter already read (shared, e.g. by the methods of one model).
  Status load_adapter(const std::string& name, std::shared_ptr<const LoraAdapter> adapter);
  /// Forgets adapter `name`; runs in flight with it finish with it, then its memory goes.
  Status unload_adapter(const std::string& name);
  /// The loaded adapters' names, sorted.
  std::vector<std::string> adapter_names() const;

  /// Installs another weight set for this model (a fresh file, safetensors, an overlay).
  /// It is checked against the model first (missing, extra, dtype, shape: the error names
  /// the tensor) and the current set stays on failure. Runs already in flight finish on the
  /// set they started with; every later run uses the new one. Cost: the check plus, on each
  /// context's next run, re-resolving weight pointers and re-preparing only the nodes whose
  /// weights changed.
  Status swap_weights(std::shared_ptr<const WeightSet> weights);

  /// Profiles the calling thread's later runs on this session into `profiler`: one event
  /// per node (runtime/exec/profiler.h). Not owned: it must outlive those runs or be unset
  /// (nullptr) first. Without a profiler the run loop pays one predictable branch per node.
  Status set_profiler(Profiler* profiler);

  const std::string& method_name() const { return method_name_; }
  // The method is lowered once per session (runtime/exec/lowered_method.h) and every thread's
  // context runs that one program: these statistics are the same on every thread.
  size_t num_nodes() const;
  /// GEMM/conv + activation groups run as one kernel call (0 with SessionOptions::fuse off).
  size_t num_fused_groups() const;
  /// Activations kept channels-last between convolutions (0 with SessionOptions::fuse off).
  size_t num_channels_last() const;
  /// Copies inserted where values cross devices (0 on one device).
  size_t num_copies() const;
  /// Kernel nodes per device, and the ops left on the first device when there are several
  /// (runtime/exec/device_select.h placement_summary).
  std::string placement_summary() const;
  /// The method as every context runs it, after placement, fusion and layout
  /// (runtime/passes/exec_graph.h; its nodes' `index` are the IR's). Valid while the session lives.
  const ExecGraph& exec_graph() const;
  // The statistics below are those of the calling thread's context.
  /// Activation arena bytes of the most recent plan.
  size_t arena_bytes() const;
  /// Input-shape bindings whose plan is cached.
  size_t num_cached_plans() const;
  /// Kernel calls made so far (a rejected input makes none).
  uint64_t kernel_calls() const;
  /// Bytes loops copied so far (what their bodies could not compute in place, and each
  /// while_loop's final state once): no more as a loop runs more iterations.
  uint64_t loop_copied_bytes() const;

  /// The weight set later runs use.
  std::shared_ptr<const WeightSet> weights() const;
  /// Number of successful swap_weights calls so far.
  uint64_t weights_generation() const;

  /// The precision runs compute in: SessionOptions::precision, unless a device refused it
  /// (Device::precision: bf16 on a CPU without native bf16, anything but f32 on CUDA).
  Precision precision() const { return options_.precision; }

  /// The mutable buffers carried between runs (shared with the sessions given the same one).
  const std::shared_ptr<SessionState>& state() const { return options_.state; }
  /// Puts the mutated buffers back to their values in the current weights.
  Status reset_state();
  /// The budgeted pool the session streams weights into (SessionOptions::weight_budget);
  /// null when the weights are resident. Give it to another method's session to share it.
  const std::shared_ptr<WeightPool>& weight_pool() const { return options_.weight_pool; }

 private:
  struct Context;
  Session();
  /// The calling thread's context, created on first use, with the current weights bound.
  Result<Context*> context();
  /// `set` bound to the model: resident, or streamed within the weight budget.
  Result<std::shared_ptr<WeightSource>> bind(std::shared_ptr<const WeightSet> set);
  /// Binds `adapter` over the current weights (its modules_to_save overlaid on them).
  Result<std::shared_ptr<const BoundAdapter>> bind_adapter(
      const std::string& name, std::shared_ptr<const LoraAdapter> adapter,
      std::shared_ptr<WeightSource> weights);
  /// The executor `ctx` runs `adapter` on: its own, or one over the adapter's replacements.
  Result<MethodExecutor*> adapter_executor(Context& ctx,
                                           const std::shared_ptr<const BoundAdapter>& adapter);
  /// What every executor of this session is created with.
  ExecutorOptions executor_options() const;
  /// The calling thread's executor, else the first one (for the statistics).
  const MethodExecutor& executor() const;

  std::shared_ptr<const DataSource> model_;
  std::unique_ptr<ir::ModelView> view_;
  /// The method lowered once, at open; read-only, shared by every context's executor.
  std::shared_ptr<const LoweredMethod> program_;
  /// The stream every context's random ops draw from (SessionOptions::seed).
  std::shared_ptr<kernels::RandomStream> random_;
  SessionOptions options_;
  std::string method_name_;
  std::vector<IoSpec> inputs_, outputs_;

  std::mutex admin_mu_;                    // one swap_weights or load_adapter at a time
  mutable std::mutex mu_;                  // guards the members below
  std::shared_ptr<WeightSource> weights_;  // the current set, bound to the model
  uint64_t generation_ = 0;
  std::unordered_map<std::thread::id, std::unique_ptr<Context>> contexts_;
  std::map<std::string, std::shared_ptr<const BoundAdapter>, std::less<>> adapters_;
};

/// How to open the weight file for a session with `options`: as given, except that a
/// streamed session (weight_budget or weight_pool) leaves checksums and inflation to the
/// streaming reader, which does both per tensor as it reads it.
WeightSetOptions weight_open_options(const SessionOptions& options);

/// Sets the number of CPU threads kernels use (OpenMP / oneDNN), process-wide: at most the
/// CPUs this process may run on (a larger count is capped, with a warning on stderr; see
/// core/threads.h). 0 or less keeps the current count. Returns the count in force.
int set_num_threads(int threads);

}  // namespace tir
