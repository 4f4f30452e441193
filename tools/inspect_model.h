// The library behind `tirc inspect`: what a .tir holds, for people (text) or scripts (JSON):
// methods, their symbols with ranges, inputs and outputs with symbolic shapes, op counts,
// weights and constants.
#pragma once

#include <iosfwd>
#include <string>

#include "core/status.h"

namespace tir::tools {

struct InspectOptions {
  std::string model_path;
  bool json = false;
};

Status inspect_model(const InspectOptions& options, std::ostream& out);

}  // namespace tir::tools
