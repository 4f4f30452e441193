// Buffer updates in place. The core IR writes a buffer functionally: `index_put(cache, idx,
// v)` makes a new tensor the size of the whole cache, and a BUFFER_MUTATION output copies it
// back into the buffer after the run: two full copies of a KV cache per token. When nothing
// reads the buffer's old value after that node, this pass turns it into its in-place form on
// the buffer itself (`index_put_`, `index_copy_`, `copy_`), as the training IR already writes
// it: the kernel writes the new rows into the session state and the write-back has nothing
// left to copy.
#pragma once

#include <cstddef>

#include "runtime/passes/exec_graph.h"

namespace tir {

/// Rewrites the functional buffer updates of `g` (placed or not) that may run in place; the
/// number rewritten. Leaves `du` valid (no node's inputs or outputs change). Run it before
/// placement, so the in-place kernel is the one placed.
size_t update_state_in_place(ExecGraph& g, const DefUse& du);

}  // namespace tir
