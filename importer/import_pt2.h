// `tirc import`: a torch.export program (.pt2) -> a tir model (.tir) and weight file (.bin).
// Both outputs are written under temporary names and renamed only when everything
// succeeded, so a failed import leaves no files.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"

namespace tir::importer {

/// One program of a several-method import: method `name` from the .pt2 at `path`.
struct MethodSource {
  std::string name;
  std::string path;
  /// When not empty, the archive's bytes (they must outlive the import); `path` then only
  /// names it in messages and is never opened.
  std::span<const uint8_t> bytes = {};
};

struct ImportOptions {
  std::string input;  // the .pt2 file (method "forward"), when `methods` is empty
  std::span<const uint8_t> input_bytes;  // optional: `input`'s bytes, read from memory
  /// Several programs, one method each (an archive holding several models gives one method
  /// per model, named after it), into one model whose weight file holds each weight once.
  std::vector<MethodSource> methods;
  std::string model_path;     // "" -> <input dir>/<stem>.tir
  std::string weights_path;   // "" -> model_path with extension .bin
  bool check_kernels = true;  // reject ops without a CPU kernel (see op_check.h)
  /// Custom ops (kernels::is_custom_op, "mylib::scaled_add") to keep although tir has no
  /// kernel for them: the application that runs the model registers one
  /// (KernelRegistry::add_custom). Their nodes keep the arguments the program gives, by name.
  std::vector<std::string> custom_ops;
  /// Receives one line per phase; may be empty.
  std::function<void(const std::string&)> progress;
  /// Called as weight bytes stream into the weight file: done and total bytes; may be empty.
  std::function<void(uint64_t done, uint64_t total)> weight_progress;
};

struct ImportSummary {
  std::string model_path, weights_path;
  std::string torch_version;
  std::vector<std::string> methods;
  size_t nodes = 0, values = 0, symbols = 0;  // summed over methods
  size_t shared_weights = 0;                  // weights met again in a later program
  size_t weights = 0, weight_aliases = 0;
  uint64_t weight_bytes = 0;  // tensor bytes in the weight file
  size_t constants = 0;
  uint64_t constant_bytes = 0;
};

/// Runs the whole import. Errors name the file and the node, argument or tensor.
Result<ImportSummary> import_pt2(const ImportOptions& options);

}  // namespace tir::importer
