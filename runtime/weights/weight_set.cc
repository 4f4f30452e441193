#include "runtime/weights/weight_set.h"

#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numeric>
#include <system_error>
#include <thread>

#include "core/float16.h"
#include "core/quantize.h"
#include "core/quantize_int4.h"
#include "core/threads.h"
#include "ir/model.h"
#include "runtime/weights/layout_cache.h"
#include "runtime/weights/safetensors.h"

namespace tir {
namespace {

Tensor make_view(DType dtype, std::span<const int64_t> shape, const void* data) {
  Tensor t;
  t.dtype = dtype;
  t.set_shape(shape);
  t.data = const_cast<void*>(data);  // weights are read-only; the mapping is MAP_PRIVATE
  return t;
}

/// Widens `count` fp16/bf16 values to float32.
void widen(DType stored, const uint8_t* src, float* dst, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    uint16_t h;
    std::memcpy(&h, src + 2 * i, 2);
    dst[i] = stored == DType::kBFloat16 ? bf16_to_float(h) : fp16_to_float(h);
  }
}

/// Dequantizes an int8 entry into `w`, rows shared out over up to `threads` threads
/// (0 = all cores) when it is large enough to be worth it.
void dequantize_rows(const kernels::QuantizedWeight& q, float* w, int threads) {
  const int64_t n =
      std::min<int64_t>(usable_threads(threads), std::max<int64_t>(1, q.rows * q.cols >> 20));
  parallel_tasks(size_t(n), int(n), [&](size_t part) {
    const int64_t t = int64_t(part), r0 = q.rows * t / n, r1 = q.rows * (t + 1) / n;
    const float* smooth = q.inv_smooth && q.axis == 1 ? q.inv_smooth + r0 : q.inv_smooth;
    if (q.int4()) {
      const Int4View v{
          reinterpret_cast<const uint8_t*>(q.data), q.scales, q.offsets, q.rows, q.cols, q.group};
      dequantize_int4_rows(v, r0, r1, w + r0 * q.cols);
      return;
    }
    dequantize_int8_per_channel(q.data + r0 * q.cols, q.axis == 0 ? q.scales + r0 : q.scales,
                                r1 - r0, q.cols, q.axis, w + r0 * q.cols, smooth);
  });
}

/// Which plain entries a pass of verify_plain_checksums checks.
enum class Checked { kAll, kNotFloat, kFloat };

/// Checks the xxh3 of every plain (uncompressed, not narrowed) entry that `which` selects
/// on up to `threads` threads, the calling one included. Tensors go out largest first, so no
/// thread is left alone with a big one at the end; each is mapped in one go just before it is
/// hashed. The error names the first bad tensor in file order, whichever thread found it.
Status verify_plain_checksums(const ir::WeightFileView& file, const DataSource& source, int threads,
                              Checked which = Checked::kAll) {
  std::vector<const ir::fb::WeightEntry*> plain;  // file order
  for (const ir::fb::WeightEntry* e : *file.index().entries()) {
    const DType dtype = ir::to_dtype(e->dtype());
    if (e->compression() != ir::fb::Compression::None || ir::entry_stored_dtype(*e) != dtype)
      continue;
    if (which == Checked::kAll || (which == Checked::kFloat) == dtype_is_float(dtype))
      plain.push_back(e);
  }
  std::vector<size_t> order(plain.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return plain[a]->stored_size() > plain[b]->stored_size();
  });
  std::vector<uint8_t> bad(plain.size(), 0);  // each slot written by one thread
  parallel_tasks(order.size(), threads, [&](size_t k) {
    const ir::fb::WeightEntry& e = *plain[order[k]];
    source.prefetch(e.offset(), e.stored_size());
    const std::span<const uint8_t> bytes = file.stored_bytes(e);
    bad[order[k]] = ir::content_hash(bytes.data(), bytes.size()) != e.xxh3();
  });
  for (size_t i = 0; i < plain.size(); ++i)
    if (bad[i]) return ir::verify_entry_checksum(file, *plain[i], source.name());
  return ok_status();
}

}  // namespace

/// The floating-point tensors' checksums, checked on a thread of its own (which shares the
/// work out as verify_plain_checksums does). It holds the mapping it reads, so it never
/// outlives its bytes; whoever destroys it last waits for the thread.
struct WeightSet::ChecksumJob {
  ChecksumJob(ir::WeightFileView file, std::shared_ptr<const DataSource> source, int threads)
      : thread([this, file, source, threads] {
          result = verify_plain_checksums(file, *source, threads, Checked::kFloat);
        }) {}
  ~ChecksumJob() { (void)wait(); }  // its result is for verified(), if anyone asked
  Status wait() {
    std::call_once(joined, [this] { thread.join(); });
    return result;
  }

  Status result;  // written by the thread, read after the join
  std::once_flag joined;
  std::thread thread;  // last: starts once the members it writes exist
};

/// Installs the layout cache beside the file into the table's packed cache, if there is a
/// usable one; a bad one is ignored with a line on stderr (it is rewritten after packing).
void WeightSet::attach_layout_cache(Table& table, uint64_t signature) {
  table.layout_cache = layout_cache_path(table.tir_file);
  auto store = layout_cache_open(table.layout_cache, {signature, table.hashes, table.generation});
  if (store.ok()) {
    table.packed_cache->set_store(*std::move(store));
  } else if (store.status().code() != StatusCode::kNotFound) {
    std::fprintf(stderr, "tir: warning: %s; ignored (weights are packed at run time)\n",
                 store.status().message().c_str());
  }
}

Status WeightSet::save_layouts() const {
  const Table& t = *table_;
  if (t.layout_cache.empty() || t.packed_cache->unsaved(t.generation) == 0) return ok_status();
  const auto entries = t.packed_cache->storable(t.generation);
  // Marked saved even when the write fails (a read-only folder): tried once, not every run.
  const Status written =
      layout_cache_write(t.layout_cache, {signature_, t.hashes, t.generation}, entries);
  t.packed_cache->mark_saved(t.generation, entries);
  return written;
}

Status WeightSet::Table::add(const std::string& name, std::vector<std::string> other_names,
                             const Tensor& t) {
  const size_t idx = tensors.size();
  if (!by_name.emplace(name, idx).second)
    return Status(StatusCode::kCorrupt, "tensor name '" + name + "' appears twice");
  for (const std::string& a : other_names) by_name.emplace(a, idx);
  tensors.push_back(t);
  names.push_back(name);
  aliases.push_back(std::move(other_names));
  total_bytes += t.nbytes();
  return ok_status();
}

void WeightSet::Table::set_quantized(const kernels::QuantizedWeight& q) {
  quantized.resize(tensors.size());
  quantized.back() = q;
  dequantization.resize(tensors.size());
  dequantization.back() = std::make_unique<Dequantization>();
}

uint8_t* WeightSet::allocate(size_t bytes) {
  const size_t rounded = (bytes + 63) / 64 * 64 + 64;
  std::shared_ptr<uint8_t> buf(static_cast<uint8_t*>(std::aligned_alloc(64, rounded)), std::free);
  if (!buf) return nullptr;
  owned_bytes_ += bytes;
  keep_.push_back(buf);
  return buf.get();
}

Result<std::shared_ptr<const WeightSet>> WeightSet::open(const std::string& path,
                                                         const WeightSetOptions& options) {
  TIR_ASSIGN_OR_RETURN(auto source, data_source_mmap(path));
  TIR_ASSIGN_OR_RETURN(auto set, from_source(std::move(source), options));
  // Only a file opened here has a place for its layout cache (bytes in memory have none).
  if (options.layout_cache && set->format_ == WeightFormat::kTir)
    attach_layout_cache(*set->table_, set->signature_);
  return set;
}

Result<std::shared_ptr<const WeightSet>> WeightSet::from_source(
    std::shared_ptr<const DataSource> source, const WeightSetOptions& options) {
  const std::span<const uint8_t> bytes = source->bytes();
  if (bytes.size() >= sizeof(ir::kWeightFileMagic) &&
      std::memcmp(bytes.data(), ir::kWeightFileMagic, sizeof(ir::kWeightFileMagic)) == 0)
    return from_tir(std::move(source), options);
  if (safetensors_sniff(bytes)) return from_safetensors(std::move(source));
  return make_error(StatusCode::kCorrupt, "weight file '", source->name(),
                    "': neither a tir weight file nor safetensors (bad magic)");
}

Result<std::shared_ptr<WeightSet::ChecksumJob>> WeightSet::verify_at_open(
    const ir::WeightFileView& file, const std::shared_ptr<const DataSource>& source,
    const WeightSetOptions& options) {
  if (!options.verify_checksums) return std::shared_ptr<ChecksumJob>();
  if (!options.verify_in_background) {
    TIR_RETURN_IF_ERROR(verify_plain_checksums(file, *source, options.verify_threads));
    return std::shared_ptr<ChecksumJob>();
  }
  TIR_RETURN_IF_ERROR(
      verify_plain_checksums(file, *source, options.verify_threads, Checked::kNotFloat));
  try {
    return std::make_shared<ChecksumJob>(file, source, options.verify_threads);
  } catch (const std::system_error&) {  // no thread to be had: check them now
    TIR_RETURN_IF_ERROR(
        verify_plain_checksums(file, *source, options.verify_threads, Checked::kFloat));
    return std::shared_ptr<ChecksumJob>();
  }
}

Result<std::shared_ptr<const WeightSet>> WeightSet::from_tir(
    std::shared_ptr<const DataSource> source, const WeightSetOptions& options) {
  const std::string& path = source->name();
  TIR_ASSIGN_OR_RETURN(ir::WeightFileView file, ir::WeightFileView::open(source->bytes(), path));
  std::shared_ptr<WeightSet> set(new WeightSet());
  set->keep_.push_back(source);
  set->table_->source = source.get();
  set->path_ = path;
  set->signature_ = file.signature();
  set->format_ = WeightFormat::kTir;
  set->table_->tir_file = path;
  set->table_->dequantize_threads = options.verify_threads;
  auto fail = [&](const std::string& name, auto&&... parts) {
    return make_error(StatusCode::kCorrupt, "weight file '", path, "': tensor '", name, "' ",
                      parts...);
  };
  if (!file.index().entries()) return std::shared_ptr<const WeightSet>(set);
  TIR_ASSIGN_OR_RETURN(set->table_->checksums, verify_at_open(file, source, options));
  for (const ir::fb::WeightEntry* e : *file.index().entries()) {
    const std::string name(ir::str(e->name()));
    const DType dtype = ir::to_dtype(e->dtype()), stored = ir::entry_stored_dtype(*e);
    const std::span<const int64_t> shape(e->shape() ? e->shape()->data() : nullptr,
                                         e->shape() ? e->shape()->size() : 0);
    if (shape.size() > size_t(kMaxRank)) return fail(name, "has more than ", kMaxRank, " dims");
    std::span<const uint8_t> raw = file.stored_bytes(*e);
    const bool plain = e->compression() == ir::fb::Compression::None && stored == dtype;
    const bool quantized = stored == DType::kInt8 && dtype != stored;
    kernels::QuantizedWeight q;
    if (!plain && !options.decode) {
      raw = {};
    } else if (!plain) {
      std::vector<uint8_t> narrow;  // inflated bytes that are widened below, then dropped
      if (e->compression() == ir::fb::Compression::Zstd) {
        const bool keep = stored == dtype || quantized;  // int8 bytes stay for int8 kernels
        if (!keep) narrow.resize(e->byte_size());
        uint8_t* out = keep ? set->allocate(e->byte_size()) : narrow.data();
        if (!out) return fail(name, "needs ", e->byte_size(), " bytes: out of memory");
        const size_t got = ZSTD_decompress(out, e->byte_size(), raw.data(), raw.size());
        if (ZSTD_isError(got))
          return fail(name, "does not decompress (zstd: ", ZSTD_getErrorName(got), ")");
        if (got != e->byte_size())
          return fail(name, "decompresses to ", got, " bytes, expected ", e->byte_size());
        raw = {out, got};
      }
      if (ir::content_hash(raw.data(), raw.size()) != e->xxh3())
        return fail(name, "fails its checksum");
      if (quantized) {  // keep the int8 bytes and scales; the graph reads the dequantization
        const Int8Matrix m = int8_matrix(shape.data(), shape.size());
        q = {reinterpret_cast<const int8_t*>(raw.data()),
             reinterpret_cast<const float*>(raw.data() + int8_scales_offset(m.rows * m.cols)),
             m.rows, m.cols, e->quant_axis()};
        if (e->quant_group() > 0) {  // int4 codes, scales [, offsets] (core/quantize_int4.h)
          const Int4View v =
              int4_view(raw.data(), m.rows, m.cols, e->quant_group(), e->quant_offsets());
          q.scales = v.scales;
          q.offsets = v.offsets;
          q.group = v.group;
        }
        if (e->smoothed())  // 1/s per input channel after the scales (core/quantize.h)
          q.inv_smooth = reinterpret_cast<const float*>(
              raw.data() + int8_stored_bytes(q.rows * q.cols, q.axis == 0 ? q.rows : q.cols));
        // Filled on first request (tensor()): the pages of an allocation this size are
        // not touched, so not resident, until then.
        const size_t bytes = size_t(q.rows * q.cols) * sizeof(float);
        uint8_t* out = set->allocate(bytes);
        if (!out) return fail(name, "needs ", bytes, " bytes: out of memory");
        raw = {out, bytes};
      } else if (stored != dtype) {
        const size_t count = raw.size() / dtype_size(stored);
        uint8_t* out = set->allocate(count * sizeof(float));
        if (!out) return fail(name, "needs ", count * sizeof(float), " bytes: out of memory");
        widen(stored, raw.data(), reinterpret_cast<float*>(out), count);
        raw = {out, count * sizeof(float)};
      }
    }
    std::vector<std::string> aliases;
    if (e->aliases())
      for (const flatbuffers::String* a : *e->aliases()) aliases.push_back(a->str());
    if (Status s = set->table_->add(name, std::move(aliases), make_view(dtype, shape, raw.data()));
        !s.ok())
      return make_error(StatusCode::kCorrupt, "weight file '", path, "': ", s.message());
    set->table_->hashes.push_back(e->xxh3());
    if (quantized) set->table_->set_quantized(q);
  }
  return std::shared_ptr<const WeightSet>(set);
}

Result<std::shared_ptr<const WeightSet>> WeightSet::from_safetensors(
    std::shared_ptr<const DataSource> source) {
  TIR_ASSIGN_OR_RETURN(SafetensorsFile file, safetensors_parse(source->bytes(), source->name()));
  std::shared_ptr<WeightSet> set(new WeightSet());
  set->keep_.push_back(source);
  set->table_->source = source.get();
  set->path_ = source->name();
  set->format_ = WeightFormat::kSafetensors;
  for (const SafetensorsEntry& e : file.entries) {
    const void* data = e.bytes.data();
    if (reinterpret_cast<uintptr_t>(data) % dtype_size(e.dtype) != 0) {
      uint8_t* copy = set->allocate(e.bytes.size());
      if (!copy)
        return make_error(StatusCode::kInternal, "safetensors file '", set->path_, "': tensor '",
                          e.name, "' needs ", e.bytes.size(), " bytes: out of memory");
      std::memcpy(copy, e.bytes.data(), e.bytes.size());
      data = copy;
    }
    TIR_RETURN_IF_ERROR(set->table_->add(e.name, {}, make_view(e.dtype, e.shape, data)));
  }
  return std::shared_ptr<const WeightSet>(set);
}

Result<std::shared_ptr<const WeightSet>> WeightSet::overlay(
    std::shared_ptr<const WeightSet> base,
    std::span<const std::shared_ptr<const WeightSet>> deltas) {
  if (!base) return make_error(StatusCode::kInvalidArgument, "overlay: no base weight set");
  std::shared_ptr<WeightSet> set(new WeightSet());
  // An overlay of an overlay is made over the same root: superseded deltas are released
  // (a long-lived session applying partial update after update stays bounded).
  const bool chained = base->format_ == WeightFormat::kOverlay;
  set->root_ = chained ? base->root_ : base;
  set->table_ = base->table_;
  set->replaced_ = base->replaced_;
  set->signature_ = base->signature_;
  set->path_ = base->path_;
  set->format_ = WeightFormat::kOverlay;
  const Table& table = *set->table_;
  for (const std::shared_ptr<const WeightSet>& delta : deltas) {
    if (!delta) return make_error(StatusCode::kInvalidArgument, "overlay: a delta set is null");
    for (size_t i = 0; i < delta->size(); ++i) {
      const std::string& name = delta->names()[i];
      const auto it = table.by_name.find(name);
      if (it == table.by_name.end())
        return make_error(StatusCode::kInvalidArgument, "overlay '", delta->path(), "': tensor '",
                          name, "' is not in the base weights '", base->path(), "'");
      const Tensor& want = table.tensors[it->second];
      const Tensor& got = delta->tensor(i);
      if (got.dtype != want.dtype || !got.same_shape(want))
        return make_error(StatusCode::kInvalidArgument, "overlay '", delta->path(), "': tensor '",
                          name, "' is ", dtype_name(got.dtype), shape_str(got.shape()),
                          ", the base has ", dtype_name(want.dtype), shape_str(want.shape()));
      set->replaced_[it->second] = {got, delta->generation(i), delta};
    }
    // The path names the root and the latest deltas; a long chain is elided in the middle.
    set->path_ += " + " + delta->path();
    if (set->path_.size() > 1024) set->path_ = set->root_->path_ + " + ... + " + delta->path();
  }
  // Keep the root and each delta that still supplies a tensor, once.
  set->keep_.push_back(set->root_);
  set->owned_bytes_ = set->root_->owned_bytes_;
  for (const auto& [slot, r] : set->replaced_) {
    if (std::find(set->keep_.begin(), set->keep_.end(), r.owner) != set->keep_.end()) continue;
    set->keep_.push_back(r.owner);
    set->owned_bytes_ += r.owner->owned_bytes_;
  }
  return std::shared_ptr<const WeightSet>(set);
}

Result<std::shared_ptr<const WeightSet>> WeightSet::open_layers(std::span<const std::string> paths,
                                                                const WeightSetOptions& options) {
  if (paths.empty()) return make_error(StatusCode::kInvalidArgument, "no weight file given");
  TIR_ASSIGN_OR_RETURN(std::shared_ptr<const WeightSet> base, open(paths[0], options));
  if (paths.size() == 1) return base;
  std::vector<std::shared_ptr<const WeightSet>> deltas;
  for (size_t i = 1; i < paths.size(); ++i) {
    TIR_ASSIGN_OR_RETURN(std::shared_ptr<const WeightSet> d, open(paths[i], options));
    deltas.push_back(std::move(d));
  }
  return overlay(std::move(base), deltas);
}

const Tensor& WeightSet::stored_tensor(size_t i) const {
  if (!replaced_.empty())
    if (const auto it = replaced_.find(i); it != replaced_.end()) return it->second.tensor;
  return table_->tensors[i];
}

const Tensor& WeightSet::tensor(size_t i) const {
  const Tensor& t = stored_tensor(i);
  if (const kernels::QuantizedWeight* q = quantized(i)) {
    Table::Dequantization& d = *table_->dequantization[i];
    std::call_once(d.once, [&] {
      dequantize_rows(*q, static_cast<float*>(t.data), table_->dequantize_threads);
      d.done.store(true, std::memory_order_release);
    });
  }
  return t;
}

bool WeightSet::dequantized(size_t i) const {
  return quantized(i) == nullptr || table_->dequantization[i]->done.load(std::memory_order_acquire);
}

const kernels::QuantizedWeight* WeightSet::quantized(size_t i) const {
  if (i >= table_->quantized.size() || !table_->quantized[i].data) return nullptr;
  if (!replaced_.empty() && replaced_.count(i)) return nullptr;
  return &table_->quantized[i];
}

void WeightSet::drop_pages(size_t i, size_t offset, size_t size) const {
  const Table* table = table_.get();
  const Tensor* t = &table->tensors[i];
  if (!replaced_.empty())
    if (const auto it = replaced_.find(i); it != replaced_.end()) {
      table = it->second.owner->table_.get();
      t = &it->second.tensor;
    }
  if (!table->source || !t->data) return;
  const std::span<const uint8_t> mapped = table->source->bytes();
  const auto* p = static_cast<const uint8_t*>(t->data);
  // Owned bytes (inflated, widened, realigned) lie outside the mapping.
  if (p < mapped.data() || p + t->nbytes() > mapped.data() + mapped.size()) return;
  if (offset >= t->nbytes()) return;
  size = std::min(size, t->nbytes() - offset);
  table->source->drop_pages(size_t(p + offset - mapped.data()), size);
}

uint64_t WeightSet::generation(size_t i) const {
  if (!replaced_.empty())
    if (const auto it = replaced_.find(i); it != replaced_.end()) return it->second.generation;
  return table_->generation;
}

int32_t WeightSet::slot(std::string_view name) const {
  const auto it = table_->by_name.find(name);
  return it == table_->by_name.end() ? -1 : int32_t(it->second);
}

uint64_t WeightSet::next_generation() {
  static std::atomic<uint64_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed) + 1;
}

const Tensor* WeightSet::find(std::string_view name) const {
  const auto it = table_->by_name.find(name);
  return it == table_->by_name.end() ? nullptr : &tensor(it->second);
}

Status WeightSet::verified() const {
  if (root_) {
    TIR_RETURN_IF_ERROR(root_->verified());
    for (const auto& [slot, r] : replaced_) TIR_RETURN_IF_ERROR(r.owner->verified());
    return ok_status();
  }
  return table_->checksums ? table_->checksums->wait() : ok_status();
}

Status WeightSet::check_mapped() const {
  if (root_) {
    TIR_RETURN_IF_ERROR(root_->check_mapped());
    for (const auto& [slot, r] : replaced_) TIR_RETURN_IF_ERROR(r.owner->check_mapped());
    return ok_status();
  }
  const DataSource* source = table_->source;
  if (!source) return ok_status();
  const std::span<const uint8_t> mapped = source->bytes();
  const uint64_t now = source->current_size();
  if (now >= mapped.size()) return ok_status();
  std::string first;  // the first tensor (in file order) whose bytes are gone
  uint64_t first_at = UINT64_MAX;
  for (size_t i = 0; i < table_->tensors.size(); ++i) {
    const auto* p = static_cast<const uint8_t*>(table_->tensors[i].data);
    if (p < mapped.data() || p >= mapped.data() + mapped.size()) continue;
    const uint64_t at = uint64_t(p - mapped.data());
    if (at + table_->tensors[i].nbytes() > now && at < first_at) {
      first_at = at;
      first = table_->names[i];
    }
  }
  // Worded as the streaming reader's error for the same event.
  return make_error(StatusCode::kIo, "weight file '", source->name(), "': ",
                    first.empty() ? std::string() : "tensor '" + first + "' cannot be read: ",
                    "the file was truncated since it was opened (now ", now, " bytes, ",
                    mapped.size(), " mapped)");
}

}  // namespace tir
