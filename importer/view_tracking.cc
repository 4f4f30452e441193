// Views of activations in the importer: what each view op's output views and how it was
// made, so that a view taken before an in-place write to what it views, and read after it,
// is taken again from the written tensor (torch's views share storage, tir's select, slice
// and transpose are copies). view_write_back.cc makes the writes.
#include "importer/functionalize.h"
#include "importer/graph_builder_impl.h"

namespace tir::importer {
namespace {

/// The integers of input `name` of `node` (as_int or as_ints); empty when absent or symbolic.
std::vector<int64_t> int_input(const Json& node, std::string_view name) {
  std::vector<int64_t> out;
  for (const Json& in : member_or_empty(node, "inputs")) {
    const Json* n = json_get(in, "name");
    const Json* a = json_get(in, "arg");
    if (!n || !a || !n->is_string() || n->get<std::string>() != name) continue;
    if (const Json* i = json_get(*a, "as_int"); i && i->is_number_integer())
      out.push_back(i->get<int64_t>());
    if (const Json* is = json_get(*a, "as_ints"); is && is->is_array())
      for (const Json& i : *is)
        if (i.is_number_integer()) out.push_back(i.get<int64_t>());
  }
  return out;
}

}  // namespace

int32_t GraphBuilder::self_value(const Json& node) const {
  const Json* inputs = json_get(node, "inputs");
  if (!inputs || !inputs->is_array()) return -1;
  const auto& names = scope_ ? *scope_ : value_index_;
  for (const Json& in : *inputs) {
    const Json* n = json_get(in, "name");
    const Json* a = json_get(in, "arg");
    if (!n || !a || !n->is_string() || n->get<std::string>() != "self") continue;
    const Json* t = json_get(*a, "as_tensor");
    const Json* tn = t ? json_get(*t, "name") : nullptr;
    if (!tn || !tn->is_string()) return -1;
    const auto it = names.find(tn->get<std::string>());
    return it == names.end() ? -1 : it->second;
  }
  return -1;
}

bool GraphBuilder::torch_contiguous(int32_t v) const {
  const Json* meta = json_get(*tensor_values_, value_meta_names_[v]);
  const Json* sizes = meta ? json_get(*meta, "sizes") : nullptr;
  const Json* strides = meta ? json_get(*meta, "strides") : nullptr;
  if (!sizes || !strides || !sizes->is_array() || !strides->is_array() ||
      sizes->size() != strides->size())
    return false;
  int64_t expect = 1;
  for (size_t d = sizes->size(); d-- > 0;) {
    const Json* size = json_get((*sizes)[d], "as_int");
    const Json* stride = json_get((*strides)[d], "as_int");
    if (!size || !stride || !size->is_number_integer() || !stride->is_number_integer())
      return false;
    if (size->get<int64_t>() != 1 && stride->get<int64_t>() != expect) return false;
    expect *= size->get<int64_t>();
  }
  return true;
}

void GraphBuilder::record_view(const std::string& op, const std::vector<ArgOffset>& args,
                               const Json& node, const std::vector<int32_t>& outs) {
  const int32_t in = self_value(node);
  if (in < 0 || args.empty()) return;
  if (op == "aten::contiguous" && !torch_contiguous(in)) return;  // torch made a copy
  const auto r = view_root_.find(in);
  const int32_t root = r == view_root_.end() ? in : r->second;
  ViewLink link{op, in, args, outs, 0, {}};
  if (op == "aten::permute") link.ints = int_input(node, "dims");
  if (op == "aten::split.Tensor" || op == "aten::unsafe_split.Tensor")
    link.ints = int_input(node, "split_size");
  if (op == "aten::split_with_sizes" || op == "aten::unsafe_split_with_sizes")
    link.ints = int_input(node, "split_sizes");
  for (size_t k = 0; k < outs.size(); ++k) {
    view_root_[outs[k]] = root;
    link.out_index = k;
    view_links_[outs[k]] = link;
  }
}

Result<std::vector<int32_t>> GraphBuilder::emit_added_node(const std::string& op,
                                                           std::vector<ArgOffset> args,
                                                           const std::vector<int32_t>& like,
                                                           const NodeSite& site) {
  const std::string name =
      site.node + "_" + op.substr(op.find("::") + 2) + "_" + std::to_string(added_nodes_++);
  std::vector<int32_t> outs;
  for (size_t k = 0; k < like.size(); ++k) {
    TIR_ASSIGN_OR_RETURN(
        const int32_t out,
        add_value(name + (k ? "_" + std::to_string(k) : ""), fb::ValueKind::Tensor,
                  fb::ValueSource::Activation, -1, DType::kInt64, 0, value_meta_names_[like[k]]));
    outs.push_back(out);
  }
  flatbuffers::FlatBufferBuilder& b = *fbb_;
  const std::string full = scope_prefix_ + name;
  nodes_.push_back(fb::CreateNode(b, b.CreateString(full), b.CreateString(op), b.CreateVector(args),
                                  b.CreateVector(outs), b.CreateString(site.module_path),
                                  b.CreateString(site.module_type), b.CreateString(site.source)));
  node_ops_.push_back({op, full});
  aliased_values_.insert(outs.begin(), outs.end());
  return outs;
}

Result<int32_t> GraphBuilder::current_value(int32_t v, const NodeSite& site) {
  for (auto it = superseded_.find(v); it != superseded_.end(); it = superseded_.find(v))
    v = it->second;
  const auto root = view_root_.find(v);
  if (root == view_root_.end() || !superseded_.count(root->second)) return v;  // fresh
  if (const auto again = retaken_.find(v); again != retaken_.end()) {
    TIR_ASSIGN_OR_RETURN(const int32_t w, current_value(again->second, site));
    retaken_[v] = w;
    return w;
  }
  // Taken before a write to its root: take it again (with its siblings) from its input as
  // that reads now.
  const ViewLink link = view_links_.at(v);
  TIR_ASSIGN_OR_RETURN(const int32_t input, current_value(link.input, site));
  std::vector<ArgOffset> args = link.args;
  args[0] = fb::CreateArgument(*fbb_, fbb_->CreateString("self"), fb::ArgValue::TensorArg,
                               fb::CreateTensorArg(*fbb_, input).Union());
  TIR_ASSIGN_OR_RETURN(const std::vector<int32_t> outs,
                       emit_added_node(link.op, args, link.outs, site));
  const auto r = view_root_.find(input);
  ViewLink fresh{link.op, input, args, outs, 0, link.ints};
  for (size_t k = 0; k < outs.size(); ++k) {
    view_root_[outs[k]] = r == view_root_.end() ? input : r->second;
    fresh.out_index = k;
    view_links_[outs[k]] = fresh;
    retaken_[link.outs[k]] = outs[k];
  }
  return outs[link.out_index];
}

Status GraphBuilder::refresh_inputs(const Json& node, const NodeSite& site) {
  if (superseded_.empty()) return ok_status();
  auto& names = scope_ ? *scope_ : value_index_;
  auto refresh = [&](const Json& t) -> Status {
    const Json* tn = json_get(t, "name");
    if (!tn || !tn->is_string()) return ok_status();
    const auto it = names.find(tn->get<std::string>());
    if (it == names.end()) return ok_status();
    TIR_ASSIGN_OR_RETURN(const int32_t v, current_value(it->second, site));
    it->second = v;
    return ok_status();
  };
  for (const Json& in : member_or_empty(node, "inputs")) {
    const Json* a = json_get(in, "arg");
    if (!a) continue;
    if (const Json* t = json_get(*a, "as_tensor")) TIR_RETURN_IF_ERROR(refresh(*t));
    for (const char* list : {"as_tensors", "as_optional_tensors"})
      if (const Json* ts = json_get(*a, list); ts && ts->is_array())
        for (const Json& t : *ts)
          TIR_RETURN_IF_ERROR(refresh(json_get(t, "as_tensor") ? t["as_tensor"] : t));
  }
  return ok_status();
}

}  // namespace tir::importer
