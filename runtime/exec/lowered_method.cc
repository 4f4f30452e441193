#include "runtime/exec/lowered_method.h"

#include "runtime/passes/fusion.h"
#include "runtime/passes/gqa_attention.h"
#include "runtime/passes/int_mm_rewrite.h"
#include "runtime/passes/layout.h"
#include "runtime/passes/linear_rewrite.h"
#include "runtime/passes/narrow_dtypes.h"
#include "runtime/passes/promotion.h"
#include "runtime/passes/quant_rewrite.h"
#include "runtime/passes/state_update.h"

namespace tir {
namespace {

/// LoweredMethod::int8_readers_only of every value, in one pass over the nodes.
std::vector<bool> values_read_as_int8_only(const ExecGraph& g) {
  std::vector<bool> ok(g.values.size(), true);
  for (const ExecNode& n : g.nodes) {
    if (n.dead) continue;
    // Per input slot: held by tensor arguments only, each of them int8-capable. Any other
    // read (a Tensor[] entry, a fused node's batch norm or residual) needs float32.
    std::vector<int8_t> int8_arg(n.inputs.size(), -1);  // -1: no tensor argument holds it
    for (size_t a = 0; a < n.args.size(); ++a) {
      const ExecArg& arg = n.args[a];
      if (arg.kind != kernels::ArgKind::kTensor) continue;
      const bool capable = n.kind == StepKind::kKernel && n.kernel && a < 8 &&
                           (n.kernel->caps.int8_weight >> a & 1u);
      int8_t& slot = int8_arg[size_t(arg.i)];
      slot = int8_t(capable && slot != 0);
    }
    for (size_t s = 0; s < n.inputs.size(); ++s)
      if (int8_arg[s] != 1) ok[size_t(n.inputs[s])] = false;
  }
  for (int32_t v : g.outputs) ok[size_t(v)] = false;
  for (const auto& m : g.mutations) ok[size_t(m.first)] = false;
  for (const auto& m : g.input_mutations) ok[size_t(m.first)] = false;
  return ok;
}

}  // namespace

Result<std::shared_ptr<const LoweredMethod>> LoweredMethod::create(const ir::ModelView& model,
                                                                   const fb::Method& method,
                                                                   const LoweringOptions& options) {
  TIR_RETURN_IF_ERROR(kernels::KernelRegistry::global().registration_status());
  std::shared_ptr<LoweredMethod> lowered(new LoweredMethod());
  lowered->model_ = &model;
  lowered->devices_ = options.devices;
  if (lowered->devices_.empty()) lowered->devices_ = {cpu_device()};
  TIR_ASSIGN_OR_RETURN(lowered->graph_, exec_graph_lower(model, method));
  TIR_RETURN_IF_ERROR(lowered->run_passes(options));
  TIR_ASSIGN_OR_RETURN(lowered->probe_, make_data_dependent_probe(lowered->graph_));
  const ExecGraph& g = lowered->graph_;
  lowered->weight_uses_.resize(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    lowered->weight_uses_[i].node = g.nodes[i].name;
    for (int32_t v : g.nodes[i].inputs)
      if (g.values[v].weight >= 0 && !g.values[v].mutated)
        lowered->weight_uses_[i].weights.push_back(g.values[v].weight);
  }
  lowered->int8_readers_only_ = values_read_as_int8_only(g);
  LoweringOptions sub_options = options;
  sub_options.devices = lowered->devices_;
  sub_options.last_position.clear();
  if (method.subgraphs())
    for (const fb::Method* sub : *method.subgraphs()) {
      TIR_ASSIGN_OR_RETURN(auto sub_lowered, create(model, *sub, sub_options));
      // A branch's or a body's plans are made with the method's (per input shape, before the
      // run): a size read from data computed inside one has nothing to bind it yet.
      if (const DataDependentProbe* probe = sub_lowered->probe())
        return make_error(StatusCode::kUnsupported, "node '", probe->binds.front().node,
                          "' sizes its output from data computed inside a torch.cond branch or "
                          "a loop body, not supported yet");
      lowered->subgraphs_.push_back(std::move(sub_lowered));
    }
  return std::shared_ptr<const LoweredMethod>(std::move(lowered));
}

Status LoweredMethod::run_passes(const LoweringOptions& options) {
  ExecGraph& g = graph_;
  TIR_RETURN_IF_ERROR(keep_last_position(g, options.last_position).status());
  promote_operands(g);  // casts before placement, which picks kernels by dtype
  // The passes share one def-use index, built again after each pass that changes the nodes.
  DefUse def_use = exec_graph_def_use(g);
  update_state_in_place(g, def_use);  // before placement picks the kernels
  if (options.fuse) {
    const size_t quantized =
        rewrite_quantized_linears(g, def_use) + rewrite_int_mm_weights(g, def_use);
    const size_t linears = rewrite_weight_gemms_as_linear(g, def_use);
    if (quantized + linears + read_grouped_kv_in_place(g, def_use) > 0) {
      exec_graph_remove_dead(g);
      def_use = exec_graph_def_use(g);
    }
  }
  // After the GEMM rewrites (a half-precision weight's permute + addmm is one linear that
  // reads the weight as stored), before placement, which picks kernels by dtype.
  if (compute_narrow_dtypes_wide(g) > 0) def_use = exec_graph_def_use(g);
  TIR_RETURN_IF_ERROR(place_nodes(g, devices_, options.placement));  // nodes stay as they are
  if (read_half_weights_as_stored(g) > 0) {  // the kernels picked read them (no float32 copy)
    exec_graph_remove_dead(g);
    def_use = exec_graph_def_use(g);
  }
  if (options.fuse && fuse_graph(g, def_use) > 0) {
    exec_graph_remove_dead(g);
    def_use = exec_graph_def_use(g);
  }
  num_copies_ = insert_copies(g, devices_);
  if (num_copies_ > 0) def_use = exec_graph_def_use(g);
  if (options.fuse) choose_channels_last(g, def_use);
  return ok_status();
}

size_t LoweredMethod::num_nodes() const {
  return graph_.method->nodes() ? graph_.method->nodes()->size() : 0;
}

size_t LoweredMethod::num_copies() const {
  size_t n = num_copies_;
  for (const auto& sub : subgraphs_) n += sub->num_copies();
  return n;
}

}  // namespace tir
