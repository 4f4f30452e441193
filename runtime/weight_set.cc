#include "runtime/weight_set.h"

#include "ir/model.h"

namespace tir {

Result<std::shared_ptr<const WeightSet>> WeightSet::open(const std::string& path,
                                                         const WeightSetOptions& options) {
  TIR_ASSIGN_OR_RETURN(auto source, data_source_mmap(path));
  return from_source(std::move(source), options);
}

Result<std::shared_ptr<const WeightSet>> WeightSet::from_source(
    std::shared_ptr<const DataSource> source, const WeightSetOptions& options) {
  TIR_ASSIGN_OR_RETURN(ir::WeightFileView file,
                       ir::WeightFileView::open(source->bytes(), source->name()));
  std::shared_ptr<WeightSet> set(new WeightSet(source, file));
  if (!file.index().entries()) return std::shared_ptr<const WeightSet>(set);
  for (const ir::fb::WeightEntry* e : *file.index().entries()) {
    const std::string name(ir::str(e->name()));
    if (e->compression() != ir::fb::Compression::None)
      return make_error(StatusCode::kUnsupported, "weight file '", source->name(), "': tensor '",
                        name, "' is compressed; compressed weights are not supported yet");
    if (options.verify_checksums)
      TIR_RETURN_IF_ERROR(ir::verify_entry_checksum(file, *e, source->name()));
    Tensor t;
    t.dtype = ir::to_dtype(e->dtype());
    std::vector<int64_t> shape;
    if (e->shape()) shape.assign(e->shape()->begin(), e->shape()->end());
    t.set_shape(shape);
    t.data = const_cast<uint8_t*>(file.stored_bytes(*e).data());  // read-only mapping
    const size_t idx = set->tensors_.size();
    if (!set->by_name_.emplace(name, idx).second)
      return make_error(StatusCode::kCorrupt, "weight file '", source->name(), "': tensor name '",
                        name, "' appears twice");
    if (e->aliases())
      for (const flatbuffers::String* a : *e->aliases()) set->by_name_.emplace(a->str(), idx);
    set->tensors_.push_back(t);
    set->names_.push_back(name);
    set->total_bytes_ += e->byte_size();
  }
  return std::shared_ptr<const WeightSet>(set);
}

const Tensor* WeightSet::find(std::string_view name) const {
  const auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : &tensors_[it->second];
}

}  // namespace tir
