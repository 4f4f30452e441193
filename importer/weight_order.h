// The order weights are written to the weight file: the order the methods first read them
// (nodes in execution order, the first method first, a cond's branches after their method),
// then any weight no node reads. A run that streams its weights
// (runtime/weights/streaming_weights.h) then reads the file front to back.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstddef>
#include <span>
#include <vector>

#include "ir/tir_generated.h"

namespace tir::importer {

/// A permutation of [0, num_weights): the k-th weight to write. `methods` are offsets into
/// `fbb`, which is not finished yet.
std::vector<size_t> weight_first_use_order(flatbuffers::FlatBufferBuilder& fbb,
                                           std::span<const flatbuffers::Offset<fb::Method>> methods,
                                           size_t num_weights);

/// Same over finished methods (a model already written).
void weight_first_use_order_add(const fb::Method& method, std::vector<size_t>& order,
                                std::vector<bool>& seen);

}  // namespace tir::importer
