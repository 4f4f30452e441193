// torch.save archives stored inside an export archive (the weights and constants of
// torch <= 2.8, pt2-format.md §1.5, §1.6): mounts the member, checks the byte order,
// unpickles data.pkl (torch_pickle.h) and names the member holding each tensor's storage.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "importer/pt2_archive.h"
#include "importer/torch_pickle.h"

namespace tir::importer {

/// A tensor of a torch.save dict and the archive member with its storage's bytes
/// ("<torch.save member>!/data/<key>", readable through the outer archive).
struct SavedTensor {
  PickledTensor tensor;
  std::string member;
};

/// Reads member `member` of `archive` (mounting it) as a torch.save of a dict of tensors.
/// An empty member is an empty dict. Errors name the archive and member.
Result<std::vector<SavedTensor>> read_torch_save(Pt2Archive& archive, const std::string& member);

}  // namespace tir::importer
