#include "importer/weight_writer.h"

#include <xxhash.h>
#include <zstd.h>

#include <cstring>

#include "ir/model.h"

namespace tir::importer {

Result<std::unique_ptr<WeightWriter>> WeightWriter::create(const std::string& path,
                                                           const WeightWriterOptions& options) {
  TIR_ASSIGN_OR_RETURN(std::unique_ptr<AtomicFile> f, AtomicFile::create(path));
  TIR_RETURN_IF_ERROR(f->write_zeros(sizeof(ir::WeightFileHeader)));  // patched in finish()
  return std::unique_ptr<WeightWriter>(new WeightWriter(std::move(f), options));
}

Status WeightWriter::write_compressed(std::span<const uint8_t> chunk, bool end) {
  if (!zstd_) {
    zstd_.reset(ZSTD_createCCtx(), [](void* c) { ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(c)); });
    if (!zstd_) return make_error(StatusCode::kInternal, "out of memory for a zstd context");
    ZSTD_CCtx_setParameter(static_cast<ZSTD_CCtx*>(zstd_.get()), ZSTD_c_compressionLevel,
                           options_.zstd_level);
    zstd_out_.resize(ZSTD_CStreamOutSize());
  }
  ZSTD_inBuffer in{chunk.data(), chunk.size(), 0};
  for (;;) {
    ZSTD_outBuffer out{zstd_out_.data(), zstd_out_.size(), 0};
    const size_t left = ZSTD_compressStream2(static_cast<ZSTD_CCtx*>(zstd_.get()), &out, &in,
                                             end ? ZSTD_e_end : ZSTD_e_continue);
    if (ZSTD_isError(left))
      return make_error(StatusCode::kInternal, "zstd: ", ZSTD_getErrorName(left));
    TIR_RETURN_IF_ERROR(file_->write({zstd_out_.data(), out.pos}));
    if (end ? left == 0 : in.pos == in.size) return ok_status();
  }
}

Status WeightWriter::add(const WeightEntrySpec& spec, uint64_t byte_size,
                         const ByteProducer& produce) {
  const uint64_t align = ir::kWeightAlignment;
  TIR_RETURN_IF_ERROR(file_->write_zeros((align - file_->size() % align) % align));
  WrittenWeight w;
  w.offset = file_->size();
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(),
                                                                 &XXH3_freeState);
  if (!state) return make_error(StatusCode::kInternal, "out of memory for a hash state");
  XXH3_64bits_reset(state.get());
  uint64_t got = 0;
  TIR_RETURN_IF_ERROR(produce([&](std::span<const uint8_t> chunk) -> Status {
    if (chunk.size() > byte_size - got)
      return make_error(StatusCode::kInternal, "tensor '", spec.name, "' produced more than ",
                        byte_size, " bytes");
    got += chunk.size();
    XXH3_64bits_update(state.get(), chunk.data(), chunk.size());
    return options_.zstd ? write_compressed(chunk, false) : file_->write(chunk);
  }));
  if (options_.zstd) TIR_RETURN_IF_ERROR(write_compressed({}, true));
  if (got != byte_size)
    return make_error(StatusCode::kInternal, "tensor '", spec.name, "' produced ", got,
                      " bytes, expected ", byte_size);
  w.byte_size = byte_size;
  w.stored_size = file_->size() - w.offset;
  w.xxh3 = XXH3_64bits_digest(state.get());
  specs_.push_back(spec);
  written_.push_back(w);
  return ok_status();
}

Result<uint64_t> WeightWriter::finish() {
  flatbuffers::FlatBufferBuilder fbb;
  ir::SignatureBuilder sig;
  std::vector<flatbuffers::Offset<fb::WeightEntry>> entries;
  for (size_t i = 0; i < specs_.size(); ++i) {
    const WeightEntrySpec& s = specs_[i];
    const WrittenWeight& w = written_[i];
    sig.add(s.name, s.dtype, s.shape);
    entries.push_back(fb::CreateWeightEntry(
        fbb, fbb.CreateString(s.name), fbb.CreateVectorOfStrings(s.aliases),
        ir::to_fb_dtype(s.dtype), fbb.CreateVector(s.shape), w.offset, w.stored_size, w.byte_size,
        options_.zstd ? fb::Compression::Zstd : fb::Compression::None, w.xxh3,
        ir::to_fb_dtype(s.stored_dtype), s.quant_axis, s.smoothed, s.quant_group, s.quant_offsets));
  }
  const uint64_t signature = sig.finish();
  fbb.Finish(fb::CreateWeightIndex(fbb, fbb.CreateVector(entries), signature, ir::kWeightAlignment),
             fb::WeightIndexIdentifier());
  const uint64_t align = ir::kWeightAlignment;
  TIR_RETURN_IF_ERROR(file_->write_zeros((align - file_->size() % align) % align));
  ir::WeightFileHeader h{};
  std::memcpy(h.magic, ir::kWeightFileMagic, sizeof(h.magic));
  h.version = ir::kWeightFileVersion;
  h.alignment = ir::kWeightAlignment;
  h.index_offset = file_->size();
  h.index_size = fbb.GetSize();
  h.signature = signature;
  h.file_size = h.index_offset + h.index_size;
  TIR_RETURN_IF_ERROR(file_->write({fbb.GetBufferPointer(), fbb.GetSize()}));
  TIR_RETURN_IF_ERROR(file_->write_at(0, {reinterpret_cast<const uint8_t*>(&h), sizeof(h)}));
  TIR_RETURN_IF_ERROR(file_->sync());
  return signature;
}

}  // namespace tir::importer
