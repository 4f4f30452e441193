// Writes the staged model of a PartitionPlan (tooling/partition/partition.h) and runs the whole
// `tirc partition` job. Methods are rewritten through the FlatBuffers object API: each stage
// unpacks the source method afresh, keeps the values its nodes touch (renumbered), and packs.
#include <algorithm>
#include <iomanip>
#include <ostream>

#include "core/atomic_file.h"
#include "runtime/weights/data_loader.h"
#include "tooling/partition/partition.h"

namespace tir::tools {
namespace {

namespace fb = ir::fb;

void remap_args(fb::NodeT& node, const std::vector<int32_t>& value_map,
                const std::vector<int32_t>& graph_map) {
  for (auto& arg : node.args) {
    if (auto* t = arg->value.AsTensorArg()) t->value = value_map[t->value];
    if (auto* ts = arg->value.AsTensorsArg())
      for (int32_t& v : ts->values)
        if (v >= 0) v = value_map[v];
    if (auto* ga = arg->value.AsGraphArg())
      if (ga->index >= 0) ga->index = graph_map[ga->index];
  }
  for (int32_t& v : node.outputs) v = value_map[v];
}

/// Stage `k` of `plan` as a method named "stage<k>".
std::unique_ptr<fb::MethodT> stage_method(const fb::Method& source, const GraphCost& g,
                                          const StageInfo& s, size_t k) {
  std::unique_ptr<fb::MethodT> m(source.UnPack());
  const size_t nv = m->values.size();
  std::vector<bool> used(nv, false);
  for (int32_t v : s.inputs) used[v] = true;
  for (int32_t v : s.outputs) used[v] = true;
  std::vector<bool> graph_used(m->subgraphs.size(), false);
  for (size_t i = s.first_node; i < s.end_node; ++i) {
    for (int32_t v : g.reads[i]) used[v] = true;
    for (int32_t v : m->nodes[i]->outputs) used[v] = true;
    for (const auto& arg : m->nodes[i]->args)
      if (const auto* ga = arg->value.AsGraphArg())
        if (ga->index >= 0 && size_t(ga->index) < graph_used.size()) graph_used[ga->index] = true;
  }
  auto st = std::make_unique<fb::MethodT>();
  st->name = "stage" + std::to_string(k);
  std::vector<int32_t> value_map(nv, -1), graph_map(m->subgraphs.size(), -1);
  for (size_t v = 0; v < nv; ++v)
    if (used[v]) {
      value_map[v] = int32_t(st->values.size());
      st->values.push_back(std::move(m->values[v]));
    }
  for (size_t j = 0; j < m->subgraphs.size(); ++j)
    if (graph_used[j]) {
      graph_map[j] = int32_t(st->subgraphs.size());
      st->subgraphs.push_back(std::move(m->subgraphs[j]));
    }
  for (size_t i = s.first_node; i < s.end_node; ++i) {
    remap_args(*m->nodes[i], value_map, graph_map);
    st->nodes.push_back(std::move(m->nodes[i]));
  }
  for (int32_t v : s.inputs) {
    fb::ValueT& value = *st->values[value_map[v]];
    value.source = fb::ValueSource::UserInput;  // an activation of an earlier stage
    value.index = -1;
    st->inputs.push_back(value_map[v]);
  }
  for (int32_t v : s.outputs) st->outputs.push_back(value_map[v]);
  st->symbols = std::move(m->symbols);
  return st;
}

Result<std::vector<uint8_t>> staged_model_bytes(const ir::ModelView& view, const fb::Method& method,
                                                const GraphCost& g, const PartitionPlan& plan) {
  const fb::Model& model = view.model();
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::Method>> methods;
  for (size_t k = 0; k < plan.stages.size(); ++k) {
    const auto st = stage_method(method, g, plan.stages[k], k);
    methods.push_back(fb::Method::Pack(fbb, st.get()));
  }
  std::vector<flatbuffers::Offset<fb::WeightRef>> refs;
  if (model.weights())
    for (const fb::WeightRef* w : *model.weights()) {
      const std::unique_ptr<fb::WeightRefT> t(w->UnPack());
      refs.push_back(fb::WeightRef::Pack(fbb, t.get()));
    }
  std::vector<flatbuffers::Offset<fb::Constant>> consts;
  if (model.constants())
    for (const fb::Constant* c : *model.constants()) {
      const auto name = fbb.CreateString(ir::str(c->name()));
      std::vector<int64_t> shape;
      if (c->shape()) shape.assign(c->shape()->begin(), c->shape()->end());
      const auto shape_off = fbb.CreateVector(shape);
      const size_t size = c->data() ? c->data()->size() : 0;
      // force_align 64 exceeds flatbuffers 2.0.8's maximum (see importer/import_pt2.cc).
      fbb.PreAlign(size, 64);
      const auto data = fbb.CreateVector(c->data() ? c->data()->data() : nullptr, size);
      consts.push_back(fb::CreateConstant(fbb, name, c->dtype(), shape_off, data));
    }
  const std::string producer = std::string(ir::str(model.producer())) + "; tirc partition into " +
                               std::to_string(plan.stages.size()) + " stages";
  fbb.Finish(
      fb::CreateModel(fbb, ir::kModelVersion, fbb.CreateString(producer), fbb.CreateVector(methods),
                      fbb.CreateVector(refs), fbb.CreateVector(consts), model.weight_signature()),
      fb::ModelIdentifier());
  return ir::model_seal({fbb.GetBufferPointer(), fbb.GetSize()});  // + checksum trailer
}

std::string mib(uint64_t bytes) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(bytes < (1 << 20) ? 3 : 1) << double(bytes) / (1 << 20);
  return os.str();
}

}  // namespace

Result<PartitionPlan> partition_model(const PartitionOptions& o, std::ostream& out) {
  TIR_ASSIGN_OR_RETURN(auto source, data_source_mmap(o.model_path));
  TIR_ASSIGN_OR_RETURN(ir::ModelView view, ir::ModelView::open(source->bytes(), o.model_path));
  const fb::Method* method = view.method(o.method);
  if (!method)
    return make_error(StatusCode::kNotFound, "model '", o.model_path, "' has no method '", o.method,
                      "' (methods: ", view.method_names(), ")");
  if (method->input_mutations() && method->input_mutations()->size() > 0)
    return make_error(StatusCode::kUnsupported, "method '", ir::str(method->name()),
                      "' writes its inputs (user_input_mutation); a pipeline cannot partition it");
  if (method->mutations() && method->mutations()->size() > 0)
    return make_error(StatusCode::kUnsupported, "model '", o.model_path, "' method '", o.method,
                      "' mutates buffers (", ir::str(method->mutations()->Get(0)->buffer()),
                      "): stages of a stateful method are not supported");
  TIR_ASSIGN_OR_RETURN(GraphCost g, graph_cost(view, *method));
  TIR_ASSIGN_OR_RETURN(std::vector<double> seconds, partition_node_seconds(g, o.profile_path));
  PartitionOptions with_spans = o;
  TIR_ASSIGN_OR_RETURN(with_spans.fused_spans, partition_fused_spans(view, *method));
  auto planned = partition_plan(g, seconds, with_spans);
  if (!planned.ok())
    return make_error(planned.status().code(), "model '", o.model_path,
                      "': ", planned.status().message());
  PartitionPlan plan = std::move(*planned);
  plan.from_profile = !o.profile_path.empty();
  TIR_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, staged_model_bytes(view, *method, g, plan));
  if (auto check = ir::ModelView::open(bytes, o.output_path); !check.ok())
    return make_error(StatusCode::kInternal,
                      "partition produced an invalid model: ", check.status().message());
  TIR_ASSIGN_OR_RETURN(std::unique_ptr<AtomicFile> f, AtomicFile::create(o.output_path));
  TIR_RETURN_IF_ERROR(f->write(bytes));
  TIR_RETURN_IF_ERROR(f->sync());
  TIR_RETURN_IF_ERROR(f->commit());

  out << "partition " << o.model_path << " (method " << o.method << ", " << g.num_nodes
      << " nodes) into " << plan.stages.size() << " stages, cost from "
      << (plan.from_profile ? "profile " + o.profile_path : std::string("FLOP/byte estimate"))
      << ", boundary bandwidth " << o.bandwidth_gbps << " GB/s\n";
  out << "stage  nodes        weights_MiB  compute_ms  in_MiB    out_MiB   predicted_ms\n";
  for (size_t k = 0; k < plan.stages.size(); ++k) {
    const StageInfo& s = plan.stages[k];
    std::ostringstream range;
    range << s.first_node << "-" << s.end_node - 1;
    out << std::left << std::setw(7) << ("stage" + std::to_string(k)) << std::setw(13)
        << range.str() << std::setw(13) << mib(s.weight_bytes) << std::fixed << std::setprecision(3)
        << std::setw(12) << s.compute_ms << std::setw(10) << mib(s.in_bytes) << std::setw(10)
        << mib(s.out_bytes) << s.predicted_ms << "\n"
        << std::right;
  }
  out << "wrote " << o.output_path << " (methods stage0..stage" << plan.stages.size() - 1
      << ", same weight file)\n";
  return plan;
}

}  // namespace tir::tools
