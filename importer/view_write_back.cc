// In-place ops on slices of an activation, as the training IR keeps them (torchvision Swin's
// attention mask: `mask[h0:h1, w0:w1] = count` is slice, slice, fill_). torch writes through
// the views into the tensor they view; tir has no shared storage between a slice and its
// base, so the write is made functional the way torch's own functionalisation does it:
//   s1 = slice(base, 0, h0, h1); s2 = slice(s1, 1, w0, w1); fill_(s2, v)
// becomes
//   y = fill(s2, v); t1 = slice_scatter(s1, y, 1, w0, w1); t2 = slice_scatter(base, t1, 0, h0, h1)
// and later uses of `base` read t2. Views of base taken before the write (s1, s2, a reshape of
// base) would now differ from torch's; a later node that reads one is refused with one line.
// Only chains of slice.Tensor and select.int are written back; other in-place nodes on views
// stay as they are (the op check then lists them).
#include "importer/functionalize.h"
#include "importer/graph_builder_impl.h"
#include "importer/op_renames.h"
#include "kernels/ops/catalogue.h"

namespace tir::importer {

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

void GraphBuilder::record_view(const std::string& op, const std::vector<ArgOffset>& args,
                               const Json& node, const std::vector<int32_t>& outs) {
  const int32_t in = self_value(node);
  if (in < 0) return;
  const auto r = view_root_.find(in);
  const int32_t root = r == view_root_.end() ? in : r->second;
  for (int32_t o : outs) view_root_[o] = root;
  if ((op == "aten::slice.Tensor" || op == "aten::select.int") && outs.size() == 1)
    view_links_[outs[0]] = {op == "aten::select.int", in, args};
}

bool GraphBuilder::plan_write_back(const Json& node, std::string* op, WriteBack* out) const {
  const std::string functional = functional_op_name(*op);
  if (functional.empty() || !find_aten_schema(functional) ||
      !(kernels::catalogue_has_op(functional, DeviceType::kCpu) || has_rename(functional)) ||
      kernels::catalogue_has_op(*op, DeviceType::kCpu))
    return false;
  int32_t v = self_value(node);
  if (v < 0) return false;
  WriteBack wb;
  for (auto it = view_links_.find(v); it != view_links_.end(); it = view_links_.find(v)) {
    wb.chain.push_back(v);
    v = it->second.input;
  }
  // The root: an activation that is no view itself (its writes are the graph's to make).
  if (view_root_.count(v) || value_refs_[v].source != fb::ValueSource::Activation) return false;
  wb.root = v;
  *op = functional;
  *out = std::move(wb);
  return true;
}

Status GraphBuilder::emit_write_back(const WriteBack& wb, int32_t y, const std::string& node,
                                     const std::string& module_path, const std::string& module_type,
                                     const std::string& source) {
  // Every view of the root taken so far reads the old values from now on.
  for (const auto& [view, root] : view_root_)
    if (root == wb.root) stale_values_.insert(view);
  flatbuffers::FlatBufferBuilder& b = *fbb_;
  auto tensor = [&](const char* name, int32_t value) {
    return fb::CreateArgument(b, b.CreateString(name), fb::ArgValue::TensorArg,
                              fb::CreateTensorArg(b, value).Union());
  };
  int32_t cur = y;
  for (size_t k = 0; k < wb.chain.size(); ++k) {
    const ViewLink& link = view_links_.at(wb.chain[k]);
    const std::string op = link.select ? "aten::select_scatter" : "aten::slice_scatter";
    const std::string name = node + "_write_back_" + std::to_string(k);
    TIR_ASSIGN_OR_RETURN(const int32_t out,
                         add_value(name, fb::ValueKind::Tensor, fb::ValueSource::Activation, -1,
                                   DType::kInt64, 0, value_meta_names_[link.input]));
    std::vector<ArgOffset> args = {tensor("self", link.input), tensor("src", cur)};
    args.insert(args.end(), link.args.begin() + 1, link.args.end());  // dim, start, ... / index
    const std::string full = scope_prefix_ + name;
    nodes_.push_back(fb::CreateNode(b, b.CreateString(full), b.CreateString(op),
                                    b.CreateVector(args), b.CreateVector(std::vector{out}),
                                    b.CreateString(module_path), b.CreateString(module_type),
                                    b.CreateString(source)));
    node_ops_.push_back({op, full});
    cur = out;
  }
  auto& names = scope_ ? *scope_ : value_index_;
  for (auto& [name, value] : names)
    if (value == wb.root) value = cur;
  if (cur != y) view_root_[y] = cur;  // the node's own output views the new root
  return ok_status();
}

Status GraphBuilder::check_not_stale(const Json& node, const std::string& name) const {
  if (stale_values_.empty()) return ok_status();
  const Json* inputs = json_get(node, "inputs");
  const auto& names = scope_ ? *scope_ : value_index_;
  auto check = [&](const Json& t) -> Status {
    const Json* tn = json_get(t, "name");
    if (!tn || !tn->is_string()) return ok_status();
    const auto it = names.find(tn->get<std::string>());
    if (it != names.end() && stale_values_.count(it->second))
      return unsupported("node '", name, "' reads '", tn->get<std::string>(),
                         "', a view taken before an in-place write to the tensor it views "
                         "(tir does not share storage between views)");
    return ok_status();
  };
  for (const Json& in : *inputs) {
    const Json* a = json_get(in, "arg");
    if (!a) continue;
    if (const Json* t = json_get(*a, "as_tensor")) TIR_RETURN_IF_ERROR(check(*t));
    if (const Json* ts = json_get(*a, "as_tensors"); ts && ts->is_array())
      for (const Json& t : *ts) TIR_RETURN_IF_ERROR(check(t));
  }
  return ok_status();
}

}  // namespace tir::importer
