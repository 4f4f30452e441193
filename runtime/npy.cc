#include "runtime/npy.h"

#include <cstring>

#include "runtime/data_loader.h"

namespace tir {
namespace {

struct NpyDescr {
  const char* descr;
  DType dtype;
};
constexpr NpyDescr kDescrs[] = {
    {"<f4", DType::kFloat32}, {"<f8", DType::kFloat64}, {"<f2", DType::kFloat16},
    {"<i8", DType::kInt64},   {"<i4", DType::kInt32},   {"<i2", DType::kInt16},
    {"|i1", DType::kInt8},    {"|u1", DType::kUInt8},   {"|b1", DType::kBool},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

/// The text after `'key':` up to the next top-level comma or closing brace.
bool dict_value(std::string_view header, std::string_view key, std::string_view* out) {
  const std::string pat = "'" + std::string(key) + "':";
  const size_t at = header.find(pat);
  if (at == std::string_view::npos) return false;
  size_t i = at + pat.size();
  int depth = 0;
  const size_t start = i;
  for (; i < header.size(); ++i) {
    const char c = header[i];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
  }
  *out = trim(header.substr(start, i - start));
  return true;
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
  const std::string_view header(reinterpret_cast<const char*>(b.data() + pos), header_len);
  std::string_view descr, fortran, shape;
  if (!dict_value(header, "descr", &descr) || !dict_value(header, "fortran_order", &fortran) ||
      !dict_value(header, "shape", &shape))
    return bad("header lacks descr, fortran_order or shape");
  if (fortran != "False") return bad("Fortran order is not supported");
  if (descr.size() < 2) return bad("bad descr");
  descr = descr.substr(1, descr.size() - 2);  // strip quotes
  DType dtype = DType::kUndefined;
  for (const NpyDescr& d : kDescrs)
    if (descr == d.descr) dtype = d.dtype;
  if (dtype == DType::kUndefined)
    return make_error(StatusCode::kUnsupported, "'", name, "': dtype '", descr,
                      "' is not supported");
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')') return bad("bad shape");
  std::vector<int64_t> sizes;
  std::string_view rest = shape.substr(1, shape.size() - 2);
  while (!trim(rest).empty()) {
    const size_t comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    if (!item.empty()) {
      int64_t v = 0;
      for (char c : item) {
        if (c < '0' || c > '9' || v > (int64_t(1) << 40)) return bad("bad shape");
        v = v * 10 + (c - '0');
      }
      sizes.push_back(v);
    }
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  if (sizes.size() > size_t(kMaxRank)) return bad("rank > ", kMaxRank);
  HostTensor t(dtype, sizes);
  const size_t data_at = pos + header_len;
  if (b.size() - data_at != t.view().nbytes())
    return bad("has ", b.size() - data_at, " data bytes, shape ", shape_str(sizes), " needs ",
               t.view().nbytes());
  if (t.view().nbytes()) std::memcpy(t.view().data, b.data() + data_at, t.view().nbytes());
  return t;
}

Result<HostTensor> npy_read(const std::string& path) {
  TIR_ASSIGN_OR_RETURN(auto src, data_source_mmap(path));
  return npy_parse(src->bytes(), path);
}

std::vector<uint8_t> npy_serialize(const Tensor& t) {
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
  const auto* p = static_cast<const uint8_t*>(t.data);
  out.insert(out.end(), p, p + t.nbytes());
  return out;
}

Status npy_write(const std::string& path, const Tensor& t) {
  return write_file_atomic(path, npy_serialize(t));
}

}  // namespace tir
