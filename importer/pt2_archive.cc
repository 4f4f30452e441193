#include "importer/pt2_archive.h"

#include <zip.h>

#include <algorithm>
#include <array>
#include <functional>
#include <unordered_map>

#include "core/printable.h"

namespace tir::importer {
namespace {

constexpr uint64_t kSmallMemberLimit = 4096;  // archive_format, archive_version
constexpr size_t kChunkBytes = size_t{1} << 20;
// Opened with ZIP_CHECKCONS, libzip compares every local header with its central directory
// entry (name, sizes, CRC): readers that use one or the other must see the same archive.
constexpr const char* kInconsistent =
    "inconsistent zip archive: a local header disagrees with the central directory";

zip_t* as_zip(void* z) { return static_cast<zip_t*>(z); }

/// The name an entry would have for the most lenient reader: folder separators as '/',
/// "." segments and repeated or trailing slashes dropped, ASCII case folded (miniz, which
/// torch reads with, matches names without regard to case; so do Windows and macOS). Two
/// entries with one key could be read as each other by some reader.
std::string lenient_name(std::string_view name) {
  std::string key;
  size_t at = 0;
  while (at <= name.size()) {
    size_t end = name.find_first_of("/\\", at);
    if (end == std::string_view::npos) end = name.size();
    const std::string_view segment = name.substr(at, end - at);
    if (!segment.empty() && segment != ".") {
      if (!key.empty()) key += '/';
      for (char c : segment) key += (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
    }
    at = end + 1;
  }
  return key;
}

using Entries = std::vector<std::pair<std::string, zip_stat_t>>;  // name, stat

/// Refuses entry names that are not relative paths, and any two with one lenient_name.
Status check_entry_names(const std::string& path, const Entries& entries) {
  std::unordered_map<std::string, const std::string*> seen;
  seen.reserve(entries.size());
  for (const auto& [name, st] : entries) {
    const std::string key = lenient_name(name);
    if (key.empty() || key == ".." || key.starts_with("../") || key.ends_with("/..") ||
        key.find("/../") != std::string::npos || name.starts_with('/'))
      return make_error(StatusCode::kCorrupt, "'", path, "': zip entry '", printable(name),
                        "' is not a relative path inside the archive");
    const auto [it, fresh] = seen.emplace(key, &name);
    if (!fresh)
      return make_error(StatusCode::kCorrupt, "'", path, "': zip entry '", printable(name),
                        "' duplicates entry '", printable(*it->second),
                        "' (readers would disagree on which one the archive holds)");
  }
  return ok_status();
}

/// Every entry of `z` (name and stat), its names checked by check_entry_names.
Result<Entries> checked_entries(zip_t* z, const std::string& path) {
  const zip_int64_t n = zip_get_num_entries(z, 0);
  if (n <= 0) return make_error(StatusCode::kCorrupt, "'", path, "': empty zip archive");
  Entries entries;
  entries.reserve(static_cast<size_t>(n));
  for (zip_int64_t i = 0; i < n; ++i) {
    zip_stat_t st;
    if (zip_stat_index(z, static_cast<zip_uint64_t>(i), 0, &st) != 0 ||
        !(st.valid & ZIP_STAT_NAME) || !(st.valid & ZIP_STAT_SIZE))
      return make_error(StatusCode::kCorrupt, "'", path, "': unreadable zip entry ", i);
    entries.emplace_back(st.name, st);
  }
  TIR_RETURN_IF_ERROR(check_entry_names(path, entries));
  return entries;
}

/// Opens the archive that `make_source` reads, twice: first plainly, to check the entry
/// names (an error names the entry), then with ZIP_CHECKCONS, libzip's comparison of every
/// local header with its central directory entry. `what` starts each error message.
using SourceFactory = std::function<zip_source_t*(zip_error_t*)>;
Result<zip_t*> open_consistent(const SourceFactory& make_source, const std::string& path,
                               const std::string& what) {
  for (const int flags : {ZIP_RDONLY, ZIP_RDONLY | ZIP_CHECKCONS}) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* src = make_source(&err);
    zip_t* z = src ? zip_open_from_source(src, flags, &err) : nullptr;
    if (!z) {
      const std::string text = zip_error_strerror(&err);
      const int code = zip_error_code_zip(&err);
      zip_error_fini(&err);
      if (src) zip_source_free(src);
      if (code == ZIP_ER_OPEN || code == ZIP_ER_NOENT || code == ZIP_ER_READ)
        return make_error(StatusCode::kIo, what, "cannot open (", text, ")");
      if (flags & ZIP_CHECKCONS)
        return make_error(StatusCode::kCorrupt, what, kInconsistent, " (", text, ")");
      return make_error(StatusCode::kCorrupt, what, "not a zip archive (", text, ")");
    }
    zip_error_fini(&err);
    if (flags & ZIP_CHECKCONS) return z;
    const Status names = checked_entries(z, path).status();
    zip_discard(z);
    TIR_RETURN_IF_ERROR(names);
  }
  return make_error(StatusCode::kInternal, what, "unreachable");
}

}  // namespace

std::string trim_text_member(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

Result<std::unique_ptr<Pt2Archive>> Pt2Archive::open(const std::string& path) {
  TIR_ASSIGN_OR_RETURN(zip_t * z, open_consistent(
                                      [&](zip_error_t* err) {
                                        return zip_source_file_create(path.c_str(), 0, -1, err);
                                      },
                                      path, "'" + path + "': "));
  return finish_open(path, z);
}

Result<std::unique_ptr<Pt2Archive>> Pt2Archive::open_bytes(const std::string& name,
                                                           std::span<const uint8_t> bytes) {
  TIR_ASSIGN_OR_RETURN(zip_t * z, open_consistent(
                                      [&](zip_error_t* err) {
                                        return zip_source_buffer_create(bytes.data(), bytes.size(),
                                                                        0, err);
                                      },
                                      name, "'" + name + "': "));
  return finish_open(name, z);
}

Result<std::unique_ptr<Pt2Archive>> Pt2Archive::finish_open(std::string path, void* zip) {
  std::unique_ptr<Pt2Archive> a(new Pt2Archive(std::move(path), zip));
  TIR_RETURN_IF_ERROR(a->index_members());
  TIR_RETURN_IF_ERROR(a->check_layout());
  return a;
}

Pt2Archive::~Pt2Archive() {
  mounted_.clear();  // nested zips read through this one's handle
  if (zip_) zip_discard(as_zip(zip_));
}

Status Pt2Archive::index_members() {
  TIR_ASSIGN_OR_RETURN(const Entries entries, checked_entries(as_zip(zip_), path_));
  // The root folder is the first path component, when every entry shares it.
  std::string root;
  const std::string& first = entries.front().first;
  if (const size_t slash = first.find('/'); slash != std::string::npos) {
    root = first.substr(0, slash + 1);
    for (const auto& [name, st] : entries)
      if (name.compare(0, root.size(), root) != 0) {
        root.clear();
        break;
      }
  }
  for (const auto& [name, st] : entries) {
    if (name.size() <= root.size() || name.back() == '/') continue;  // folders
    const std::string rel = name.substr(root.size());
    index_[rel] = st.index;
    sizes_[rel] = st.size;
  }
  return ok_status();
}

Status Pt2Archive::check_layout() {
  if (has("archive_format")) {
    TIR_ASSIGN_OR_RETURN(std::string format, read("archive_format", kSmallMemberLimit));
    if (trim_text_member(format) != "pt2")
      return make_error(StatusCode::kUnsupported, "'", path_, "': archive_format is '",
                        trim_text_member(format), "', expected 'pt2'");
    if (has("archive_version")) {
      TIR_ASSIGN_OR_RETURN(std::string version, read("archive_version", kSmallMemberLimit));
      if (trim_text_member(version) != "0")
        return make_error(StatusCode::kUnsupported, "'", path_, "': archive_version ",
                          trim_text_member(version), " is not supported (expected 0)");
    }
    for (const auto& [name, idx] : index_) {
      constexpr std::string_view kPrefix = "models/", kSuffix = ".json";
      if (name.size() > kPrefix.size() + kSuffix.size() && name.starts_with(kPrefix) &&
          name.ends_with(kSuffix) && name.find('/', kPrefix.size()) == std::string::npos)
        models_.push_back(
            name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size()));
    }
    std::sort(models_.begin(), models_.end());
    if (models_.empty())
      return make_error(StatusCode::kNotFound,
                        "no model (models/*.json, e.g. models/model.json) in '", path_, "'");
    return ok_status();
  }
  if (has("serialized_exported_program.json")) {
    layout_ = ArchiveLayout::kLegacyZip;
    models_ = {"model"};
    return ok_status();
  }
  if (has("version") || has("serialized_state_dict.json"))
    return make_error(StatusCode::kUnsupported, "'", path_,
                      "': legacy archive without serialized_exported_program.json (torch < 2.3?)"
                      " is not supported");
  if (has("data.pkl") || has("constants.pkl"))
    return make_error(StatusCode::kUnsupported, "'", path_,
                      "': a TorchScript archive, not a torch.export program");
  return make_error(StatusCode::kCorrupt, "'", path_,
                    "': not a torch.export archive (no archive_format member)");
}

Status Pt2Archive::mount(std::string_view member) {
  const std::string name(member);
  if (mounted_.count(name)) return ok_status();
  auto it = index_.find(name);
  if (it == index_.end())
    return make_error(StatusCode::kNotFound, "'", path_, "': no member '", member, "'");
  // A window on the member's bytes; stored members stay seekable, so libzip reads the
  // nested central directory in place.
  const std::string label = path_ + "!/" + name;
  auto z = open_consistent(
      [&](zip_error_t* err) -> zip_source_t* {
        zip_source_t* src = zip_source_zip(as_zip(zip_), as_zip(zip_), it->second, 0, 0, -1);
        if (!src) zip_error_set(err, zip_error_code_zip(zip_get_error(as_zip(zip_))), 0);
        return src;
      },
      label, "'" + path_ + "': member '" + name + "' is not a torch.save zip: ");
  if (!z.ok()) return z.status();
  std::unique_ptr<Pt2Archive> nested(new Pt2Archive(label, *z));
  nested->layout_ = ArchiveLayout::kTorchSave;
  TIR_RETURN_IF_ERROR(nested->index_members());
  if (!nested->has("data.pkl"))
    return make_error(StatusCode::kCorrupt, "'", path_, "': member '", member,
                      "' is a zip without data.pkl, not a torch.save archive");
  mounted_.emplace(name, std::move(nested));
  return ok_status();
}

std::pair<const Pt2Archive*, std::string> Pt2Archive::route(std::string_view member) const {
  if (const size_t bang = member.find("!/"); bang != std::string_view::npos) {
    auto it = mounted_.find(std::string(member.substr(0, bang)));
    if (it != mounted_.end()) return it->second->route(member.substr(bang + 2));
  }
  return {this, std::string(member)};
}

bool Pt2Archive::has(std::string_view member) const {
  const auto [a, name] = route(member);
  return a->index_.count(name) != 0;
}

Result<uint64_t> Pt2Archive::size(std::string_view member) const {
  if (const auto [a, name] = route(member); a != this) return a->size(name);
  auto it = sizes_.find(std::string(member));
  if (it == sizes_.end())
    return make_error(StatusCode::kNotFound, "'", path_, "': no member '", member, "'");
  return it->second;
}

Result<std::string> Pt2Archive::read(std::string_view member, uint64_t max_bytes) const {
  TIR_ASSIGN_OR_RETURN(const uint64_t n, size(member));
  if (n > max_bytes)
    return make_error(StatusCode::kCorrupt, "'", path_, "': member '", member, "' has ", n,
                      " bytes, more than the limit of ", max_bytes);
  std::string out;
  out.reserve(static_cast<size_t>(n));
  TIR_RETURN_IF_ERROR(stream(member, 0, n, [&](std::span<const uint8_t> c) {
    out.append(reinterpret_cast<const char*>(c.data()), c.size());
    return ok_status();
  }));
  return out;
}

Status Pt2Archive::stream(std::string_view member, uint64_t offset, uint64_t length,
                          const ChunkSink& sink) const {
  if (const auto [a, name] = route(member); a != this) return a->stream(name, offset, length, sink);
  TIR_ASSIGN_OR_RETURN(const uint64_t n, size(member));
  if (offset > n || length > n - offset)
    return make_error(StatusCode::kCorrupt, "'", path_, "': member '", member, "' has ", n,
                      " bytes, cannot read ", length, " at offset ", offset);
  zip_file_t* f = zip_fopen_index(as_zip(zip_), index_.at(std::string(member)), 0);
  if (!f)
    return make_error(StatusCode::kCorrupt, "'", path_, "': cannot open member '", member, "' (",
                      zip_strerror(as_zip(zip_)), ")");
  std::vector<uint8_t> buf(std::min<uint64_t>(kChunkBytes, std::max<uint64_t>(offset + length, 1)));
  uint64_t pos = 0;
  const uint64_t end = offset + length;
  Status status;
  while (pos < end && status.ok()) {
    const uint64_t want = std::min<uint64_t>(buf.size(), end - pos);
    const zip_int64_t got = zip_fread(f, buf.data(), want);
    if (got <= 0) {
      status = make_error(StatusCode::kCorrupt, "'", path_, "': member '", member,
                          "' ends early or fails to read at byte ", pos, " (", zip_file_strerror(f),
                          ")");
      break;
    }
    const uint64_t lo = pos, hi = pos + static_cast<uint64_t>(got);
    pos = hi;
    if (hi <= offset) continue;  // still skipping to `offset`
    const uint64_t from = std::max(lo, offset) - lo;
    status = sink(std::span<const uint8_t>(buf.data() + from, static_cast<size_t>(hi - lo - from)));
  }
  // libzip checks a member's CRC-32 when a read reaches its end: read the rest (when only
  // a slice was wanted) and the end itself, so flipped bytes in the archive are an error.
  while (status.ok()) {
    const zip_int64_t got = zip_fread(f, buf.data(), buf.size());
    if (got == 0) break;
    if (got < 0)
      status =
          make_error(StatusCode::kCorrupt, "'", path_, "': member '", member,
                     "' fails its CRC-32 check or cannot be read (", zip_file_strerror(f), ")");
  }
  zip_fclose(f);
  return status;
}

}  // namespace tir::importer
