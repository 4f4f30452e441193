// A byte progress bar for long tool steps (`tirc import` of a large archive, `tirc weights
// pack`): "weights [########            ]  41%  210.0 MB / 512.0 MB  180.3 MB/s", redrawn in
// place on stderr at most ten times a second and cleared when done. It draws only when stderr
// is a terminal and the user did not ask for --quiet, so logs and pipes get nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace tir::tools {

class ProgressBar {
 public:
  /// `enabled` false: every call is a no-op (see progress_bar_wanted).
  ProgressBar(std::string label, bool enabled, std::FILE* out = stderr);
  ~ProgressBar();
  /// `done` of `total` bytes so far.
  void update(uint64_t done, uint64_t total);
  /// Erases the bar (the tool's own summary line follows).
  void finish();

 private:
  void draw(uint64_t done, uint64_t total);

  std::string label_;
  bool enabled_;
  std::FILE* out_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

/// True when a bar should be drawn: stderr is a terminal and not `quiet`.
bool progress_bar_wanted(bool quiet);

}  // namespace tir::tools
