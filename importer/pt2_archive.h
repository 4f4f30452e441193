// Reader for torch.export archives (pt2-format.md §1): a zip whose members may all sit under
// one root folder, which is stripped. Layouts:
//   kPt2        PT2 archive (torch >= 2.8): archive_format, models/<m>.json, data/weights/...
//               (2.8 keeps the weights as one torch.save in data/weights/<m>.pt)
//   kLegacyZip  torch 2.3-2.7: serialized_exported_program.json, serialized_state_dict.pt,
//               serialized_constants.pt (torch.save zips stored inside the zip), version
//   kTorchSave  a torch.save zip (data.pkl, data/<key>), only as a mounted member.
// A mounted member's members are named "<member>!/<inner>", e.g.
// "serialized_state_dict.pt!/data/0", and read through the same has/size/read/stream.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"

namespace tir::importer {

/// Receives a member's bytes in order, a bounded chunk at a time.
using ChunkSink = std::function<Status(std::span<const uint8_t> chunk)>;

enum class ArchiveLayout { kPt2, kLegacyZip, kTorchSave };

/// An open PT2 archive. Not thread-safe (one libzip handle). Member names are relative to
/// the archive's root folder.
class Pt2Archive {
 public:
  /// Opens `path`, strips the root folder and checks the layout. `path` names the file in
  /// every error.
  static Result<std::unique_ptr<Pt2Archive>> open(const std::string& path);
  /// Opens an archive held in memory; `bytes` must outlive the archive and `name` stands
  /// for the file in errors. Same checks as open().
  static Result<std::unique_ptr<Pt2Archive>> open_bytes(const std::string& name,
                                                        std::span<const uint8_t> bytes);
  ~Pt2Archive();
  Pt2Archive(const Pt2Archive&) = delete;
  Pt2Archive& operator=(const Pt2Archive&) = delete;

  const std::string& path() const { return path_; }
  ArchiveLayout layout() const { return layout_; }
  /// Opens member `member` (a stored torch.save zip) so that its members can be read as
  /// "<member>!/<inner>". Idempotent. The nested zip is read in place, never copied.
  Status mount(std::string_view member);
  /// Names of the models (`models/<name>.json` stems), sorted.
  const std::vector<std::string>& model_names() const { return models_; }
  bool has(std::string_view member) const;
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
  static Result<std::unique_ptr<Pt2Archive>> finish_open(std::string path, void* zip);
  Status index_members();
  Status check_layout();
  /// The archive holding `member` (this or a mounted one) and the name inside it.
  std::pair<const Pt2Archive*, std::string> route(std::string_view member) const;

  std::string path_;
  void* zip_;                                        // zip_t*
  std::unordered_map<std::string, uint64_t> index_;  // relative name -> zip index
  std::unordered_map<std::string, uint64_t> sizes_;
  std::vector<std::string> models_;
  ArchiveLayout layout_ = ArchiveLayout::kPt2;
  std::unordered_map<std::string, std::unique_ptr<Pt2Archive>> mounted_;
};

/// `text` without its trailing newlines, carriage returns and spaces: the value of a small
/// text member (".data/version", "byteorder").
std::string trim_text_member(std::string text);

}  // namespace tir::importer
