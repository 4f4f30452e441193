// Program JSON -> one tir Method (FlatBuffer), plus the plan of weights and constants the
// model needs. The FlatBufferBuilder is kept so the caller can add WeightRefs (which need
// the checksums computed while the weight file is streamed) and finish the Model.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "importer/program_json.h"
#include "importer/weight_writer.h"
#include "ir/tir_generated.h"

namespace tir::importer {

/// Where a tensor's bytes are in the archive: `byte_size` bytes at `offset` in `member`,
/// or all zeros when the member is empty (torch writes 0-byte records for such tensors).
struct TensorSource {
  std::string member;
  uint64_t offset = 0;     // of its first element in the member
  uint64_t byte_size = 0;  // of the tensor, contiguous (what the weight file stores)
  bool zeros = false;
  int archive = 0;  // which of the import's archives holds it (ModelTables)
  /// A strided view of its storage (a transposed or sliced parameter, an expanded buffer):
  /// element sizes and strides, the element size, and the storage bytes it spans from
  /// `offset`. Empty strides: the bytes are one contiguous range.
  std::vector<int64_t> view_sizes, view_strides;
  uint64_t item_bytes = 0, span_bytes = 0;
};

/// One weight-file entry: a parameter or persistent buffer (tied names are aliases).
struct WeightPlan {
  WeightEntrySpec spec;
  bool is_buffer = false;
  TensorSource source;
};

/// One Model.constants entry: a lifted tensor constant or non-persistent buffer.
struct ConstantPlan {
  std::string name;
  DType dtype = DType::kUndefined;
  std::vector<int64_t> shape;
  TensorSource source;
};

struct NodeOp {
  std::string op;    // "aten::add.Tensor"
  std::string node;  // the node name
};

struct GraphPlan {
  std::unique_ptr<flatbuffers::FlatBufferBuilder> fbb;
  flatbuffers::Offset<fb::Method> method;
  std::vector<WeightPlan> weights;      // input_specs order, one per storage group
  std::vector<ConstantPlan> constants;  // input_specs order
  std::vector<NodeOp> node_ops;         // node order, nodes of cond branches included
  size_t num_values = 0;
  size_t num_nodes = 0;  // of the method itself, without its subgraphs
};

/// What the methods of one model share: one FlatBufferBuilder, one weight list in which a
/// weight appears once however many methods use it (by name; import_pt2 checks that
/// same-name weights of different archives hold the same bytes), and the constants.
struct ModelTables {
  std::unique_ptr<flatbuffers::FlatBufferBuilder> fbb =
      std::make_unique<flatbuffers::FlatBufferBuilder>();
  std::vector<WeightPlan> weights;
  std::unordered_map<std::string, int32_t> weight_group;  // "<archive>#<storage view>"
  std::unordered_map<std::string, int32_t> weight_name;   // fqn or alias -> weights index
  /// Weights met again in another archive: (weights index, the other archive's copy).
  std::vector<std::pair<int32_t, TensorSource>> shared_weights;
  std::vector<ConstantPlan> constants;
  std::unordered_map<std::string, int32_t> constant_index;  // "<archive>#<fqn>"
};

/// Adds method `method_name`, built from `program` (read from the import's archive number
/// `archive_index`), to `tables`. The returned plan's weights and constants stay in
/// `tables`.
Result<GraphPlan> build_method(const Program& program, const Pt2Archive& archive, int archive_index,
                               const std::string& method_name, ModelTables* tables);

/// Builds method `method_name` from `program`. Member sizes of `archive` bound the weight
/// and constant sources. Errors name the archive and the node, argument or tensor.
Result<GraphPlan> build_graph(const Program& program, const Pt2Archive& archive,
                              const std::string& method_name);

/// "torch.ops.aten.add.Tensor" -> "aten::add.Tensor", "...linear.default" -> "aten::linear",
/// "torch.ops.higher_order.cond" -> "higher_order::cond", "_operator.mul" -> "_operator::mul".
std::string op_name_from_target(std::string_view target);

/// Module path and type of the innermost entry of an nn_module_stack string
/// ("key,path,type;key,path,type"), empty strings when there is none.
std::pair<std::string, std::string> parse_nn_module_stack(std::string_view stack);
/// "file.py:LINE" of the last `File "...", line N` frame of a stack trace, or "".
std::string short_source(std::string_view stack_trace);

}  // namespace tir::importer
