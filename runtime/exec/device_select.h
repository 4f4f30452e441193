// Devices by name, for SessionOptions::device and `tirrun --device`: "cpu" is the process's
// CPU device alone; "cuda" or "cuda:N" puts GPU N (runtime/devices/cuda_loader.h) beside the CPU
// device. The CPU device comes first (it holds inputs and outputs and runs the nodes the GPU
// has no kernel for); every other node is placed on the GPU, and the placement pass inserts
// the copies between them (runtime/passes/placement.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "runtime/devices/device.h"
#include "runtime/passes/exec_graph.h"
#include "runtime/passes/placement.h"

namespace tir {

struct DeviceSelection {
  std::vector<std::shared_ptr<Device>> devices;
  PlacementPolicy placement;
};

/// The devices and placement for `name`; an error names the device and why it is unusable
/// (an unknown name, a build without CUDA, no GPU or driver).
Result<DeviceSelection> select_device(std::string_view name);

/// For load summaries: per device, the kernel nodes placed on it, and for the primary device
/// beside others, which ops run there ("cpu: 12 nodes (aten::where.self x4, ...)").
std::string placement_summary(const ExecGraph& g,
                              const std::vector<std::shared_ptr<Device>>& devices);

}  // namespace tir
