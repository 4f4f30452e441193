#include "tooling/weights/weights_tool.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <map>
#include <numeric>
#include <ostream>

#include "core/float16.h"
#include "core/quantize.h"
#include "core/quantize_int4.h"
#include "importer/weight_extract.h"
#include "importer/weight_order.h"
#include "importer/weight_writer.h"
#include "ir/model.h"
#include "runtime/weights/safetensors_writer.h"
#include "runtime/weights/weight_set.h"
#include "tooling/weights/int8_plan.h"

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
    default:  // complex: max_abs_diff reads its parts
      break;
  }
  return 0;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  // A complex tensor compares part by part (real and imaginary), as two floats per element.
  Tensor pa = a, pb = b;
  pa.dtype = pb.dtype = complex_part_dtype(a.dtype);
  const int64_t n = a.numel() * (dtype_is_complex(a.dtype) ? 2 : 1);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = std::fabs(element(pa, i) - element(pb, i));
    if (std::isnan(d)) return d;
    worst = std::max(worst, d);
  }
  return worst;
}

/// A float32 [rows, cols] tensor as a stored int8 entry: q, padding, scales (core/quantize.h),
/// and with `activation_max` (one per input channel) smoothed: q of w * s, then 1/s.
Result<std::vector<uint8_t>> quantized_bytes(const Tensor& t, int axis,
                                             const std::vector<float>* activation_max,
                                             float alpha) {
  const auto [rows, cols] = int8_matrix(t.shape().data(), t.shape().size());
  const int64_t channels = axis == 0 ? rows : cols, in_channels = axis == 0 ? cols : rows;
  const float* w = t.data_as<const float>();
  if (!activation_max) {
    std::vector<uint8_t> stored(int8_stored_bytes(rows * cols, channels), 0);
    quantize_int8_per_channel(
        w, rows, cols, axis, reinterpret_cast<int8_t*>(stored.data()),
        reinterpret_cast<float*>(stored.data() + int8_scales_offset(rows * cols)));
    return stored;
  }
  if (int64_t(activation_max->size()) != in_channels)
    return make_error(StatusCode::kInternal, "pack: calibration has ", activation_max->size(),
                      " input channels for a weight with ", in_channels);
  // Input channel of element (r, c): c for linear's [N, K] (axis 0), r for [K, N] (axis 1).
  std::vector<float> w_max(size_t(in_channels), 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      float& m = w_max[size_t(axis == 0 ? c : r)];
      m = std::max(m, std::fabs(w[r * cols + c]));
    }
  std::vector<float> s(static_cast<size_t>(in_channels));
  for (int64_t k = 0; k < in_channels; ++k)
    s[size_t(k)] = smooth_factor((*activation_max)[size_t(k)], w_max[size_t(k)], alpha);
  std::vector<float> scaled(size_t(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      scaled[size_t(r * cols + c)] = w[r * cols + c] * s[size_t(axis == 0 ? c : r)];
  std::vector<uint8_t> stored(int8_smoothed_bytes(rows * cols, channels, in_channels), 0);
  quantize_int8_per_channel(
      scaled.data(), rows, cols, axis, reinterpret_cast<int8_t*>(stored.data()),
      reinterpret_cast<float*>(stored.data() + int8_scales_offset(rows * cols)));
  float* inv = reinterpret_cast<float*>(stored.data() + int8_stored_bytes(rows * cols, channels));
  for (int64_t k = 0; k < in_channels; ++k) inv[k] = 1.0f / s[size_t(k)];
  return stored;
}

/// The calibration of weight `name` or of one of its aliases, or null.
const std::vector<float>* calibration_of(const PackOptions& o, const std::string& name,
                                         const std::vector<std::string>& aliases) {
  if (!o.activation_max) return nullptr;
  auto it = o.activation_max->find(name);
  for (size_t a = 0; it == o.activation_max->end() && a < aliases.size(); ++a)
    it = o.activation_max->find(aliases[a]);
  return it == o.activation_max->end() ? nullptr : &it->second;
}

/// Whether `list` holds `name` or one of `aliases`.
bool named(const std::vector<std::string>& list, const std::string& name,
           const std::vector<std::string>& aliases) {
  const auto in = [&](const std::string& n) {
    return std::find(list.begin(), list.end(), n) != list.end();
  };
  return in(name) || std::any_of(aliases.begin(), aliases.end(), in);
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

/// The slots of `set` in the order the methods of `model_path` first read them, then the rest.
static Result<std::vector<size_t>> first_use_slots(const std::string& model_path,
                                                   const WeightSet& set) {
  TIR_ASSIGN_OR_RETURN(auto bytes, data_source_mmap(model_path));
  TIR_ASSIGN_OR_RETURN(ir::ModelView view, ir::ModelView::open(bytes->bytes(), model_path));
  const ir::fb::Model& m = view.model();
  const size_t nw = m.weights() ? m.weights()->size() : 0;
  std::vector<size_t> by_weight;
  std::vector<bool> seen_weight(nw, false);
  if (m.methods())
    for (const ir::fb::Method* method : *m.methods())
      importer::weight_first_use_order_add(*method, by_weight, seen_weight);
  std::vector<size_t> order;
  std::vector<bool> seen(set.size(), false);
  for (size_t w : by_weight) {
    const int32_t slot = set.slot(ir::str(m.weights()->Get(w)->name()));
    if (slot >= 0 && !seen[size_t(slot)]) {
      seen[size_t(slot)] = true;
      order.push_back(size_t(slot));
    }
  }
  for (size_t i = 0; i < set.size(); ++i)
    if (!seen[i]) order.push_back(i);
  return order;
}

/// The output must be a file that is neither the source nor the model (by any path to it).
static Status check_pack_output(const PackOptions& o) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(o.output, ec))
    return make_error(StatusCode::kInvalidArgument, "pack: '", o.output,
                      "' is a directory; name the file to write");
  for (const std::string* in : {&o.source, &o.model})
    if (!in->empty() && fs::exists(o.output, ec) && fs::equivalent(o.output, *in, ec))
      return make_error(StatusCode::kInvalidArgument, "pack: '", o.output, "' is the ",
                        in == &o.source ? "source" : "model",
                        "; writing there would destroy it (write elsewhere, then rename)");
  return ok_status();
}

Status weights_pack(const PackOptions& o, std::ostream& out) {
  const auto t0 = Clock::now();
  TIR_RETURN_IF_ERROR(check_pack_output(o));
  TIR_ASSIGN_OR_RETURN(std::shared_ptr<const WeightSet> src, WeightSet::open(o.source));
  if (ends_with(o.output, ".safetensors")) return pack_safetensors(o, *src, out, t0);
  if (o.narrow != DType::kUndefined && o.narrow != DType::kFloat16 &&
      o.narrow != DType::kBFloat16 && o.narrow != DType::kInt8)
    return make_error(StatusCode::kInvalidArgument, "pack: --dtype must be bf16, fp16 or int8");
  std::map<std::string, int> int8_axes;
  std::vector<std::string> int4_kept;  // int4: weights kept int8 (embeddings, lm_head)
  if (o.int4_group != 0) {
    if (o.narrow != DType::kInt8)
      return make_error(StatusCode::kInternal, "pack: int4 groups without --dtype int4");
    if (!int4_group_valid(o.int4_group))
      return make_error(StatusCode::kInvalidArgument, "pack: --group-size must be 32 or 128, got ",
                        o.int4_group);
    if (o.activation_max)
      return make_error(StatusCode::kInvalidArgument,
                        "pack: calibration (SmoothQuant) applies to --dtype int8, not int4");
    if (!o.model.empty()) {
      TIR_ASSIGN_OR_RETURN(int4_kept, int4_kept_int8_weights(o.model));
    }
  } else if (o.int4_asymmetric) {
    return make_error(StatusCode::kInvalidArgument, "pack: --asymmetric applies to --dtype int4");
  }
  if (o.narrow == DType::kInt8) {
    if (o.model.empty())
      return make_error(StatusCode::kInvalidArgument, "pack: --dtype ",
                        o.int4_group ? "int4" : "int8",
                        " needs --model MODEL.tir (it decides which tensors are GEMM weights "
                        "and along which axis to scale them)");
    TIR_ASSIGN_OR_RETURN(int8_axes, int8_weight_axes(o.model));
    for (const std::string& name : o.keep_f32)
      if (int8_axes.erase(name) == 0)
        return make_error(StatusCode::kInvalidArgument, "pack: --keep-f32 '", name,
                          "' is not a GEMM weight of '", o.model, "'");
  } else if (o.activation_max || !o.keep_f32.empty()) {
    return make_error(StatusCode::kInvalidArgument,
                      "pack: calibration and --keep-f32 apply to --dtype int8");
  }
  importer::WeightWriterOptions wo;
  wo.zstd = o.zstd;
  wo.zstd_level = o.zstd_level;
  TIR_ASSIGN_OR_RETURN(auto writer, importer::WeightWriter::create(o.output, wo));
  size_t narrowed = 0, smoothed = 0, next_report = 1, int4_count = 0;
  uint64_t done_bytes = 0;
  uint64_t stored_bytes = 0;
  const size_t n = src->size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  if (!o.model.empty()) {
    TIR_ASSIGN_OR_RETURN(order, first_use_slots(o.model, *src));
  }
  for (size_t k = 0; k < n; ++k) {
    const size_t i = order[k];
    const Tensor& t = src->tensor(i);
    importer::WeightEntrySpec spec;
    spec.name = src->names()[i];
    spec.aliases = src->aliases(i);
    spec.dtype = t.dtype;
    spec.shape.assign(t.shape().begin(), t.shape().end());
    const auto axis = int8_axes.find(spec.name);
    const bool kept = named(o.keep_f32, spec.name, spec.aliases);  // by any of its names
    const bool quantize = !kept && axis != int8_axes.end() && t.dtype == DType::kFloat32 &&
                          int8_shape_valid(size_t(t.rank), axis->second);
    const bool narrow =
        o.narrow != DType::kUndefined && o.narrow != DType::kInt8 && t.dtype == DType::kFloat32;
    const uint8_t* bytes = static_cast<const uint8_t*>(t.data);
    const bool int4 = quantize && o.int4_group > 0 && axis->second == 0 && t.rank == 2 &&
                      t.shape()[1] % o.int4_group == 0 &&
                      !named(int4_kept, spec.name, spec.aliases);
    if (int4) {
      spec.stored_dtype = DType::kInt8;
      spec.quant_axis = 0;
      spec.quant_group = int32_t(o.int4_group);
      spec.quant_offsets = o.int4_asymmetric;
      ++narrowed;
      ++int4_count;
      const int64_t rows = t.shape()[0], cols = t.shape()[1];
      std::vector<uint8_t> stored(int4_stored_bytes(rows, cols, o.int4_group, o.int4_asymmetric));
      quantize_int4_groups(t.data_as<const float>(), rows, cols, o.int4_group, o.int4_asymmetric,
                           stored.data());
      TIR_RETURN_IF_ERROR(writer->add(spec, stored.size(), [&](const importer::ChunkSink& sink) {
        return sink({stored.data(), stored.size()});
      }));
    } else if (quantize) {
      spec.stored_dtype = DType::kInt8;
      spec.quant_axis = int8_t(axis->second);
      ++narrowed;
      const std::vector<float>* calibration = calibration_of(o, spec.name, spec.aliases);
      spec.smoothed = calibration != nullptr;
      smoothed += spec.smoothed;
      TIR_ASSIGN_OR_RETURN(const std::vector<uint8_t> stored,
                           quantized_bytes(t, axis->second, calibration, o.smooth_alpha));
      TIR_RETURN_IF_ERROR(writer->add(spec, stored.size(), [&](const importer::ChunkSink& sink) {
        return sink({stored.data(), stored.size()});
      }));
    } else if (!narrow) {
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
          for (size_t j = 0; j < m; ++j) {
            float f;
            std::memcpy(&f, bytes + 4 * (at + j), 4);
            chunk[j] = o.narrow == DType::kBFloat16 ? float_to_bf16(f) : float_to_fp16(f);
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
    if (!o.quiet && n >= 8 && (k + 1) * 4 >= next_report * n) {  // progress at 25%, 50%, 75%
      if (k + 1 < n) out << "packing: " << (k + 1) << "/" << n << " tensors\n" << std::flush;
      next_report = (k + 1) * 4 / n + 1;
    }
  }
  TIR_RETURN_IF_ERROR(writer->finish().status());
  TIR_RETURN_IF_ERROR(writer->commit());
  out << "packed " << n << " tensors from '" << o.source << "' into '" << o.output << "': ";
  if (int4_count)
    out << int4_count << " float32 stored as int4 (groups of " << o.int4_group << ", "
        << (o.int4_asymmetric ? "asymmetric" : "symmetric") << "), ";
  if (narrowed > int4_count)
    out << narrowed - int4_count << " float32 stored as "
        << (o.narrow == DType::kInt8 ? "int8" : dtype_name(o.narrow))
        << (o.narrow == DType::kInt8 ? " (per-channel scales)" : "") << ", ";
  if (smoothed) out << smoothed << " smoothed (SmoothQuant, alpha " << o.smooth_alpha << "), ";
  out << src->total_bytes() << " tensor bytes -> " << stored_bytes << " stored"
      << (o.zstd ? " (zstd)" : "") << ", file " << writer->file_size() << " bytes, " << std::fixed
      << std::setprecision(1) << ms_since(t0) << " ms\n";
  return ok_status();
}

Result<bool> weights_diff(const std::string& path_a, const std::string& path_b, double tolerance,
                          std::ostream& out) {
  if (!(tolerance >= 0))
    return make_error(StatusCode::kInvalidArgument, "--tolerance must be >= 0, got ", tolerance);
  TIR_ASSIGN_OR_RETURN(std::shared_ptr<const WeightSet> a, WeightSet::open(path_a));
  TIR_ASSIGN_OR_RETURN(std::shared_ptr<const WeightSet> b, WeightSet::open(path_b));
  size_t common = 0, equal = 0, within = 0, differ = 0, changed = 0, only_a = 0, only_b = 0;
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
    const double d = max_abs_diff(ta, *tb);
    if (tolerance > 0 && d <= tolerance) {  // NaN is never within
      ++within;
      continue;
    }
    ++differ;
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
  out << "summary: " << common << " common (" << equal << " equal, ";
  if (tolerance > 0) out << within << " within " << tolerance << ", ";
  out << differ << " differ, " << changed << " changed dtype/shape), " << only_a << " only in A, "
      << only_b << " only in B";
  if (differ) out << "; largest max abs diff " << worst << " in '" << worst_name << "'";
  out << "\n";
  return differ == 0 && changed == 0 && only_a == 0 && only_b == 0;
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
