// A safe reader for the `data.pkl` of a torch.save archive holding a dict of tensors
// (the state dicts and constants of torch <= 2.8 export archives, pt2-format.md §1.5, §1.6).
//
// torch.save writes a zip `<root>/data.pkl`, `<root>/data/<key>` (one raw storage per key),
// `<root>/byteorder`, `<root>/version`. data.pkl is a protocol-2 pickle of, for a state dict:
//
//   collections.OrderedDict() with items
//     name -> torch._utils._rebuild_tensor_v2(storage, storage_offset, sizes, strides,
//                                             requires_grad, backward_hooks[, metadata])
//          or torch._utils._rebuild_parameter(<tensor as above>, requires_grad, hooks)
//   storage = BINPERSID ('storage', torch.<X>Storage, key, location, numel)
//
// This is not a Python unpickler: it interprets a fixed opcode subset with a data-only value
// model, resolves only the globals above (by name, nothing is imported or executed) and
// rejects everything else (unknown global or opcode, bad memo index, truncated data, stack
// underflow, oversized values) with an error naming `where`.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/status.h"

namespace tir::importer {

/// One tensor of an unpickled dict: a view of storage `storage_key` (archive member
/// `data/<storage_key>`, `storage_numel` elements of `dtype`).
struct PickledTensor {
  std::string name;
  DType dtype = DType::kUndefined;
  std::vector<int64_t> sizes, strides;
  int64_t storage_offset = 0;  // elements
  std::string storage_key;
  int64_t storage_numel = 0;
};

/// Unpickles `bytes` (a data.pkl) whose top-level object is a dict (or OrderedDict) from
/// string keys to tensors, in insertion order. Checks that each view lies inside its
/// storage; non-contiguous views are accepted here (the caller decides). `where` names the
/// member in messages, e.g. "'m.pt2': member 'serialized_state_dict.pt!/data.pkl'".
Result<std::vector<PickledTensor>> unpickle_tensor_dict(std::span<const uint8_t> bytes,
                                                        const std::string& where);

}  // namespace tir::importer
