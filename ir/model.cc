#include "ir/model.h"

#include "ir/verifier.h"

namespace tir::ir {

Result<ModelView> ModelView::open(std::span<const uint8_t> bytes, std::string_view file) {
  if (bytes.size() < 8 || !fb::ModelBufferHasIdentifier(bytes.data()))
    return make_error(StatusCode::kCorrupt, "'", file, "': not a tir model (bad file identifier)");
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (!fb::VerifyModelBuffer(verifier))
    return make_error(StatusCode::kCorrupt, "'", file, "': model fails FlatBuffers verification");
  const fb::Model* model = fb::GetModel(bytes.data());
  TIR_RETURN_IF_ERROR(verify_model_semantics(*model, file));
  return ModelView(model);
}

const fb::Method* ModelView::method(std::string_view name) const {
  if (!model_->methods()) return nullptr;
  for (const fb::Method* m : *model_->methods())
    if (str(m->name()) == name) return m;
  return nullptr;
}

std::string ModelView::method_names() const {
  std::string names;
  if (!model_->methods()) return names;
  for (const fb::Method* m : *model_->methods()) {
    if (!names.empty()) names += ", ";
    names += str(m->name());
  }
  return names;
}

}  // namespace tir::ir
