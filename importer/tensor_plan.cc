// Weights and constants: payload configs (data/weights/<m>_weights_config.json,
// data/constants/<m>_constants_config.json) or, for torch <= 2.8, the pickled state dicts
// (Program::pickled_*) -> where each tensor's bytes are.
#include <algorithm>

#include "core/checked_size.h"
#include "core/tensor.h"
#include "importer/graph_builder_impl.h"

namespace tir::importer {
namespace {

struct TensorMeta {
  DType dtype = DType::kUndefined;
  std::vector<int64_t> sizes, strides;
  int64_t storage_offset = 0;
};

Status check_view(const TensorMeta& t, const std::string& file, const std::string& fqn);
bool is_contiguous(const TensorMeta& t);

// Reads a PayloadMeta's tensor_meta; errors name the tensor.
Result<TensorMeta> read_meta(const Json& payload, const std::string& file, const std::string& fqn) {
  auto unsupported = [&](auto... parts) {
    return make_error(StatusCode::kUnsupported, "'", file, "': tensor '", fqn, "' ", parts...);
  };
  auto corrupt = [&](auto... parts) {
    return make_error(StatusCode::kCorrupt, "'", file, "': tensor '", fqn, "' ", parts...);
  };
  if (const Json* p = json_get(payload, "use_pickle"); p && p->is_boolean() && p->get<bool>())
    return unsupported("is stored pickled (a tensor subclass or custom object), not supported yet");
  const Json* m = json_get(payload, "tensor_meta");
  if (!m || !m->is_object()) return unsupported("has no tensor_meta");
  TensorMeta t;
  const Json* dt = json_get(*m, "dtype");
  t.dtype =
      dt && dt->is_number_integer() ? dtype_from_serde(dt->get<int64_t>()) : DType::kUndefined;
  if (t.dtype == DType::kUndefined)
    return unsupported("has unsupported dtype ", dt ? json_preview(*dt) : "null");
  for (const char* key : {"sizes", "strides"}) {
    const Json* list = json_get(*m, key);
    if (!list || !list->is_array()) return corrupt("has no ", key);
    for (const Json& s : *list) {
      const Json* i = json_get(s, "as_int");
      if (!i) return unsupported("has a symbolic ", key);
      TIR_ASSIGN_OR_RETURN(const int64_t v, json_int(*i));
      (key[1] == 'i' ? t.sizes : t.strides).push_back(v);
    }
  }
  if (t.sizes.size() != t.strides.size())
    return corrupt("has ", t.sizes.size(), " sizes and ", t.strides.size(), " strides");
  if (const Json* off = json_get(*m, "storage_offset")) {
    const Json* i = off->is_object() ? json_get(*off, "as_int") : off;
    if (!i) return unsupported("has a symbolic storage offset");
    TIR_ASSIGN_OR_RETURN(t.storage_offset, json_int(*i));
  }
  if (t.storage_offset < 0) return corrupt("has a negative storage offset");
  TIR_RETURN_IF_ERROR(check_view(t, file, fqn));
  return t;
}

// Sizes and strides a view of a storage may have: none negative, and the largest element
// offset they reach within what a size can hold.
Status check_view(const TensorMeta& t, const std::string& file, const std::string& fqn) {
  auto corrupt = [&](auto... parts) {
    return make_error(StatusCode::kCorrupt, "'", file, "': tensor '", fqn, "' ", parts...);
  };
  int64_t numel = 1, reach = 0;
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    if (t.sizes[i] < 0) return corrupt("has a negative size");
    if (t.strides[i] < 0) return corrupt("has a negative stride");
    if (t.sizes[i] != 0 && numel > INT64_MAX / 16 / t.sizes[i]) return corrupt("is too large");
    numel *= t.sizes[i];
    if (t.sizes[i] > 1 && t.strides[i] > (INT64_MAX / 16 - reach) / (t.sizes[i] - 1))
      return corrupt("has strides too large");
    if (t.sizes[i] > 1) reach += (t.sizes[i] - 1) * t.strides[i];
  }
  return ok_status();
}

// True when the tensor's elements are one row-major range of its storage.
bool is_contiguous(const TensorMeta& t) {
  int64_t expect = 1;
  for (size_t i = t.sizes.size(); i-- > 0;) {
    if (t.sizes[i] == 0) return true;
    if (t.sizes[i] != 1 && t.strides[i] != expect) return false;
    expect *= t.sizes[i];
  }
  return true;
}

struct FoundTensor {
  TensorMeta meta;
  std::string member;
};

// A weight's or constant's metadata and blob, from the payload config or the pickle.
Result<FoundTensor> find_tensor(const Program& p, const std::string& fqn, bool weight) {
  const Json& config = *json_get(weight ? p.weights_config : p.constants_config, "config");
  const char* what = weight ? "weight '" : "constant '";
  const std::string& source = weight ? p.weights_source : p.constants_source;
  if (const Json* payload = json_get(config, fqn)) {
    const Json* path = json_get(*payload, "path_name");
    if (!path || !path->is_string())
      return make_error(StatusCode::kCorrupt, "'", p.file, "': ", what, fqn, "' has no path_name");
    TIR_ASSIGN_OR_RETURN(TensorMeta meta, read_meta(*payload, p.file, fqn));
    return FoundTensor{std::move(meta),
                       (weight ? "data/weights/" : "data/constants/") + path->get<std::string>()};
  }
  const auto& table = weight ? p.pickled_weights : p.pickled_constants;
  auto it = table.find(fqn);
  if (it == table.end())
    return make_error(StatusCode::kCorrupt, "'", p.file, "': ", what, fqn, "' is not in ", source);
  const PickledTensor& t = it->second.tensor;
  FoundTensor f{TensorMeta{t.dtype, t.sizes, t.strides, t.storage_offset}, it->second.member};
  if (f.meta.sizes.size() != f.meta.strides.size())
    return make_error(StatusCode::kCorrupt, "'", p.file, "': tensor '", fqn, "' has ",
                      f.meta.sizes.size(), " sizes and ", f.meta.strides.size(), " strides");
  TIR_RETURN_IF_ERROR(check_view(f.meta, p.file, fqn));
  return f;
}

// Locates the bytes of `meta` inside blob `member`.
Result<TensorSource> locate(const Pt2Archive& archive, const std::string& member,
                            const TensorMeta& meta, const std::string& fqn) {
  TIR_ASSIGN_OR_RETURN(const uint64_t blob, archive.size(member));
  const uint64_t item = dtype_size(meta.dtype);
  const std::string what = "'" + archive.path() + "': weight '" + fqn + "'";
  TensorSource src;
  src.member = member;
  TIR_ASSIGN_OR_RETURN(src.byte_size, checked_nbytes(meta.sizes, item, what + " shape"));
  // Both at most kMaxReadLimit, so their sum below cannot wrap.
  TIR_ASSIGN_OR_RETURN(src.offset, checked_nbytes(std::span<const int64_t>(&meta.storage_offset, 1),
                                                  item, what + " storage offset"));
  if (blob == 0 && src.byte_size != 0) {
    src.zeros = true;  // torch writes 0-byte records for fake/empty storages
    return src;
  }
  src.span_bytes = src.byte_size;
  if (src.byte_size != 0 && !is_contiguous(meta)) {
    src.view_sizes = meta.sizes;
    src.view_strides = meta.strides;
    src.item_bytes = item;
    int64_t reach = 0;  // bounded by check_view
    for (size_t i = 0; i < meta.sizes.size(); ++i) reach += (meta.sizes[i] - 1) * meta.strides[i];
    TIR_ASSIGN_OR_RETURN(src.span_bytes, checked_nbytes(std::span<const int64_t>(&reach, 1), item,
                                                        what + " strides"));
    src.span_bytes += item;
  }
  if (src.offset + src.span_bytes > blob)
    return make_error(StatusCode::kCorrupt, "'", archive.path(), "': weight blob '", member,
                      "' for '", fqn, "' has ", blob, " bytes, its metadata needs ",
                      src.offset + src.span_bytes);
  return src;
}

}  // namespace

Result<int32_t> GraphBuilder::weight_for(const std::string& fqn, bool is_buffer) {
  TIR_ASSIGN_OR_RETURN(FoundTensor found, find_tensor(p_, fqn, /*weight=*/true));
  const TensorMeta& meta = found.meta;
  const std::string& member = found.member;
  // Tied weights: same blob, same view -> one entry. Different views of one blob stay apart.
  std::string key = std::to_string(archive_index_) + "#" + member + "|" +
                    std::to_string(int(meta.dtype)) + "|" + std::to_string(meta.storage_offset);
  for (int64_t s : meta.sizes) key += "," + std::to_string(s);
  if (!is_contiguous(meta))
    for (int64_t s : meta.strides) key += "/" + std::to_string(s);
  if (auto it = weight_group_.find(key); it != weight_group_.end()) {
    WeightPlan& w = weights_[it->second];
    if (w.spec.name != fqn &&
        std::find(w.spec.aliases.begin(), w.spec.aliases.end(), fqn) == w.spec.aliases.end()) {
      w.spec.aliases.push_back(fqn);
      tables_.weight_name.emplace(fqn, it->second);
    }
    return it->second;
  }
  TIR_ASSIGN_OR_RETURN(TensorSource src, locate(archive_, member, meta, fqn));
  src.archive = archive_index_;
  // The same name from an earlier method's archive: one entry, if it is the same tensor.
  if (auto it = tables_.weight_name.find(fqn); it != tables_.weight_name.end()) {
    const WeightPlan& w = weights_[it->second];
    if (w.spec.dtype != meta.dtype || w.spec.shape != meta.sizes)
      return make_error(StatusCode::kInvalidArgument, "'", p_.file, "': weight '", fqn, "' is ",
                        dtype_name(meta.dtype), shape_str(meta.sizes),
                        " here but an earlier program has it as ", dtype_name(w.spec.dtype),
                        shape_str(w.spec.shape));
    tables_.shared_weights.emplace_back(it->second, std::move(src));
    weight_group_.emplace(key, it->second);
    return it->second;
  }
  WeightPlan w;
  w.spec.name = fqn;
  w.spec.dtype = meta.dtype;
  w.spec.shape = meta.sizes;
  w.is_buffer = is_buffer;
  w.source = std::move(src);
  const auto idx = static_cast<int32_t>(weights_.size());
  weights_.push_back(std::move(w));
  weight_group_.emplace(key, idx);
  tables_.weight_name.emplace(fqn, idx);
  return idx;
}

Status GraphBuilder::check_placeholder(const std::string& name, const std::string& fqn, DType dtype,
                                       const std::vector<int64_t>& shape) {
  const Json* meta = json_get(*tensor_values_, name);
  if (!meta) return ok_status();  // add_value treats it as untyped
  const Json* dt = json_get(*meta, "dtype");
  const DType graph_dtype =
      dt && dt->is_number_integer() ? dtype_from_serde(dt->get<int64_t>()) : DType::kUndefined;
  const Json* sizes = json_get(*meta, "sizes");
  bool same = graph_dtype == dtype && sizes && sizes->is_array() && sizes->size() == shape.size();
  for (size_t i = 0; same && i < shape.size(); ++i) {
    const Json* v = json_get((*sizes)[i], "as_int");  // symbolic sizes are not compared
    if (v && v->is_number_integer() && v->get<int64_t>() != shape[i]) same = false;
  }
  if (same) return ok_status();
  json_blame(*meta);
  std::vector<int64_t> graph_shape;
  if (sizes && sizes->is_array())
    for (const Json& d : *sizes)
      if (const Json* v = json_get(d, "as_int"); v && v->is_number_integer())
        graph_shape.push_back(v->get<int64_t>());
      else
        graph_shape.push_back(-1);
  return corrupt("tensor '", fqn, "' is ", dtype_name(dtype), shape_str(shape),
                 " in its payload table but ", dtype_name(graph_dtype), shape_str(graph_shape),
                 " in the graph (placeholder '", name, "')");
}

Result<int32_t> GraphBuilder::constant_for(const std::string& fqn) {
  const std::string key = std::to_string(archive_index_) + "#" + fqn;
  if (auto it = constant_index_.find(key); it != constant_index_.end()) return it->second;
  TIR_ASSIGN_OR_RETURN(FoundTensor found, find_tensor(p_, fqn, /*weight=*/false));
  const TensorMeta& meta = found.meta;
  TIR_ASSIGN_OR_RETURN(TensorSource src, locate(archive_, found.member, meta, fqn));
  src.archive = archive_index_;
  ConstantPlan c;
  c.name = fqn;
  c.dtype = meta.dtype;
  c.shape = meta.sizes;
  c.source = std::move(src);
  const auto idx = static_cast<int32_t>(constants_.size());
  constants_.push_back(std::move(c));
  constant_index_.emplace(key, idx);
  return idx;
}

}  // namespace tir::importer
