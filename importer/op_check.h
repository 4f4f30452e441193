// The import-time check that every node's op has a kernel, so a model that cannot run is
// rejected by `tirc import` with one message listing every missing op. It reads the op
// catalogue (kernels/ops/catalogue.h), data that links without the kernels.
#pragma once

#include <span>
#include <string_view>

#include "core/status.h"
#include "core/tensor.h"
#include "importer/graph_builder.h"
#include "ir/tir_generated.h"

namespace tir::importer {

/// Ok when every op has a kernel on `device`; otherwise kUnsupported:
/// "'x.pt2': 2 ops have no kernel: aten::erfinv (x2, first at node 'erfinv'), ..."
/// (ops sorted by name). `file` names the program.
Status check_ops(std::span<const NodeOp> nodes, std::string_view file,
                 DeviceType device = DeviceType::kCpu);

/// The same check over every method of a built model.
Status check_model_ops(const fb::Model& model, std::string_view file,
                       DeviceType device = DeviceType::kCpu);

}  // namespace tir::importer
