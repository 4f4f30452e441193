#include "tooling/cli/progress_bar.h"

#include <unistd.h>

namespace tir::tools {
namespace {

constexpr int kWidth = 24;

std::string megabytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", bytes / 1e6);
  return buf;
}

}  // namespace

bool progress_bar_wanted(bool quiet) { return !quiet && isatty(fileno(stderr)) == 1; }

ProgressBar::ProgressBar(std::string label, bool enabled, std::FILE* out)
    : label_(std::move(label)), enabled_(enabled), out_(out) {
  start_ = last_ = std::chrono::steady_clock::now();
}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(uint64_t done, uint64_t total) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && done < total && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  draw(done, total);
}

void ProgressBar::draw(uint64_t done, uint64_t total) {
  const double frac = total ? double(done) / double(total) : 1.0;
  const int filled = int(frac * kWidth + 0.5);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::string rate = secs > 0 ? megabytes(double(done) / secs) + "/s" : "";
  std::fprintf(out_, "\r%s [%s%s] %3d%%  %s / %s  %s\x1b[K", label_.c_str(),
               std::string(filled, '#').c_str(), std::string(kWidth - filled, ' ').c_str(),
               int(frac * 100 + 0.5), megabytes(double(done)).c_str(),
               megabytes(double(total)).c_str(), rate.c_str());
  std::fflush(out_);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (!enabled_ || !drawn_) return;
  std::fprintf(out_, "\r\x1b[K");
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace tir::tools
