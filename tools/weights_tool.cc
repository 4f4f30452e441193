#include "tools/weights_tool.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <ostream>

#include "core/float16.h"
#include "importer/weight_extract.h"
#include "importer/weight_writer.h"
#include "runtime/safetensors_writer.h"
#include "runtime/weight_set.h"

namespace tir::tools {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::string describe(const Tensor& t) {
  return std::string(dtype_name(t.dtype)) + shape_str(t.shape());
}

/// Element `i` of `t` as a double (the dtypes a weight file holds).
double element(const Tensor& t, int64_t i) {
  const uint8_t* p = static_cast<const uint8_t*>(t.data) + i * int64_t(dtype_size(t.dtype));
  auto load = [p]<typename T>(T) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  };
  switch (t.dtype) {
    case DType::kFloat32:
      return load(float{});
    case DType::kFloat64:
      return load(double{});
    case DType::kFloat16:
      return fp16_to_float(load(uint16_t{}));
    case DType::kBFloat16:
      return bf16_to_float(load(uint16_t{}));
    case DType::kInt64:
      return double(load(int64_t{}));
    case DType::kInt32:
      return load(int32_t{});
    case DType::kInt16:
      return load(int16_t{});
    case DType::kInt8:
      return load(int8_t{});
    case DType::kUInt8:
    case DType::kBool:
      return load(uint8_t{});
    case DType::kUndefined:
      break;
  }
  return 0;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double d = std::fabs(element(a, i) - element(b, i));
    if (std::isnan(d)) return d;
    worst = std::max(worst, d);
  }
  return worst;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// `tirc weights pack SRC -o out.safetensors`: every tensor as it is, an alias (tied weight) as
/// a copy under its own name, as torch's safetensors writer needs for tied weights.
Status pack_safetensors(const PackOptions& o, const WeightSet& src, std::ostream& out,
                        Clock::time_point t0) {
  if (o.narrow != DType::kUndefined || o.zstd)
    return make_error(StatusCode::kInvalidArgument, "pack: --dtype and --compress apply to tir ",
                      "weight files, not to '", o.output, "' (safetensors)");
  std::vector<SafetensorsEntry> entries;
  for (size_t i = 0; i < src.size(); ++i) {
    const Tensor& t = src.tensor(i);
    SafetensorsEntry e;
    e.dtype = t.dtype;
    e.shape.assign(t.shape().begin(), t.shape().end());
    e.bytes = {static_cast<const uint8_t*>(t.data), t.nbytes()};
    e.name = src.names()[i];
    entries.push_back(e);
    for (const std::string& alias : src.aliases(i)) {
      e.name = alias;
      entries.push_back(e);
    }
  }
  TIR_RETURN_IF_ERROR(safetensors_write(o.output, entries, {{"format", "pt"}}, o.progress));
  out << "packed " << src.size() << " tensors (" << entries.size() - src.size()
      << " aliases copied) from '" << o.source << "' into '" << o.output << "' (safetensors), "
      << src.total_bytes() << " tensor bytes, " << std::fixed << std::setprecision(1)
      << ms_since(t0) << " ms\n";
  return ok_status();
}

}  // namespace

Status weights_pack(const PackOptions& o, std::ostream& out) {
  const auto t0 = Clock::now();
  TIR_ASSIGN_OR_RETURN(std::shared_ptr<const WeightSet> src, WeightSet::open(o.source));
  if (ends_with(o.output, ".safetensors")) return pack_safetensors(o, *src, out, t0);
  if (o.narrow != DType::kUndefined && o.narrow != DType::kFloat16 && o.narrow != DType::kBFloat16)
    return make_error(StatusCode::kInvalidArgument, "pack: --dtype must be bf16 or fp16");
  importer::WeightWriterOptions wo;
  wo.zstd = o.zstd;
  wo.zstd_level = o.zstd_level;
  TIR_ASSIGN_OR_RETURN(auto writer, importer::WeightWriter::create(o.output, wo));
  size_t narrowed = 0, next_report = 1;
  uint64_t done_bytes = 0;
  uint64_t stored_bytes = 0;
  const size_t n = src->size();
  for (size_t i = 0; i < n; ++i) {
    const Tensor& t = src->tensor(i);
    importer::WeightEntrySpec spec;
    spec.name = src->names()[i];
    spec.aliases = src->aliases(i);
    spec.dtype = t.dtype;
    spec.shape.assign(t.shape().begin(), t.shape().end());
    const bool narrow = o.narrow != DType::kUndefined && t.dtype == DType::kFloat32;
    const uint8_t* bytes = static_cast<const uint8_t*>(t.data);
    if (!narrow) {
      TIR_RETURN_IF_ERROR(writer->add(spec, t.nbytes(), [&](const importer::ChunkSink& sink) {
        return sink({bytes, t.nbytes()});
      }));
    } else {
      spec.stored_dtype = o.narrow;
      ++narrowed;
      const size_t count = size_t(t.numel());
      TIR_RETURN_IF_ERROR(writer->add(spec, count * 2, [&](const importer::ChunkSink& sink) {
        std::vector<uint16_t> chunk;
        for (size_t at = 0; at < count;) {
          const size_t m = std::min<size_t>(count - at, 1 << 16);
          chunk.resize(m);
          for (size_t k = 0; k < m; ++k) {
            float f;
            std::memcpy(&f, bytes + 4 * (at + k), 4);
            chunk[k] = o.narrow == DType::kBFloat16 ? float_to_bf16(f) : float_to_fp16(f);
          }
          TIR_RETURN_IF_ERROR(sink({reinterpret_cast<const uint8_t*>(chunk.data()), m * 2}));
          at += m;
        }
        return ok_status();
      }));
    }
    stored_bytes += writer->written().back().stored_size;
    done_bytes += t.nbytes();
    if (o.progress) o.progress(done_bytes, src->total_bytes());
    if (!o.quiet && n >= 8 && (i + 1) * 4 >= next_report * n) {  // progress at 25%, 50%, 75%
      if (i + 1 < n) out << "packing: " << (i + 1) << "/" << n << " tensors\n" << std::flush;
      next_report = (i + 1) * 4 / n + 1;
    }
  }
  TIR_RETURN_IF_ERROR(writer->finish().status());
  TIR_RETURN_IF_ERROR(writer->commit());
  out << "packed " << n << " tensors from '" << o.source << "' into '" << o.output << "': ";
  if (narrowed) out << narrowed << " float32 stored as " << dtype_name(o.narrow) << ", ";
  out << src->total_bytes() << " tensor bytes -> " << stored_bytes << " stored"
      << (o.zstd ? " (zstd)" : "") << ", file " << writer->file_size() << " bytes, " << std::fixed
      << std::setprecision(1) << ms_since(t0) << " ms\n";
  return ok_status();
}

Status weights_diff(const std::string& path_a, const std::string& path_b, std::ostream& out) {
  TIR_ASSIGN_OR_RETURN(std::shared_ptr<const WeightSet> a, WeightSet::open(path_a));
  TIR_ASSIGN_OR_RETURN(std::shared_ptr<const WeightSet> b, WeightSet::open(path_b));
  size_t common = 0, equal = 0, differ = 0, changed = 0, only_a = 0, only_b = 0;
  double worst = 0;
  std::string worst_name;
  for (size_t i = 0; i < a->size(); ++i) {
    const std::string& name = a->names()[i];
    const Tensor& ta = a->tensor(i);
    const Tensor* tb = b->find(name);
    if (!tb) {
      ++only_a;
      out << "only in A  " << name << "  " << describe(ta) << "\n";
      continue;
    }
    ++common;
    if (ta.dtype != tb->dtype || !ta.same_shape(*tb)) {
      ++changed;
      out << "changed    " << name << "  " << describe(ta) << " -> " << describe(*tb) << "\n";
      continue;
    }
    if (std::memcmp(ta.data, tb->data, ta.nbytes()) == 0) {
      ++equal;
      continue;
    }
    ++differ;
    const double d = max_abs_diff(ta, *tb);
    out << "differs    " << name << "  max abs diff " << std::setprecision(6) << d << "\n";
    if (!(d <= worst)) {
      worst = d;
      worst_name = name;
    }
  }
  for (size_t i = 0; i < b->size(); ++i) {
    const std::string& name = b->names()[i];
    if (a->find(name)) continue;
    ++only_b;
    out << "only in B  " << name << "  " << describe(b->tensor(i)) << "\n";
  }
  out << "summary: " << common << " common (" << equal << " equal, " << differ << " differ, "
      << changed << " changed dtype/shape), " << only_a << " only in A, " << only_b << " only in B";
  if (differ) out << "; largest max abs diff " << worst << " in '" << worst_name << "'";
  out << "\n";
  return ok_status();
}

Status weights_extract(const std::string& program, const std::string& output, std::ostream& out) {
  const auto t0 = Clock::now();
  TIR_ASSIGN_OR_RETURN(importer::ExtractSummary s,
                       importer::extract_weights(
                           program, output, [&](const std::string& line) { out << line << "\n"; }));
  out << "extracted " << s.tensors << " tensors (" << s.bytes << " bytes) into '" << output << "', "
      << std::fixed << std::setprecision(1) << ms_since(t0) << " ms\n";
  return ok_status();
}

}  // namespace tir::tools
