// The layout cache: packed copies of a tir weight file's weights (float32 GEMM weights in a
// blocked layout, int8 GEMM weights with their scales, convolution weights with folded batch
// norms), in the layouts this build's kernels read on this CPU, kept in a file beside the
// weight file so that a later process maps them instead of packing (and lets the plain
// weights' pages go where no other kernel reads them).
//
// Where: `<weights>.layout` (layout_cache_path), next to the weight file; on by default
// (WeightSetOptions::layout_cache; `tirrun --no-layout-cache` turns it off). The first
// process that packs writes it (WeightSet::save_layouts, after the run that packed) under a
// temporary name renamed into place: concurrent processes each write a whole file, the last
// rename wins, and a process keeps the file it mapped. To write it ahead of time: `tirc
// weights pack --layout native` (tooling/layouts/layout_pack.h: each method run twice on zero
// inputs), or run the model twice on inputs of the sizes it will serve.
//
// Format (little-endian):
//   header (64 bytes): magic "TIRLAYO1", u32 version (1), u32 entry count, u64 the weight
//     file's signature, u64 index offset (64), u64 index bytes, u64 xxh3 of the index, u64
//     the file's size, 8 bytes zero
//   index, per entry: u32 slot (the tensor's index in the weight file), u32 key bytes, u64
//     xxh3 of the tensor's bytes as the weight file's index records it, u64 offset, u64 size,
//     u64 xxh3 of the packed bytes, then the key (kernels/packed_cache.h: the kernel's
//     description of the layout, with oneDNN's version and the CPU ISA), zero-padded to 8
//   data: each entry's packed bytes at a 4096-byte boundary.
//
// Checked, and ignored (packed at run time, then rewritten) on any mismatch, never used
// wrongly: at open the header, bounds, index checksum and signature (a bad file: one warning
// line on stderr); per entry the weight's xxh3 (stale entries, for other bytes), the key in
// full (another oneDNN, CPU or shape) and the size; on first use the packed bytes' xxh3.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "core/status.h"
#include "kernels/packed_cache.h"

namespace tir {

/// `weights` + ".layout".
std::string layout_cache_path(const std::string& weights);

/// What a layout cache must match: the weight file's signature, each slot's xxh3, and the
/// generation of the weight set's bytes (kernels::WeightKey) that the store answers for.
struct LayoutCacheOwner {
  uint64_t signature = 0;
  std::span<const uint64_t> hashes;  // per slot
  uint64_t generation = 0;
};

/// Maps and checks the layout cache at `path`. kNotFound: no such file; kCorrupt: a file
/// that is not one, or is for another weight file (the message names the file).
Result<std::shared_ptr<const kernels::PackedStore>> layout_cache_open(
    const std::string& path, const LayoutCacheOwner& owner);

/// Writes `entries` (packed copies of the owner's tensors) as the layout cache at `path`,
/// atomically.
Status layout_cache_write(const std::string& path, const LayoutCacheOwner& owner,
                          std::span<const kernels::PackedCache::Stored> entries);

}  // namespace tir
