#include "ir/weight_file.h"

// Inlined, so the hash is compiled for the build's CPU baseline (AVX2 at x86-64-v3) rather
// than the shared library's generic SSE2 build: ~25% faster over a weight file.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstring>

#include "core/checked_size.h"
#include "core/quantize.h"
#include "core/quantize_int4.h"
#include "core/tensor.h"
#include "ir/model.h"

namespace tir::ir {

SignatureBuilder::SignatureBuilder() : state_(XXH3_createState()) {
  XXH3_64bits_reset(static_cast<XXH3_state_t*>(state_));
}
SignatureBuilder::~SignatureBuilder() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }

void SignatureBuilder::add(std::string_view name, DType dtype, std::span<const int64_t> shape) {
  auto* s = static_cast<XXH3_state_t*>(state_);
  const uint64_t len = name.size();
  const int64_t d = static_cast<int64_t>(dtype), rank = static_cast<int64_t>(shape.size());
  XXH3_64bits_update(s, &len, sizeof(len));
  XXH3_64bits_update(s, name.data(), name.size());
  XXH3_64bits_update(s, &d, sizeof(d));
  XXH3_64bits_update(s, &rank, sizeof(rank));
  XXH3_64bits_update(s, shape.data(), shape.size_bytes());
}

uint64_t SignatureBuilder::finish() const {
  return XXH3_64bits_digest(static_cast<XXH3_state_t*>(state_));
}

uint64_t content_hash(const void* data, size_t size) { return XXH3_64bits(data, size); }

DType entry_stored_dtype(const fb::WeightEntry& e) {
  return e.stored_dtype() == fb::DType::Undefined ? to_dtype(e.dtype())
                                                  : to_dtype(e.stored_dtype());
}

Result<WeightFileView> WeightFileView::open(std::span<const uint8_t> file, std::string_view path) {
  auto corrupt = [&](auto... parts) {
    return make_error(StatusCode::kCorrupt, "weight file '", path, "': ", parts...);
  };
  WeightFileHeader h;
  if (file.size() < sizeof(h)) return corrupt("too short for a header (", file.size(), " bytes)");
  std::memcpy(&h, file.data(), sizeof(h));
  if (std::memcmp(h.magic, kWeightFileMagic, sizeof(h.magic)) != 0)
    return corrupt("not a tir weight file (bad magic)");
  if (h.version != kWeightFileVersion)
    return corrupt("version ", h.version, " is not supported (expected ", kWeightFileVersion, ")");
  if (h.file_size != file.size())
    return corrupt("size is ", file.size(), " bytes but the header says ", h.file_size,
                   " (truncated?)");
  if (h.alignment < 64 || (h.alignment & (h.alignment - 1)) != 0)
    return corrupt("bad alignment ", h.alignment);
  if (h.index_offset < sizeof(h) || h.index_offset > file.size() ||
      h.index_size > file.size() - h.index_offset)
    return corrupt("index out of range");
  // The FlatBuffers verifier checks alignment relative to the index start only; a misaligned
  // start would make every 8-byte field a misaligned load (found by weight_file_fuzzer).
  if (h.index_offset % 8 != 0) return corrupt("index offset ", h.index_offset, " is not 8-aligned");
  const uint8_t* idx = file.data() + h.index_offset;
  flatbuffers::Verifier verifier(idx, h.index_size);
  if (!fb::VerifyWeightIndexBuffer(verifier)) return corrupt("index fails verification");
  const fb::WeightIndex* index = fb::GetWeightIndex(idx);
  if (index->signature() != h.signature) return corrupt("index and header signatures differ");

  SignatureBuilder sig;
  if (index->entries()) {
    for (const fb::WeightEntry* e : *index->entries()) {
      const std::string_view name = str(e->name());
      if (!dtype_valid(static_cast<int>(e->dtype())))
        return corrupt("tensor '", name, "' has unknown dtype ", int(e->dtype()));
      const size_t rank = e->shape() ? e->shape()->size() : 0;
      if (rank > size_t(kMaxRank) || !elements_aligned(e->shape()))
        return corrupt("tensor '", name, "' has a bad shape");
      const DType stored = entry_stored_dtype(*e);
      const bool quantized = stored == DType::kInt8 && stored != to_dtype(e->dtype());
      if (stored != to_dtype(e->dtype()) &&
          !(to_dtype(e->dtype()) == DType::kFloat32 &&
            (stored == DType::kFloat16 || stored == DType::kBFloat16 || quantized)))
        return corrupt("tensor '", name, "' is ", dtype_name(to_dtype(e->dtype())), " stored as ",
                       dtype_name(stored), " (only float32 may be narrowed)");
      if (quantized && !int8_shape_valid(rank, e->quant_axis()))
        return corrupt("tensor '", name,
                       "' is stored int8 but is neither 2-D with a channel axis of 0 or 1 nor "
                       "3- to 6-D with axis 0 (quant_axis ",
                       int(e->quant_axis()), ", ", rank, " dims)");
      if (e->compression() != fb::Compression::None && e->compression() != fb::Compression::Zstd)
        return corrupt("tensor '", name, "' has unknown compression ", int(e->compression()));
      TIR_ASSIGN_OR_RETURN(const uint64_t nbytes,
                           checked_nbytes(rank ? std::span<const int64_t>(e->shape()->data(), rank)
                                               : std::span<const int64_t>(),
                                          dtype_size(stored),
                                          "weight file '" + std::string(path) + "': tensor '" +
                                              std::string(name) + "' shape"));
      // int8 entries: nbytes counts the values (1 byte each); their scales follow them.
      // A smoothed one has one more float per input channel (the other axis) after them.
      if (e->smoothed() && !quantized)
        return corrupt("tensor '", name, "' is marked smoothed but is not stored int8");
      const bool int4 = e->quant_group() != 0;
      if (int4 &&
          !(quantized && rank == 2 && e->quant_axis() == 0 && !e->smoothed() &&
            int4_group_valid(e->quant_group()) && e->shape()->Get(1) % e->quant_group() == 0))
        return corrupt("tensor '", name, "' is marked int4 (group ", e->quant_group(),
                       ") but is not a 2-D int8-stored tensor with axis 0, unsmoothed, whose ",
                       "columns divide into groups of 32 or 128");
      if (e->quant_offsets() && !int4)
        return corrupt("tensor '", name, "' has int4 offsets but is not stored int4");
      const uint64_t expect =
          int4         ? int4_stored_bytes(e->shape()->Get(0), e->shape()->Get(1), e->quant_group(),
                                           e->quant_offsets())
          : !quantized ? nbytes
          : e->smoothed()
              ? int8_smoothed_bytes(int64_t(nbytes),
                                    e->shape()->Get(flatbuffers::uoffset_t(e->quant_axis())),
                                    e->shape()->Get(flatbuffers::uoffset_t(1 - e->quant_axis())))
              : int8_stored_bytes(int64_t(nbytes),
                                  e->shape()->Get(flatbuffers::uoffset_t(e->quant_axis())));
      if (e->byte_size() != expect)
        return corrupt("tensor '", name, "' has ", e->byte_size(), " bytes, its shape needs ",
                       expect);
      if (e->compression() == fb::Compression::None && e->stored_size() != e->byte_size())
        return corrupt("tensor '", name, "' stored size differs from its byte size");
      if (e->offset() % h.alignment != 0)
        return corrupt("tensor '", name, "' is not aligned to ", h.alignment);
      if (e->offset() < sizeof(h) || e->offset() > h.index_offset ||
          e->stored_size() > h.index_offset - e->offset())
        return corrupt("tensor '", name, "' lies outside the data section");
      std::span<const int64_t> shape;
      if (rank) shape = {e->shape()->data(), rank};
      sig.add(name, to_dtype(e->dtype()), shape);
    }
  }
  if (sig.finish() != h.signature) return corrupt("signature does not match its index");
  return WeightFileView(file, index);
}

const fb::WeightEntry* WeightFileView::find(std::string_view name) const {
  if (!index_->entries()) return nullptr;
  for (const fb::WeightEntry* e : *index_->entries()) {
    if (str(e->name()) == name) return e;
    if (e->aliases()) {
      for (const flatbuffers::String* a : *e->aliases())
        if (str(a) == name) return e;
    }
  }
  return nullptr;
}

Status verify_entry_checksum(const WeightFileView& file, const fb::WeightEntry& e,
                             std::string_view path) {
  if (e.compression() != fb::Compression::None) return ok_status();  // checked on inflate
  const std::span<const uint8_t> bytes = file.stored_bytes(e);
  if (content_hash(bytes.data(), bytes.size()) != e.xxh3())
    return make_error(StatusCode::kCorrupt, "weight file '", path, "': tensor '", str(e.name()),
                      "' fails its checksum");
  return ok_status();
}

}  // namespace tir::ir
