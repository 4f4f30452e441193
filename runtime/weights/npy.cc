#include "runtime/weights/npy.h"

#include <cstring>
#include <optional>

#include "core/atomic_file.h"
#include "core/checked_size.h"
#include "core/printable.h"
#include "runtime/weights/data_loader.h"

namespace tir {
namespace {

struct NpyDescr {
  const char* descr;
  DType dtype;
};
constexpr NpyDescr kDescrs[] = {
    {"<f4", DType::kFloat32},
    {"<f8", DType::kFloat64},
    {"<f2", DType::kFloat16},
    {"<c8", DType::kComplexFloat},
    {"<c16", DType::kComplexDouble},
    {"<i8", DType::kInt64},
    {"<i4", DType::kInt32},
    {"<i2", DType::kInt16},
    {"|i1", DType::kInt8},
    {"|u1", DType::kUInt8},
    {"|b1", DType::kBool},
    // NumPy has no bfloat16: ml_dtypes' bfloat16 array saves as a 2-byte void ('<V2'; a
    // plain np.dtype('V2') writes '|V2'), which `np.load(f).view(ml_dtypes.bfloat16)` reads
    // back. tir reads either as bfloat16 and writes '<V2'.
    {"<V2", DType::kBFloat16},
    {"|V2", DType::kBFloat16},
};

/// A cursor over the header text: the Python dict literal numpy writes, e.g.
/// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
/// followed by spaces and one newline. Parsed strictly: exactly the three keys, each once,
/// nothing after the closing brace but padding (numpy's own reader, ast.literal_eval,
/// rejects the rest too).
struct HeaderCursor {
  std::string_view s;
  size_t i = 0;
  void skip_spaces() {
    while (i < s.size() && s[i] == ' ') ++i;
  }
  bool eat(char c) {
    skip_spaces();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  bool quoted(std::string_view* out) {
    skip_spaces();
    if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) return false;
    const char q = s[i];
    const size_t end = s.find(q, i + 1);
    if (end == std::string_view::npos) return false;
    *out = s.substr(i + 1, end - i - 1);
    i = end + 1;
    return true;
  }
  bool word(std::string_view w) {
    skip_spaces();
    if (s.substr(i, w.size()) != w) return false;
    i += w.size();
    return true;
  }
  bool integer(int64_t* out) {
    skip_spaces();
    const size_t start = i;
    int64_t v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (v > (INT64_MAX - 9) / 10) return false;
      v = v * 10 + (s[i++] - '0');
    }
    *out = v;
    return i > start;
  }
  /// (), (3,), (2, 3) or (2, 3,).
  bool shape(std::vector<int64_t>* out) {
    if (!eat('(')) return false;
    if (eat(')')) return true;
    for (;;) {
      int64_t v = 0;
      if (!integer(&v)) return false;
      out->push_back(v);
      if (out->size() > size_t(kMaxRank)) return false;
      const bool comma = eat(',');
      if (eat(')')) return comma || out->size() > 1;  // (3) is an int, not a tuple
      if (!comma) return false;
    }
  }
};

/// Column-major data (NumPy's fortran_order: a transposed array saved as is) into row-major.
void fortran_to_c(const uint8_t* from, size_t elem, const std::vector<int64_t>& sizes,
                  uint8_t* to) {
  const int rank = static_cast<int>(sizes.size());
  std::vector<int64_t> stride(sizes.size(), 1), at(sizes.size(), 0);  // in `from`, elements
  for (int d = 1; d < rank; ++d) stride[size_t(d)] = stride[size_t(d - 1)] * sizes[size_t(d - 1)];
  int64_t total = 1, off = 0;
  for (int64_t s : sizes) total *= s;
  for (int64_t i = 0; i < total; ++i) {
    std::memcpy(to + size_t(i) * elem, from + size_t(off) * elem, elem);
    for (int d = rank - 1; d >= 0; --d) {
      off += stride[size_t(d)];
      if (++at[size_t(d)] < sizes[size_t(d)]) break;
      off -= at[size_t(d)] * stride[size_t(d)];
      at[size_t(d)] = 0;
    }
  }
}

}  // namespace

Result<HostTensor> npy_parse(std::span<const uint8_t> b, const std::string& name) {
  auto bad = [&](auto... parts) {
    return make_error(StatusCode::kCorrupt, "'", name, "': not a valid .npy file: ", parts...);
  };
  if (b.size() < 10 || std::memcmp(b.data(), "\x93NUMPY", 6) != 0) return bad("bad magic");
  const int major = b[6];
  size_t header_len = 0, pos = 0;
  if (major == 1) {
    header_len = b[8] | (size_t(b[9]) << 8);
    pos = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) return bad("truncated header");
    header_len = b[8] | (size_t(b[9]) << 8) | (size_t(b[10]) << 16) | (size_t(b[11]) << 24);
    pos = 12;
  } else {
    return bad("version ", major);
  }
  if (header_len > b.size() - pos) return bad("truncated header");
  HeaderCursor h{std::string_view(reinterpret_cast<const char*>(b.data() + pos), header_len)};
  std::string_view descr;
  std::optional<bool> fortran;
  std::optional<std::vector<int64_t>> sizes;
  bool has_descr = false;
  if (!h.eat('{')) return bad("header is not a dict");
  while (!h.eat('}')) {
    std::string_view key;
    if (!h.quoted(&key) || !h.eat(':')) return bad("malformed header dict");
    if (key == "descr" && !has_descr) {
      if (!h.quoted(&descr)) return bad("bad descr");
      has_descr = true;
    } else if (key == "fortran_order" && !fortran) {
      if (h.word("False"))
        fortran = false;
      else if (h.word("True"))
        fortran = true;
      else
        return bad("bad fortran_order");
    } else if (key == "shape" && !sizes) {
      sizes.emplace();
      if (!h.shape(&*sizes)) return bad("bad shape (at most ", kMaxRank, " sizes)");
    } else {
      return bad("header has an unexpected or repeated key '", printable(key), "'");
    }
    if (!h.eat(',')) {
      if (!h.eat('}')) return bad("malformed header dict");
      break;
    }
  }
  h.skip_spaces();
  if (h.s.substr(h.i) != "\n" && h.s.substr(h.i) != "") return bad("junk after the header dict");
  if (!has_descr || !fortran || !sizes) return bad("header lacks descr, fortran_order or shape");
  DType dtype = DType::kUndefined;
  for (const NpyDescr& d : kDescrs)
    if (descr == d.descr) dtype = d.dtype;
  if (dtype == DType::kUndefined)
    return make_error(StatusCode::kUnsupported, "'", name, "': dtype '", printable(descr),
                      "' is not supported");
  // The data must be in the file: check before allocating anything.
  TIR_ASSIGN_OR_RETURN(const uint64_t nbytes,
                       checked_nbytes(*sizes, dtype_size(dtype), "'" + name + "': shape"));
  const size_t data_at = pos + header_len;
  if (b.size() - data_at != nbytes)
    return bad("has ", b.size() - data_at, " data bytes, shape ", shape_str(*sizes), " needs ",
               nbytes);
  HostTensor t(dtype, *sizes);
  if (t.view().nbytes() == 0) return t;
  if (*fortran && sizes->size() > 1) {
    fortran_to_c(b.data() + data_at, dtype_size(dtype), *sizes,
                 static_cast<uint8_t*>(t.view().data));
  } else {
    std::memcpy(t.view().data, b.data() + data_at, t.view().nbytes());
  }
  return t;
}

Result<HostTensor> npy_read(const std::string& path) {
  TIR_ASSIGN_OR_RETURN(auto src, data_source_mmap(path));
  return npy_parse(src->bytes(), path);
}

std::vector<uint8_t> npy_serialize(const Tensor& t, bool header_only) {
  const char* descr = "<f4";
  for (const NpyDescr& d : kDescrs)
    if (d.dtype == t.dtype) descr = d.descr;
  std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < t.rank; ++i)
    header += std::to_string(t.sizes[i]) + (t.rank == 1 ? "," : i + 1 < t.rank ? ", " : "");
  header += "), }";
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> out = {0x93,
                              'N',
                              'U',
                              'M',
                              'P',
                              'Y',
                              1,
                              0,
                              uint8_t(header.size() & 0xff),
                              uint8_t(header.size() >> 8)};
  out.insert(out.end(), header.begin(), header.end());
  if (!header_only) {
    const auto* p = static_cast<const uint8_t*>(t.data);
    out.insert(out.end(), p, p + t.nbytes());
  }
  return out;
}

Status npy_write(const std::string& path, const Tensor& t) {
  // Header, then the tensor's bytes straight from where they are (no copy of a large output).
  TIR_ASSIGN_OR_RETURN(auto file, AtomicFile::create(path));
  TIR_RETURN_IF_ERROR(file->write(npy_serialize(t, /*header_only=*/true)));
  TIR_RETURN_IF_ERROR(file->write({static_cast<const uint8_t*>(t.data), t.nbytes()}));
  return file->commit();
}

}  // namespace tir
