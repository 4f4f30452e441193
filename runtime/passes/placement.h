// Placement: which device runs each node, and the copies where values cross devices.
//
// `place_nodes` gives every kernel node a device (the policy's choice, or the primary device,
// devices[0], when the chosen one has no kernel for the op and dtype) and resolves its kernel
// there; an op no device runs is a load error naming node and op. Control flow runs on the
// primary device. After fusion, `insert_copies` adds a copy node in front of each reader on
// another device than a value's producer (one copy per value and device, reused by later
// readers unless an in-place op writes the value in between), and in front of readers on a
// device the host cannot address for inputs, weights and constants. Method outputs and buffer
// mutations computed on such a device are copied back to the primary device.
#pragma once

#include <functional>
#include <memory>
#include <span>

#include "runtime/devices/device.h"
#include "runtime/passes/exec_graph.h"

namespace tir {

/// The device (index into the executor's devices) for node `index` of a graph; values out of
/// range mean the primary device.
using PlacementPolicy = std::function<DeviceId(const ExecNode& node, size_t index)>;

Status place_nodes(ExecGraph& g, std::span<const std::shared_ptr<Device>> devices,
                   const PlacementPolicy& policy);

/// Returns the number of copy nodes inserted.
size_t insert_copies(ExecGraph& g, std::span<const std::shared_ptr<Device>> devices);

}  // namespace tir
