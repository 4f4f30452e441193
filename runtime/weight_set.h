// WeightSet: an immutable set of named tensors over a weight file (mmap'd, no copy).
// Shared by reference counting: sessions hold a shared_ptr, so a set stays alive while
// any run uses it. Thread-safe (read-only after open).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/weight_file.h"
#include "runtime/core/tensor.h"
#include "runtime/data_loader.h"

namespace tir {

struct WeightSetOptions {
  /// Recompute every tensor's xxh3 at open and reject a mismatch (catches bit rot; costs
  /// one pass over the file, ~30 GB/s).
  bool verify_checksums = true;
};

class WeightSet {
 public:
  /// Opens and verifies a tir weight file (see ir/weight_file.h).
  static Result<std::shared_ptr<const WeightSet>> open(const std::string& path,
                                                       const WeightSetOptions& options = {});
  /// Same over bytes already in memory.
  static Result<std::shared_ptr<const WeightSet>> from_source(
      std::shared_ptr<const DataSource> source, const WeightSetOptions& options = {});

  /// The tensor named `name` (or an alias of it), or nullptr. Points into the mapping.
  const Tensor* find(std::string_view name) const;
  uint64_t signature() const { return file_.signature(); }
  size_t size() const { return tensors_.size(); }
  /// Canonical names in file order.
  const std::vector<std::string>& names() const { return names_; }
  const std::string& path() const { return source_->name(); }
  size_t total_bytes() const { return total_bytes_; }

 private:
  WeightSet(std::shared_ptr<const DataSource> source, ir::WeightFileView file)
      : source_(std::move(source)), file_(file) {}
  std::shared_ptr<const DataSource> source_;
  ir::WeightFileView file_;
  std::vector<Tensor> tensors_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, size_t> by_name_;  // names and aliases
  size_t total_bytes_ = 0;
};

}  // namespace tir
