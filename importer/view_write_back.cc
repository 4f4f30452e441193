// In-place writes through views, as the training IR keeps them: torchvision Swin's attention
// mask (`mask[h0:h1, w0:w1] = v`: slice, slice, fill_), Pegasus-X's sinusoidal table
// (`pe[:, :h] = sin(...)`: slice, copy_), RWKV's state (`state[:, :, i] = x`: select, copy_),
// RecurrentGemma's and OLMo-hybrid's scans (`out[:, t] = h`). torch writes through the views
// into the tensor they view (the root), and every view of the root sees the write. tir's
// select, slice and transpose are copies, so an in-place kernel there (copy_, add_, index_put_
// have kernels, for buffers) would write a copy that nothing reads. Such a write is made
// functional the way torch's own functionalisation does it:
//   s1 = slice(root, 0, h0, h1); s2 = select(s1, 1, w); copy_(s2, v)
// becomes
//   y = copy(s2, v); t1 = select_scatter(s1, y, 1, w); t2 = slice_scatter(root, t1, 0, h0, h1)
// and later reads of root read t2; a view of root taken before the write and read after it is
// taken again from t2 (view_tracking.cc). An in-place op on a root that has views is written
// the same way (its views then read the new value). Each view op's write-back
// (write_back_node):
//   select, unbind -> select_scatter; slice, split -> slice_scatter; transpose, t -> itself;
//   permute -> the inverse permute; view, reshape, (un)squeeze, flatten, ... -> reshape_as the
//   input; alias, detach, contiguous -> nothing (the same bytes; a contiguous that copied in
//   torch is no view, view_tracking.cc).
// A write through any other view (expand, diagonal, as_strided, ...), or through a reshape or
// flatten of a tensor torch may have copied (strides no view expresses), is refused with one
// line naming the node. A root that is a parameter or buffer receives the new value with copy_
// (the state the next run reads, as for an in-place write to the buffer itself); a user
// input's later reads read the new value (the caller's tensor is not written).
#include "importer/functionalize.h"
#include "importer/graph_builder_impl.h"
#include "importer/op_renames.h"
#include "kernels/ops/catalogue.h"

namespace tir::importer {
namespace {

bool is_one_of(const std::string& op, std::initializer_list<const char*> ops) {
  for (const char* o : ops)
    if (op == o) return true;
  return false;
}

bool is_reshape(const std::string& op) {
  return is_one_of(
      op, {"aten::view", "aten::_unsafe_view", "aten::reshape", "aten::unsqueeze", "aten::squeeze",
           "aten::squeeze.dim", "aten::squeeze.dims", "aten::flatten.using_ints",
           "aten::unflatten.int", "aten::view_as", "aten::reshape_as"});
}

bool is_same_bytes(const std::string& op) {
  return is_one_of(op, {"aten::alias", "aten::detach", "aten::contiguous"});
}

}  // namespace

bool GraphBuilder::can_write_back(const ViewLink& link) const {
  const std::string& op = link.op;
  // A reshape is linked only where torch's was a view (record_view): its inverse is a
  // reshape back, whatever the strides.
  if (is_one_of(op, {"aten::split.Tensor", "aten::unsafe_split.Tensor"}))
    return link.ints.size() == 1;
  if (is_one_of(op, {"aten::split_with_sizes", "aten::unsafe_split_with_sizes"}))
    return link.ints.size() == link.outs.size();
  if (op == "aten::permute") return !link.ints.empty();
  return is_reshape(op) || is_same_bytes(op) ||
         is_one_of(op, {"aten::select.int", "aten::slice.Tensor", "aten::unbind.int",
                        "aten::transpose.int", "aten::swapaxes", "aten::t", "aten::numpy_T"});
}

Result<bool> GraphBuilder::plan_write_back(const Json& node, const std::string& name,
                                           std::string* op) const {
  const std::string functional = functional_op_name(*op);
  if (functional.empty() || !find_aten_schema(functional)) return false;
  const int32_t self = self_value(node);
  if (self < 0) return false;
  const bool shared = view_root_.count(self) || aliased_values_.count(self);
  // A parameter or buffer written by an op that has no in-place kernel (RWKV divides its
  // weights with div_ under no_grad): the functional op, then copy_ into it, the state the
  // next run reads (emit_write_back).
  const fb::ValueSource source = value_refs_[self].source;
  const bool state_without_kernel =
      (source == fb::ValueSource::Weight || source == fb::ValueSource::Constant) &&
      !kernels::catalogue_has_op(*op, DeviceType::kCpu);
  // A user input written in place (the training IR's x.add_(y) on an input): the functional
  // op, its value the input's from then on and written to the caller's tensor after the run
  // (an input mutation), never the caller's memory during it.
  const bool user_input = source == fb::ValueSource::UserInput;
  // A tensor that shares its memory with no other: the in-place node is exact as it is.
  if (!shared && !state_without_kernel && !user_input) return false;
  for (int32_t v = self; view_root_.count(v); v = view_links_.at(v).input) {
    const ViewLink& link = view_links_.at(v);
    if (!can_write_back(link))
      return unsupported("node '", name, "' (", *op, ") writes in place through '",
                         value_meta_names_[v], "', a view made by ", link.op,
                         ", which tir cannot write back into the tensor it views");
  }
  if (!kernels::catalogue_has_op(functional, DeviceType::kCpu) && !has_rename(functional))
    return unsupported("node '", name, "' (", *op, ") writes in place into '",
                       value_meta_names_[self], "', ",
                       shared       ? "which shares its memory with a view"
                       : user_input ? "a user input"
                                    : "a parameter or buffer",
                       ", and ", functional, ", its functional form, has no kernel");
  *op = functional;
  return true;
}

Result<int32_t> GraphBuilder::write_back_node(const ViewLink& link, int32_t parent, int32_t src,
                                              const NodeSite& site) {
  flatbuffers::FlatBufferBuilder& b = *fbb_;
  auto tensor = [&](const char* name, int32_t v) {
    return fb::CreateArgument(b, b.CreateString(name), fb::ArgValue::TensorArg,
                              fb::CreateTensorArg(b, v).Union());
  };
  auto integer = [&](const char* name, int64_t v) {
    return fb::CreateArgument(b, b.CreateString(name), fb::ArgValue::IntArg,
                              fb::CreateIntArg(b, v).Union());
  };
  const std::string& op = link.op;
  const auto k = static_cast<int64_t>(link.out_index);
  std::string write;
  std::vector<ArgOffset> args;
  if (is_same_bytes(op)) return src;
  if (op == "aten::select.int" || op == "aten::slice.Tensor") {
    write = op == "aten::select.int" ? "aten::select_scatter" : "aten::slice_scatter";
    args = {tensor("self", parent), tensor("src", src)};
    args.insert(args.end(), link.args.begin() + 1, link.args.end());  // dim, start, ... / index
  } else if (op == "aten::unbind.int") {
    write = "aten::select_scatter";
    args = {tensor("self", parent), tensor("src", src), link.args[1], integer("index", k)};
  } else if (op.find("split") != std::string::npos) {  // (self, split_size(s), dim)
    int64_t start = 0, size = link.ints[0];
    if (op.ends_with("with_sizes")) {
      for (int64_t j = 0; j < k; ++j) start += link.ints[j];
      size = link.ints[k];
    } else {
      start = k * size;
    }
    write = "aten::slice_scatter";
    args = {tensor("self", parent),  tensor("src", src),           link.args[2],
            integer("start", start), integer("end", start + size), integer("step", 1)};
  } else if (op == "aten::permute") {
    std::vector<int64_t> inverse(link.ints.size());
    const auto rank = static_cast<int64_t>(link.ints.size());
    for (int64_t i = 0; i < rank; ++i) inverse[(link.ints[i] % rank + rank) % rank] = i;
    write = op;
    args = {tensor("self", src),
            fb::CreateArgument(b, b.CreateString("dims"), fb::ArgValue::IntsArg,
                               fb::CreateIntsArgDirect(b, &inverse).Union())};
  } else if (is_reshape(op)) {
    write = "aten::reshape_as";
    args = {tensor("self", src), tensor("other", parent)};
  } else {  // transpose.int, swapaxes, t, numpy_T: their own inverse
    write = op;
    args = {tensor("self", src)};
    args.insert(args.end(), link.args.begin() + 1, link.args.end());
  }
  TIR_ASSIGN_OR_RETURN(const std::vector<int32_t> outs,
                       emit_added_node(write, std::move(args), {parent}, site));
  return outs[0];
}

Status GraphBuilder::emit_write_back(int32_t view, int32_t y, const NodeSite& site) {
  struct Written {
    int32_t view, value;
    ViewLink link;
  };
  std::vector<Written> written;  // innermost first
  int32_t v = view, cur = y;
  while (view_root_.count(v)) {
    const ViewLink link = view_links_.at(v);
    TIR_ASSIGN_OR_RETURN(const int32_t parent, write_back_node(link, link.input, cur, site));
    written.push_back({v, cur, link});
    v = link.input;
    cur = parent;
  }
  // v is the root, cur its new value. A parameter or buffer (or the copy_ into one that an
  // earlier write-back made) gets it with copy_.
  const auto state = state_of_.find(v);
  const int32_t base = state == state_of_.end() ? v : state->second;
  const fb::ValueSource source = value_refs_[base].source;
  if (source == fb::ValueSource::Weight || source == fb::ValueSource::Constant) {
    flatbuffers::FlatBufferBuilder& b = *fbb_;
    auto tensor = [&](const char* name, int32_t t) {
      return fb::CreateArgument(b, b.CreateString(name), fb::ArgValue::TensorArg,
                                fb::CreateTensorArg(b, t).Union());
    };
    const std::vector<ArgOffset> args = {
        tensor("self", base), tensor("src", cur),
        fb::CreateArgument(b, b.CreateString("non_blocking"), fb::ArgValue::BoolArg,
                           fb::CreateBoolArg(b, false).Union())};
    TIR_ASSIGN_OR_RETURN(const std::vector<int32_t> outs,
                         emit_added_node("aten::copy_", args, {base}, site));
    cur = outs[0];
    state_of_[cur] = base;
  }
  superseded_[v] = cur;
  aliased_values_.insert(cur);
  // Each view written now reads its new value, a view of the new root.
  for (size_t i = 0; i < written.size(); ++i) {
    Written& w = written[i];
    const int32_t parent = i + 1 < written.size() ? written[i + 1].value : cur;
    retaken_[w.view] = w.value;
    if (w.value == parent) continue;  // alias, detach, contiguous: its parent's value
    w.link.input = parent;
    view_links_[w.value] = w.link;
    view_root_[w.value] = cur;
  }
  return ok_status();
}

}  // namespace tir::importer
