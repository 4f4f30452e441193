#include "runtime/exec/profiler.h"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>

#include "runtime/weights/data_loader.h"

namespace tir {
namespace {

double us_between(Profiler::Clock::time_point a, Profiler::Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

/// A JSON string literal (quotes, backslashes and control characters escaped).
void json_string(std::ostream& os, std::string_view s) {
  os << '"';
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      os << '\\' << c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      os << buf;
    } else {
      os << c;
    }
  }
  os << '"';
}

template <typename KeyOf>
std::vector<ProfileRow> totals(std::span<const ProfileEvent> events, KeyOf key_of) {
  std::map<std::string_view, ProfileRow> rows;
  for (const ProfileEvent& e : events) {
    ProfileRow& r = rows[key_of(e)];
    r.total_ms += e.dur_us / 1000.0;
    ++r.calls;
  }
  std::vector<ProfileRow> out;
  for (auto& [key, row] : rows) {
    row.key = std::string(key);
    out.push_back(std::move(row));
  }
  std::stable_sort(out.begin(), out.end(), [](const ProfileRow& a, const ProfileRow& b) {
    return a.total_ms > b.total_ms;
  });
  return out;
}

void print_table(std::ostream& out, const char* title, const std::vector<ProfileRow>& rows,
                 size_t top_n, double run_ms) {
  size_t width = 24;
  const size_t n = std::min(top_n, rows.size());
  for (size_t i = 0; i < n; ++i) width = std::max(width, rows[i].key.size());
  out << std::left << std::setw(int(width)) << title << std::right << std::setw(12) << "total ms"
      << std::setw(9) << "% run" << std::setw(9) << "calls"
      << "\n";
  for (size_t i = 0; i < n; ++i) {
    const ProfileRow& r = rows[i];
    out << std::left << std::setw(int(width)) << r.key << std::right << std::fixed
        << std::setprecision(3) << std::setw(12) << r.total_ms << std::setprecision(1)
        << std::setw(9) << (run_ms > 0 ? 100.0 * r.total_ms / run_ms : 0.0) << std::setw(9)
        << r.calls << "\n";
  }
  if (rows.size() > n) out << "(" << rows.size() - n << " more)\n";
}

}  // namespace

void Profiler::clear() {
  events_.clear();
  num_runs_ = 0;
  run_ms_ = 0;
}

double Profiler::node_ms() const {
  double us = 0;
  for (const ProfileEvent& e : events_) us += e.dur_us;
  return us / 1000.0;
}

void Profiler::begin_run() {
  run_start_ = Clock::now();
  if (num_runs_ == 0) origin_ = run_start_;
}

void Profiler::end_run() {
  run_ms_ += us_between(run_start_, Clock::now()) / 1000.0;
  ++num_runs_;
}

void Profiler::record(std::string_view node, std::string_view op, std::string_view module_path,
                      int32_t node_index, Clock::time_point start, Clock::time_point end,
                      std::span<const Tensor> outputs, std::span<const Tensor> inputs) {
  if (observer) observer(node_index, inputs, outputs);
  ProfileEvent& e = events_.emplace_back();
  e.node = node;
  e.op = op;
  e.module_path = module_path;
  e.node_index = node_index;
  e.run = num_runs_;
  e.start_us = us_between(origin_, start);
  e.dur_us = std::max(0.0, us_between(start, end));
  if (!outputs.empty()) {
    e.output = outputs[0];
    e.output.data = nullptr;
  }
  for (const Tensor& t : outputs) e.output_bytes += t.nbytes();
}

std::vector<ProfileRow> Profiler::by_op() const {
  return totals(events_, [](const ProfileEvent& e) { return e.op; });
}

std::vector<ProfileRow> Profiler::by_module() const {
  return totals(events_, [](const ProfileEvent& e) {
    return e.module_path.empty() ? std::string_view("(top level)") : e.module_path;
  });
}

std::string Profiler::chrome_trace() const {
  std::ostringstream os;
  os << std::fixed << std::setprecision(3);
  os << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [";
  for (size_t i = 0; i < events_.size(); ++i) {
    const ProfileEvent& e = events_[i];
    os << (i ? ",\n" : "\n") << "{\"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"name\": ";
    json_string(os, e.node);
    os << ", \"cat\": ";
    json_string(os, e.op);
    os << ", \"ts\": " << e.start_us << ", \"dur\": " << e.dur_us << ", \"args\": {\"module\": ";
    json_string(os, e.module_path);
    os << ", \"node_index\": " << e.node_index << ", \"run\": " << e.run << ", \"shape\": ";
    json_string(os, shape_str(e.output.shape()));
    os << ", \"dtype\": ";
    json_string(os, dtype_name(e.output.dtype));
    os << ", \"bytes\": " << e.output_bytes << "}}";
  }
  os << "\n]}\n";
  return os.str();
}

Status Profiler::write_chrome_trace(const std::string& path) const {
  const std::string json = chrome_trace();
  return write_file_atomic(path,
                           std::span(reinterpret_cast<const uint8_t*>(json.data()), json.size()));
}

void Profiler::print_tables(std::ostream& out, size_t top_n) const {
  const double node = node_ms();
  const std::ios_base::fmtflags flags = out.flags();
  out << std::fixed << std::setprecision(3) << "profile: " << num_runs_ << " run(s), " << run_ms_
      << " ms wall, " << node << " ms in " << events_.size() << " node runs ("
      << std::setprecision(1) << (run_ms_ > 0 ? 100.0 * node / run_ms_ : 0.0) << "% of run)\n";
  print_table(out, "op", by_op(), top_n, run_ms_);
  out << "\n";
  print_table(out, "module path", by_module(), top_n, run_ms_);
  out.flags(flags);
}

}  // namespace tir
