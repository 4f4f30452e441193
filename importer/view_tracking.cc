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

bool GraphBuilder::meta_layout(int32_t v, std::vector<int64_t>* sizes,
                               std::vector<int64_t>* strides) const {
  const Json* meta = json_get(*tensor_values_, value_meta_names_[v]);
  for (const auto& [key, out] : {std::pair("sizes", sizes), std::pair("strides", strides)}) {
    const Json* list = meta ? json_get(*meta, key) : nullptr;
    if (!list || !list->is_array()) return false;
    out->clear();
    for (const Json& e : *list) {
      const Json* i = json_get(e, "as_int");
      if (!i || !i->is_number_integer()) return false;  // symbolic: unknown here
      out->push_back(i->get<int64_t>());
    }
  }
  return sizes->size() == strides->size();
}

bool GraphBuilder::torch_contiguous(int32_t v) const {
  std::vector<int64_t> sizes, strides;
  if (!meta_layout(v, &sizes, &strides)) return false;
  int64_t expect = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] != 1 && strides[d] != expect) return false;
    expect *= sizes[d];
  }
  return true;
}

bool GraphBuilder::torch_reshape_views(int32_t in, int32_t out) const {
  std::vector<int64_t> old_sizes, old_strides, new_sizes, new_strides;
  if (!meta_layout(in, &old_sizes, &old_strides) || !meta_layout(out, &new_sizes, &new_strides))
    return torch_contiguous(in);
  int64_t numel = 1;
  for (int64_t s : old_sizes) numel *= s;
  if (numel == 0 || old_sizes.empty()) return true;
  // torch reshapes without a copy when every run of the new dims covers whole runs of old
  // dims that are laid out one after another in memory (at::detail::computeStride).
  int view_d = static_cast<int>(new_sizes.size()) - 1;
  int64_t base_stride = old_strides.back(), old_numel = 1, new_numel = 1;
  for (int d = static_cast<int>(old_sizes.size()) - 1; d >= 0; --d) {
    old_numel *= old_sizes[size_t(d)];
    const bool chunk_ends = d == 0 || (old_sizes[size_t(d - 1)] != 1 &&
                                       old_strides[size_t(d - 1)] != old_numel * base_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (new_numel < old_numel || new_sizes[size_t(view_d)] == 1))
      new_numel *= new_sizes[size_t(view_d--)];
    if (new_numel != old_numel) return false;
    if (d > 0) {
      base_stride = old_strides[size_t(d - 1)];
      old_numel = new_numel = 1;
    }
  }
  return view_d == -1;
}

void GraphBuilder::record_view(const std::string& op, const std::vector<ArgOffset>& args,
                               const Json& node, const std::vector<int32_t>& outs) {
  const int32_t in = self_value(node);
  if (in < 0 || args.empty()) return;
  if (op == "aten::contiguous" && !torch_contiguous(in)) return;  // torch made a copy
  if ((op == "aten::reshape" || op == "aten::flatten.using_ints" || op == "aten::reshape_as") &&
      !outs.empty() && !torch_reshape_views(in, outs[0]))
    return;  // torch copied an input whose strides no view expresses
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
