#include "runtime/exec/lora_step.h"

#include <algorithm>
#include <array>
#include <map>

#include "kernels/ops/activation_ops.h"

namespace tir {
namespace {

/// Below this many multiply-adds an update runs on the calling thread: a parallel region per
/// update (two per adapted GEMM) costs more than it saves at LLM prefill sizes (GPT-2 small,
/// seq 64, r = 8: 0.4-1.2 M each), most of all when other processes hold the cores.
constexpr int64_t kParallelMacs = int64_t{1} << 22;

/// The ops an adapter may update, with the input slots of x and of the weight.
struct AdaptableOp {
  std::string_view op;
  int x_input, weight_input;
};
constexpr std::array<AdaptableOp, 4> kAdaptable = {{
    {"aten::linear", 0, 1},
    {"aten::addmm", 1, 2},
    {"aten::mm", 0, 1},
    {"aten::matmul", 0, 1},
}};

/// The ops through which a GEMM may read a weight transposed (the core IR's linear with the
/// fusion passes off: mm(x, permute(W, [1, 0]))).
constexpr std::array<std::string_view, 3> kTransposes = {"aten::permute", "aten::t",
                                                         "aten::transpose.int"};

/// The model weight value `v` is, or is a transpose of; -1 when neither.
WeightId weight_behind(const ExecGraph& g, const std::vector<int32_t>& producer, int32_t v) {
  if (v < 0) return -1;
  if (g.values[size_t(v)].weight >= 0) return g.values[size_t(v)].weight;
  const int32_t p = producer[size_t(v)];
  if (p < 0) return -1;
  const ExecNode& n = g.nodes[size_t(p)];
  const bool transpose =
      std::find(kTransposes.begin(), kTransposes.end(), n.op) != kTransposes.end();
  if (!transpose || n.inputs.empty() || n.inputs[0] < 0) return -1;
  return g.values[size_t(n.inputs[0])].weight;
}

}  // namespace

Result<std::shared_ptr<const BoundAdapter>> BoundAdapter::bind(
    std::string name, std::shared_ptr<const LoraAdapter> adapter, const ExecGraph& graph,
    const ir::fb::Model& model, const WeightSet& set, std::shared_ptr<WeightSource> replacements) {
  std::shared_ptr<BoundAdapter> b(new BoundAdapter());
  b->name_ = std::move(name);
  b->replacements_ = std::move(replacements);
  std::map<int32_t, size_t> by_slot;  // weight set slot -> update
  const std::vector<LoraUpdate>& updates = adapter->updates();
  for (size_t k = 0; k < updates.size(); ++k) by_slot[set.slot(updates[k].weight)] = k;
  std::vector<bool> used(updates.size(), false);
  std::vector<int32_t> producer(graph.values.size(), -1);
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (int32_t v : graph.nodes[i].outputs)
      if (v >= 0) producer[size_t(v)] = int32_t(i);
  b->by_node_.assign(graph.nodes.size(), -1);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const ExecNode& n = graph.nodes[i];
    for (const AdaptableOp& op : kAdaptable) {
      if (n.op != op.op || n.inputs.size() <= size_t(op.weight_input)) continue;
      const WeightId w = weight_behind(graph, producer, n.inputs[size_t(op.weight_input)]);
      if (w < 0) continue;
      const auto* ref = model.weights()->Get(w);
      const auto it = by_slot.find(set.slot(ir::str(ref->name())));
      if (it == by_slot.end()) continue;
      used[it->second] = true;
      b->by_node_[i] = int32_t(b->nodes_.size());
      b->nodes_.push_back({&updates[it->second], op.x_input});
    }
  }
  for (size_t k = 0; k < updates.size(); ++k)
    if (!used[k])
      return make_error(StatusCode::kNotFound, "adapter '", adapter->path(), "': module '",
                        updates[k].module, "' (weight '", updates[k].weight,
                        "') is read by no linear/addmm/mm/matmul node of method '",
                        ir::str(graph.method->name()), "'");
  b->adapter_ = std::move(adapter);
  return std::shared_ptr<const BoundAdapter>(std::move(b));
}

Result<std::shared_ptr<LoraActivation>> LoraActivation::make(kernels::ops::UnaryKind act,
                                                             Device& device, const Tensor& y) {
  const kernels::ops::ActivationOp* a_op = kernels::ops::activation_op(act);
  if (!a_op) return std::shared_ptr<LoraActivation>();
  const std::string_view op = a_op->op;
  // gelu's default is spelled out; the others take no argument.
  const std::string_view approximate = a_op->approximate;
  const kernels::KernelEntry* entry = device.find_kernel(op, DType::kFloat32);
  if (!entry) return std::shared_ptr<LoraActivation>();
  auto a = std::make_shared<LoraActivation>();
  a->kernel_ = entry->make();
  a->args_[0] = {.kind = kernels::ArgKind::kTensor, .i = 0, .name = "self"};
  a->args_[1] = {.kind = kernels::ArgKind::kString, .s = approximate, .name = "approximate"};
  a->in_[0] = a->out_[0] = make_tensor(DType::kFloat32, y.shape(), nullptr);
  a->call_.op = op;
  a->call_.node = "lora activation";
  a->call_.args = std::span<const kernels::Arg>(a->args_.data(), approximate.empty() ? 1 : 2);
  a->call_.inputs = a->in_;
  a->call_.outputs = a->out_;
  a->call_.context = device.context();
  kernels::PrepareInfo info;
  TIR_RETURN_IF_ERROR(a->kernel_->prepare(a->call_, &info));
  if (info.scratch_bytes > 0) return std::shared_ptr<LoraActivation>();
  return a;
}

Status LoraActivation::run(void* data) {
  in_[0].data = out_[0].data = data;  // in place: an elementwise kernel reads each x once
  return kernel_->run(call_, nullptr);
}

Result<int64_t> lora_rows(const LoraNode& node, const Tensor& x, const Tensor& y,
                          std::string_view node_name) {
  const LoraUpdate& u = *node.update;
  const int64_t rows = x.rank > 0 && x.size(-1) == u.in_features ? x.numel() / u.in_features : -1;
  if (x.dtype != DType::kFloat32 || y.dtype != DType::kFloat32 || !x.is_contiguous() || rows < 0 ||
      y.numel() != rows * u.out_features)
    return make_error(StatusCode::kInvalidArgument, "node '", node_name, "': adapter module '",
                      u.module, "' (K ", u.in_features, ", N ", u.out_features,
                      ") does not fit the node's float32 input and output");
  return rows;
}

void lora_down(const LoraUpdate& u, const float* x, int64_t rows, float* t) {
  const int64_t k = u.in_features, r = u.rank;
  const float* a = u.a.data<const float>();
#pragma omp parallel for if (rows * k * r > kParallelMacs)
  for (int64_t m = 0; m < rows; ++m) {
    const float* xr = x + m * k;
    for (int64_t j = 0; j < r; ++j) {
      const float* ar = a + j * k;
      float acc = 0;
#pragma omp simd reduction(+ : acc)
      for (int64_t i = 0; i < k; ++i) acc += xr[i] * ar[i];
      t[m * r + j] = acc;
    }
  }
}

void lora_up(const LoraUpdate& u, const float* t, int64_t rows, float* y) {
  const int64_t n = u.out_features, r = u.rank;
  const float* bt = u.bt.data<const float>();
#pragma omp parallel for if (rows * n * r > kParallelMacs)
  for (int64_t m = 0; m < rows; ++m) {
    float* yr = y + m * n;
    for (int64_t j = 0; j < r; ++j) {
      const float tv = t[m * r + j];
      const float* br = bt + j * n;
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) yr[i] += tv * br[i];
    }
  }
}

}  // namespace tir
