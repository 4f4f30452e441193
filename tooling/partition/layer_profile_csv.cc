#include "tooling/partition/layer_profile_csv.h"

#include <sstream>

#include "core/atomic_file.h"
#include "core/regular_file.h"

namespace tir::tools {

Status layer_profile_write(const std::string& path, const LayerProfileTable& t) {
  std::ostringstream os;
  os << kLayerProfileHeader << "\n";
  os.precision(9);
  for (const LayerProfileRow& r : t.rows)
    os << (r.module.empty() ? kTopLevelModule : r.module) << "," << t.depth << "," << r.nodes << ","
       << r.median_ms << "," << r.param_bytes << "," << r.input_bytes << "," << r.output_bytes
       << "," << r.peak_activation_bytes << "\n";
  const std::string text = os.str();
  TIR_ASSIGN_OR_RETURN(std::unique_ptr<AtomicFile> f, AtomicFile::create(path));
  TIR_RETURN_IF_ERROR(f->write({reinterpret_cast<const uint8_t*>(text.data()), text.size()}));
  TIR_RETURN_IF_ERROR(f->sync());
  return f->commit();
}

Result<LayerProfileTable> layer_profile_read(const std::string& path) {
  TIR_ASSIGN_OR_RETURN(const std::string text, read_regular_file(path, "profile"));
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != kLayerProfileHeader)
    return make_error(StatusCode::kCorrupt, "profile '", path,
                      "': line 1 is not the header written by tirrun --profile-layers (",
                      kLayerProfileHeader, ")");
  LayerProfileTable t;
  for (int number = 2; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string part; std::getline(ss, part, ',');) f.push_back(part);
    LayerProfileRow r;
    int depth = 0;
    try {
      if (f.size() != 8) throw std::invalid_argument("columns");
      size_t used = 0;
      depth = std::stoi(f[1]);
      r.nodes = std::stoll(f[2]);
      r.median_ms = std::stod(f[3], &used);
      if (used != f[3].size() || r.median_ms < 0) throw std::invalid_argument("time");
      r.param_bytes = std::stoull(f[4]);
      r.input_bytes = std::stoull(f[5]);
      r.output_bytes = std::stoull(f[6]);
      r.peak_activation_bytes = std::stoull(f[7]);
    } catch (const std::exception&) {
      return make_error(StatusCode::kCorrupt, "profile '", path, "' line ", number,
                        ": expected 8 columns (", kLayerProfileHeader, "), got '", line, "'");
    }
    if (t.rows.empty()) t.depth = depth;
    r.module = f[0] == kTopLevelModule ? "" : f[0];
    t.rows.push_back(std::move(r));
  }
  return t;
}

}  // namespace tir::tools
