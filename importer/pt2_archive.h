// Reader for the torch.export PT2 archive (torch >= 2.9): a zip whose members all sit under
// one root folder (`<stem>/archive_format`, `<stem>/models/model.json`,
// `<stem>/data/weights/weight_0`, ...). See docs in /work/shared/reference/pt2-format.md §1.
// Legacy layouts (torch <= 2.8: pickled state dicts) are detected and rejected.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/core/status.h"

namespace tir::importer {

/// Receives a member's bytes in order, a bounded chunk at a time.
using ChunkSink = std::function<Status(std::span<const uint8_t> chunk)>;

/// An open PT2 archive. Not thread-safe (one libzip handle). Member names are relative to
/// the archive's root folder.
class Pt2Archive {
 public:
  /// Opens `path`, strips the root folder and checks the layout. `path` names the file in
  /// every error.
  static Result<std::unique_ptr<Pt2Archive>> open(const std::string& path);
  ~Pt2Archive();
  Pt2Archive(const Pt2Archive&) = delete;
  Pt2Archive& operator=(const Pt2Archive&) = delete;

  const std::string& path() const { return path_; }
  /// Names of the models (`models/<name>.json` stems), sorted.
  const std::vector<std::string>& model_names() const { return models_; }
  bool has(std::string_view member) const { return index_.count(std::string(member)) != 0; }
  /// Uncompressed size of a member; kNotFound when absent.
  Result<uint64_t> size(std::string_view member) const;
  /// Reads a whole member; kCorrupt if it is larger than `max_bytes`.
  Result<std::string> read(std::string_view member, uint64_t max_bytes) const;
  /// Streams `length` bytes of a member starting at byte `offset` into `sink` through a
  /// fixed-size buffer. The range must lie inside the member.
  Status stream(std::string_view member, uint64_t offset, uint64_t length,
                const ChunkSink& sink) const;

 private:
  Pt2Archive(std::string path, void* zip) : path_(std::move(path)), zip_(zip) {}
  Status index_members();
  Status check_layout();

  std::string path_;
  void* zip_;                                        // zip_t*
  std::unordered_map<std::string, uint64_t> index_;  // relative name -> zip index
  std::unordered_map<std::string, uint64_t> sizes_;
  std::vector<std::string> models_;
};

}  // namespace tir::importer
