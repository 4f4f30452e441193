#include "ir/model.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/read_limits.h"
#include "ir/verifier.h"

namespace tir::ir {
namespace {

// FlatBuffers tables a model may have per node it is allowed (a node, its arguments and their
// values, the values it defines and their dims): generous, the gpt2, llama and mlp fixtures
// have 10.5 to 13.8.
constexpr uint64_t kMaxTablesPerNode = 64;

}  // namespace

std::vector<uint8_t> model_seal(std::span<const uint8_t> flatbuffer) {
  std::vector<uint8_t> out(flatbuffer.begin(), flatbuffer.end());
  const uint64_t sum = XXH3_64bits(flatbuffer.data(), flatbuffer.size());
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(sum >> (8 * i)));
  out.insert(out.end(), std::begin(kModelTrailerMagic), std::end(kModelTrailerMagic));
  return out;
}

Result<ModelView> ModelView::open(std::span<const uint8_t> bytes, std::string_view file) {
  if (bytes.size() < 8 || !fb::ModelBufferHasIdentifier(bytes.data()))
    return make_error(StatusCode::kCorrupt, "'", file, "': not a tir model (bad file identifier)");
  const bool sealed = bytes.size() >= kModelTrailerSize + 8 &&
                      std::memcmp(bytes.data() + bytes.size() - 8, kModelTrailerMagic, 8) == 0;
  if (sealed) {
    const size_t n = bytes.size() - kModelTrailerSize;
    uint64_t want = 0;
    for (int i = 0; i < 8; ++i) want |= uint64_t(bytes[n + i]) << (8 * i);
    if (XXH3_64bits(bytes.data(), n) != want)
      return make_error(StatusCode::kCorrupt, "'", file,
                        "': checksum mismatch: the model file is damaged");
    bytes = bytes.first(n);
  }
  // FlatBuffers' verifier stops at a number of tables (by default 1,000,000, without saying
  // so). Allow as many as a model within --max-nodes may have, so that the node limit decides
  // (the semantic verifier names the method); a file with more is told why.
  const uint64_t max_tables =
      std::min<uint64_t>(read_limits().max_nodes * kMaxTablesPerNode + kMaxTablesPerNode,
                         std::numeric_limits<flatbuffers::uoffset_t>::max());
  flatbuffers::Verifier verifier(bytes.data(), bytes.size(), 64,
                                 static_cast<flatbuffers::uoffset_t>(max_tables));
  if (!fb::VerifyModelBuffer(verifier)) {
    flatbuffers::Verifier unlimited(bytes.data(), bytes.size(), 64,
                                    std::numeric_limits<flatbuffers::uoffset_t>::max());
    if (fb::VerifyModelBuffer(unlimited))
      return make_error(StatusCode::kCorrupt, "'", file, "': model has more than ", max_tables,
                        " tables, more than ", kMaxTablesPerNode, " per node within the limit of ",
                        read_limits().max_nodes, " nodes (--max-nodes)");
    return make_error(StatusCode::kCorrupt, "'", file, "': model fails FlatBuffers verification");
  }
  const fb::Model* model = fb::GetModel(bytes.data());
  if (!sealed && model->version() >= kFirstSealedModelVersion &&
      model->version() / 100 == kModelVersion / 100)
    return make_error(StatusCode::kCorrupt, "'", file,
                      "': model has no checksum trailer (the file is truncated or damaged)");
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
