// In-place ops on views, as the training IR keeps them: torchvision Swin's attention mask
// (`mask[h0:h1, w0:w1] = count` is slice, slice, fill_), Pegasus-X's sinusoidal table
// (`pe[:, :h] = sin(...)`: slice, copy_), DeepSeek-V4's compressor windows, RWKV's state
// (`state[i] = ...`: select, copy_). torch writes through the views into the tensor they view;
// tir has no shared storage between a view and its base (a slice is a new tensor), so the
// write is made functional the way torch's own functionalisation does it:
//   s1 = slice(base, 0, h0, h1); s2 = slice(s1, 1, w0, w1); fill_(s2, v)
// becomes
//   y = fill(s2, v); t1 = slice_scatter(s1, y, 1, w0, w1); t2 = slice_scatter(base, t1, 0, h0, h1)
// and later uses of `base` read t2. This holds for in-place ops that have a kernel of their own
// too (copy_, add_, index_put_): run on the view, they would write only the view's own copy.
// Links of the chain: slice.Tensor (slice_scatter), select.int (select_scatter), the views that
// keep every element in order (view, reshape, unsqueeze, ...: reshape_as back to the input)
// and the views that are their own inverse (transpose.int, swapaxes, t, numpy_T: the same
// view again). The chain's root is an activation; or a buffer or parameter, which then gets
// the new value with copy_ (the state the next run reads); or a user input, whose later uses
// read the new value (the caller's tensor is not written). An in-place op that has a kernel,
// written through any other view (permute, expand, diagonal, split, ...), is refused with one
// line. An in-place op with a kernel on an activation that has views also becomes functional.
// Views of base taken before the write would now differ from torch's; a later node that
// reads one is refused with one line. Not modelled: reshape/contiguous/flatten of a tensor
// whose strides force torch to copy (then torch's write stays in the copy).
#include <algorithm>

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

/// How a write through the output of view op `op` reaches the view's input.
GraphBuilder::ViewLink::Kind GraphBuilder::view_link_kind(std::string_view op) {
  using Kind = ViewLink::Kind;
  static constexpr std::string_view kSameOrder[] = {
      "aten::view",          "aten::_unsafe_view",      "aten::reshape",   "aten::alias",
      "aten::detach",        "aten::contiguous",        "aten::unsqueeze", "aten::squeeze",
      "aten::squeeze.dim",   "aten::squeeze.dims",      "aten::view_as",   "aten::reshape_as",
      "aten::unflatten.int", "aten::flatten.using_ints"};
  if (op == "aten::slice.Tensor") return Kind::kSlice;
  if (op == "aten::select.int") return Kind::kSelect;
  if (op == "aten::transpose.int" || op == "aten::swapaxes" || op == "aten::t" ||
      op == "aten::numpy_T")
    return Kind::kSelfInverse;
  for (std::string_view v : kSameOrder)
    if (op == v) return Kind::kSameOrder;
  return Kind::kNone;
}

void GraphBuilder::record_view(const std::string& op, const std::vector<ArgOffset>& args,
                               const Json& node, const std::vector<int32_t>& outs) {
  const int32_t in = self_value(node);
  if (in < 0) return;
  const auto r = view_root_.find(in);
  const int32_t root = r == view_root_.end() ? in : r->second;
  for (int32_t o : outs) view_root_[o] = root;
  const ViewLink::Kind kind = outs.size() == 1 ? view_link_kind(op) : ViewLink::Kind::kNone;
  for (int32_t o : outs) view_links_[o] = {kind, in, args, op};
}

Result<bool> GraphBuilder::plan_write_back(const Json& node, const std::string& name,
                                           std::string* op, WriteBack* out) const {
  const std::string functional = functional_op_name(*op);
  if (functional.empty() || !find_aten_schema(functional)) return false;
  int32_t v = self_value(node);
  if (v < 0) return false;
  WriteBack wb;
  auto link = view_links_.find(v);
  for (; link != view_links_.end() && link->second.kind != ViewLink::Kind::kNone;
       link = view_links_.find(v)) {
    wb.chain.push_back(v);
    v = link->second.input;
  }
  const bool has_functional =
      kernels::catalogue_has_op(functional, DeviceType::kCpu) || has_rename(functional);
  const bool has_in_place = kernels::catalogue_has_op(*op, DeviceType::kCpu);
  if (link != view_links_.end() || view_root_.count(v)) {  // through a view of no link
    if (!has_in_place) return false;                       // the op check lists it
    return unsupported("node '", name, "' (", *op, ") writes in place through a view (",
                       link != view_links_.end() ? link->second.op : "a view op",
                       ") that tir cannot write back to the tensor it views");
  }
  const fb::ValueSource source = value_refs_[v].source;
  // An in-place op on a tensor that is no view writes its own memory: its kernel is exact,
  // unless views of that activation were taken before (a slice is a copy in tir): then the
  // write is made functional too, and reading those views later is refused (check_not_stale).
  const bool viewed = source == fb::ValueSource::Activation &&
                      std::any_of(view_root_.begin(), view_root_.end(),
                                  [&](const auto& e) { return e.second == v; });
  if (wb.chain.empty() && has_in_place && !viewed) return false;
  if (!has_functional) {
    if (!has_in_place) return false;  // the op check lists it
    return unsupported("node '", name, "' (", *op, ") writes in place to '", value_meta_names_[v],
                       "', whose earlier views tir does not update");
  }
  if (wb.chain.empty() && source != fb::ValueSource::Activation) return false;
  wb.root = v;
  wb.store_into_root = source == fb::ValueSource::Weight || source == fb::ValueSource::Constant;
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
  auto emit = [&](const std::string& op, std::vector<ArgOffset> args, int32_t meta_of,
                  size_t k) -> Result<int32_t> {
    const std::string name = node + "_write_back_" + std::to_string(k);
    TIR_ASSIGN_OR_RETURN(const int32_t out,
                         add_value(name, fb::ValueKind::Tensor, fb::ValueSource::Activation, -1,
                                   DType::kInt64, 0, value_meta_names_[meta_of]));
    const std::string full = scope_prefix_ + name;
    nodes_.push_back(fb::CreateNode(b, b.CreateString(full), b.CreateString(op),
                                    b.CreateVector(args), b.CreateVector(std::vector{out}),
                                    b.CreateString(module_path), b.CreateString(module_type),
                                    b.CreateString(source)));
    node_ops_.push_back({op, full});
    return out;
  };
  int32_t cur = y;
  for (size_t k = 0; k < wb.chain.size(); ++k) {
    const ViewLink& link = view_links_.at(wb.chain[k]);
    std::vector<ArgOffset> args;
    std::string op;
    switch (link.kind) {
      case ViewLink::Kind::kSlice:
      case ViewLink::Kind::kSelect:  // the base, the new part, then dim, start, ... / index
        op = link.kind == ViewLink::Kind::kSlice ? "aten::slice_scatter" : "aten::select_scatter";
        args = {tensor("self", link.input), tensor("src", cur)};
        args.insert(args.end(), link.args.begin() + 1, link.args.end());
        break;
      case ViewLink::Kind::kSameOrder:
        op = "aten::reshape_as";
        args = {tensor("self", cur), tensor("other", link.input)};
        break;
      case ViewLink::Kind::kSelfInverse:  // the same view again
        op = link.op;
        args = {tensor("self", cur)};
        args.insert(args.end(), link.args.begin() + 1, link.args.end());
        break;
      case ViewLink::Kind::kNone:
        return make_error(StatusCode::kInternal, "node '", node, "': a view link of no kind");
    }
    TIR_ASSIGN_OR_RETURN(cur, emit(op, std::move(args), link.input, k));
  }
  if (wb.store_into_root) {  // the buffer's new value, for the next run
    std::vector<ArgOffset> args = {
        tensor("self", wb.root), tensor("src", cur),
        fb::CreateArgument(b, b.CreateString("non_blocking"), fb::ArgValue::BoolArg,
                           fb::CreateBoolArg(b, false).Union())};
    TIR_RETURN_IF_ERROR(emit("aten::copy_", std::move(args), wb.root, wb.chain.size()).status());
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
