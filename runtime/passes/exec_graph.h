// ExecGraph: one method lowered once at load from the FlatBuffer into a mutable graph that
// the passes rewrite and the planner reads. Lowering decodes every argument (ints, floats,
// strings, tensor references, symbolic ints kept as expressions to evaluate per shape
// binding), so nothing downstream reads FlatBuffer arguments again.
//
//   lower (exec_graph_lower) -> place (placement.h: device + kernel per node)
//     -> fuse (fusion.h) -> insert copies (placement.h) -> layout (layout.h)
//     -> remove dead nodes -> per shape binding: plan (plan.h) -> run (executor.h)
//
// runtime/exec/lowered_method.h runs that pipeline once per session and method; the passes share
// one def-use index (DefUse), built again after each pass that changes the nodes.
//
// Values keep their declared (symbolic) sizes through the FlatBuffer Value they came from;
// a value a pass makes (a copy to another device) takes those of the value it copies.
// Weights are referenced by WeightId (runtime/weights/weight_source.h), never by pointer.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/model.h"
#include "kernels/kernel.h"
#include "kernels/registry.h"
#include "runtime/weights/weight_source.h"

namespace tir {

/// Index into the executor's devices (0: the primary device, where inputs and outputs live).
using DeviceId = uint8_t;

struct ExecValue {
  const ir::fb::Value* ir = nullptr;  // declared kind, dtype and (symbolic) sizes; never null
  ir::fb::ValueSource source = ir::fb::ValueSource::Activation;
  DType dtype = DType::kUndefined;
  bool is_tensor = false;
  WeightId weight = -1;        // source Weight: Model.weights index
  int32_t constant = -1;       // source Constant: Model.constants index
  DeviceId device = 0;         // where an activation's bytes live: its producer's device
  bool channels_last = false;  // stored N, H, W, C (layout pass)
  bool mutated = false;        // a buffer the method writes: bound to SessionState, not the weights
  /// Declared dim that holds one position, not its declared size (last_position.h); -1: none.
  int8_t last_position_dim = -1;
};

/// One argument, decoded. Tensor references are slots of ExecNode::inputs.
struct ExecArg {
  kernels::ArgKind kind = kernels::ArgKind::kNone;
  int64_t i = 0;  // int, bool, dtype, memory format, layout, device index, tensor slot, graph
  double f = 0;
  std::string_view s;         // string, device type (view into the model's bytes)
  std::string_view name;      // the schema argument's name (view into the model's bytes)
  std::vector<int64_t> ints;  // ints, bools (0/1), tensor slots (-1: None)
  std::vector<double> floats;
  /// Symbolic int(s) to evaluate per binding (kind is kInt / kInts once evaluated).
  const ir::fb::SymExpr* sym = nullptr;
  std::vector<const ir::fb::SymExpr*> syms;
  bool symbolic() const { return sym != nullptr || !syms.empty(); }
};

enum class StepKind : uint8_t {
  kKernel,  // a registry kernel
  kCopy,    // inputs[0] copied to another device (inserted by placement)
  kCond,    // higher_order::cond: the executor runs one of two subgraphs
  kLoop,    // higher_order::while_loop, scan, map_impl: the executor runs subgraphs in a loop
};

struct ExecNode {
  StepKind kind = StepKind::kKernel;
  std::string_view op, name, module_path;  // views into the model's bytes
  int32_t index = -1;            // position in the FlatBuffer method's nodes (-1: made by a pass)
  std::vector<ExecArg> args;     // schema order
  std::vector<int32_t> inputs;   // values, in KernelCall::inputs order
  std::vector<int32_t> outputs;  // values, one per op return
  DeviceId device = 0;
  const kernels::KernelEntry* kernel = nullptr;  // kKernel nodes, set by placement
  // Fusion (fusion.h): attributes of a producer that absorbed the nodes after it.
  std::optional<kernels::ops::UnaryKind> epilogue;  // KernelCall::epilogue
  kernels::BatchNormFold batch_norm;                // its fields are slots of `inputs`
  int residual = -1;                                // slot of `inputs`
  bool fused = false;     // outputs[0] is the group's last value (same numel)
  bool reshaped = false;  // ... declared with other sizes than the producer's own output
  std::string label;      // profiled op name of a fused group: "aten::conv2d+batch_norm+relu"
  bool dead = false;      // absorbed or unused: removed by exec_graph_remove_dead
  /// kCond: subgraph index (Method.subgraphs) of true_fn and false_fn; kLoop: of while_loop's
  /// cond_fn and body_fn, of scan's and map's body (and -1).
  std::array<int32_t, 2> branches{-1, -1};

  std::string_view profile_name() const { return label.empty() ? op : std::string_view(label); }
};

struct ExecGraph {
  const ir::fb::Method* method = nullptr;
  std::vector<ExecValue> values;
  std::vector<ExecNode> nodes;  // topological order
  std::vector<int32_t> inputs, outputs;
  /// BUFFER_MUTATION outputs: (value, buffer name).
  std::vector<std::pair<int32_t, std::string_view>> mutations;
  /// USER_INPUT_MUTATION outputs: (value, signature position of the input it is written to
  /// after the run).
  std::vector<std::pair<int32_t, int32_t>> input_mutations;
  /// Weight values the method writes (in-place targets, mutated buffers), with the buffer
  /// name they bind to in SessionState.
  std::vector<std::pair<int32_t, std::string_view>> state_values;
  size_t num_fused = 0;
  size_t num_channels_last = 0;

  /// Adds a value like `v` (same declared dtype and sizes), an activation on `device`.
  int32_t add_value_like(int32_t v, DeviceId device);
  /// True when `v` is a method output or a buffer mutation (must survive the method).
  bool pinned(int32_t v) const;
};

/// Lowers `method` of `model`. Errors name the node (an argument the runtime cannot decode).
Result<ExecGraph> exec_graph_lower(const ir::ModelView& model, const ir::fb::Method& method);

/// How many times exec_graph_lower has run in this process, all threads together (tests show
/// with it that a session lowers its method once, whatever the number of threads running it).
uint64_t exec_graph_lower_count();

/// Who writes and who reads each value of a graph, over its live nodes (dead ones are
/// skipped): the one def-use index the load-time passes share. A pass that adds, removes,
/// moves or rewires nodes leaves it stale; build it again after such a pass.
struct DefUse {
  /// Per value: the live node that writes it; -1 for inputs, weights and constants.
  std::vector<int32_t> producer;
  /// Per value: the live nodes that read it, in node order, once per input slot holding it.
  std::vector<std::vector<int32_t>> users;
  /// Per value: a method output or a buffer mutation (ExecGraph::pinned).
  std::vector<bool> pinned;

  /// Forgets node `i` as it is now (`n`): before it is rewritten or marked dead.
  void remove_node(int32_t i, const ExecNode& n);
  /// Records node `i` (`n`, live), rewritten in place.
  void add_node(int32_t i, const ExecNode& n);
};

/// The def-use index of `g` as it is now.
DefUse exec_graph_def_use(const ExecGraph& g);

/// A node `aten::_to_copy(from, dtype=dtype)` writing value `to` (made by a pass: promotion
/// and half-precision casts), on `from`'s device and named after it.
ExecNode exec_graph_cast_node(const ExecGraph& g, int32_t from, int32_t to, DType dtype);

/// The dtype that keys the kernel lookup of node `n`: its first tensor input's, else its first
/// output's, else kUndefined.
DType exec_node_key_dtype(const ExecGraph& g, const ExecNode& n);

/// Values declared with the same sizes: equal static sizes, or the same symbolic expression.
bool same_declared_sizes(const ir::fb::Value& a, const ir::fb::Value& b);
/// One dim of each: the same static size or the same symbolic expression.
bool same_declared_dim(const ir::fb::Dim& a, const ir::fb::Dim& b);
/// Values of the same sizes as the passes left them: declared alike and narrowed alike.
bool same_value_sizes(const ExecValue& a, const ExecValue& b);

/// Removes nodes marked dead, keeping the order of the others.
void exec_graph_remove_dead(ExecGraph& g);

/// "aten::add_.Tensor", "aten::relu_" write into their first argument (dunder names such as
/// "aten::__and__.Tensor" do not).
bool op_is_inplace(std::string_view op);

/// Where a node's output size depends on its inputs' values (torch names it by an unbacked
/// symbol that runtime/exec/data_dependent.h binds before the run): output 0's `dim`, and the
/// input value the size is counted from: nonzero's and _unique2's self, masked_select's mask, a
/// boolean mask index's mask (`x[mask]`, `x[:, mask]`; the only index tensor of its index.Tensor),
/// repeat_interleave's repeats tensor, and bincount's self. dim -1: the node has none.
struct DataDependentDim {
  int dim = -1;
  int32_t source = -1;
};
DataDependentDim data_dependent_dim(const ExecGraph& g, const ExecNode& node);

/// "node 'name' (op)", for messages.
std::string node_context(const ExecNode& n);

}  // namespace tir
