// The import-time check that every node's op has a kernel, so a model that cannot run is
// rejected by `tirc import` with one message listing every missing op. It reads the op
// catalogue (kernels/ops/catalogue.h), data that links without the kernels.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "importer/graph_builder.h"
#include "ir/tir_generated.h"

namespace tir::importer {

/// Ok when every op has a kernel on `device` or is one of `custom_ops` (custom ops,
/// kernels::is_custom_op, whose kernels the application registers at run time); otherwise
/// kUnsupported: "'x.pt2': 2 ops have no kernel: aten::erfinv (x2, first at node 'erfinv'),
/// ..." (ops sorted by name), plus how to keep custom ops when some are. `file` names the
/// program.
Status check_ops(std::span<const NodeOp> nodes, std::string_view file,
                 DeviceType device = DeviceType::kCpu,
                 std::span<const std::string> custom_ops = {});

/// The same check over every method of a built model.
Status check_model_ops(const fb::Model& model, std::string_view file,
                       DeviceType device = DeviceType::kCpu,
                       std::span<const std::string> custom_ops = {});

/// Checks `--custom-op` names: each must be a custom op name ("mylib::scaled_add").
Status check_custom_op_names(std::span<const std::string> custom_ops);

/// The custom op names listed in the file at `path` (`tirc import --custom-ops FILE`): one per
/// line; blank lines, surrounding spaces and `#` comments are ignored. Appends to `out`.
Status read_custom_op_list(const std::string& path, std::vector<std::string>* out);

}  // namespace tir::importer
