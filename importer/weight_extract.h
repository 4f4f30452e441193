// `tirc weights extract`: the weight file of a .pt2 program without its graph: the same
// tensors, names, order and signature `tirc import` writes, so a fresh export of the same
// model (fine-tuned weights, exported again) becomes a weight set for an already imported
// .tir. Written atomically (nothing is left at the output on failure).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/status.h"
#include "importer/graph_builder.h"
#include "importer/pt2_archive.h"

namespace tir::importer {

struct ExtractSummary {
  size_t tensors = 0;
  uint64_t bytes = 0;  // tensor bytes
  uint64_t signature = 0;
};

/// Extracts the weights of `pt2_path` into the tir weight file `out_path`. `progress`
/// (may be empty) receives one line per phase.
Result<ExtractSummary> extract_weights(const std::string& pt2_path, const std::string& out_path,
                                       const std::function<void(const std::string&)>& progress);

/// Feeds the bytes of `src` (an archive record range, or zeros) to `sink` in chunks.
Status stream_tensor_source(const Pt2Archive& archive, const TensorSource& src,
                            const ChunkSink& sink);

}  // namespace tir::importer
