#include "importer/torch_save.h"

namespace tir::importer {
namespace {

constexpr uint64_t kMaxPickleBytes = uint64_t{256} << 20;  // metadata only; tensors are apart

}  // namespace

Result<std::vector<SavedTensor>> read_torch_save(Pt2Archive& archive, const std::string& member) {
  TIR_ASSIGN_OR_RETURN(const uint64_t n, archive.size(member));
  if (n == 0) return std::vector<SavedTensor>{};
  TIR_RETURN_IF_ERROR(archive.mount(member));
  const std::string inner = member + "!/";
  if (archive.has(inner + "byteorder")) {
    TIR_ASSIGN_OR_RETURN(std::string order, archive.read(inner + "byteorder", 64));
    if (trim_text_member(order) != "little")
      return make_error(StatusCode::kUnsupported, "'", archive.path(), "': member '", member,
                        "' has byte order '", trim_text_member(order),
                        "' (only little-endian is supported)");
  }
  TIR_ASSIGN_OR_RETURN(std::string pkl, archive.read(inner + "data.pkl", kMaxPickleBytes));
  const std::string where = "'" + archive.path() + "': member '" + inner + "data.pkl'";
  TIR_ASSIGN_OR_RETURN(
      std::vector<PickledTensor> tensors,
      unpickle_tensor_dict({reinterpret_cast<const uint8_t*>(pkl.data()), pkl.size()}, where));
  std::vector<SavedTensor> out;
  out.reserve(tensors.size());
  for (PickledTensor& t : tensors) {
    std::string storage = inner + "data/" + t.storage_key;
    if (!archive.has(storage))
      return make_error(StatusCode::kCorrupt, where, ": tensor '", t.name, "' uses storage '",
                        t.storage_key, "' but there is no member 'data/", t.storage_key, "'");
    out.push_back(SavedTensor{std::move(t), std::move(storage)});
  }
  return out;
}

}  // namespace tir::importer
