#include "tooling/calibrate/calibrate.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <unordered_map>

#include "runtime/exec/profiler.h"
#include "runtime/exec/session.h"
#include "runtime/weights/npy.h"
#include "tooling/weights/int8_plan.h"

namespace tir::tools {
namespace {

namespace fs = std::filesystem;

/// The input sets under `dir`: its subdirectories in name order, or `dir` itself when it
/// has none.
Result<std::vector<fs::path>> input_sets(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return make_error(StatusCode::kInvalidArgument, "calibration inputs '", dir,
                      "' is not a directory (one NAME.npy per input, or one subdirectory of "
                      "them per input set)");
  std::vector<fs::path> sets;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
    if (e.is_directory()) sets.push_back(e.path());
  if (ec) return make_error(StatusCode::kIo, "calibration inputs '", dir, "': ", ec.message());
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) sets.push_back(dir);
  return sets;
}

std::string input_names(const Session& s) {
  std::string names;
  for (const IoSpec& in : s.inputs()) names += (names.empty() ? "" : ", ") + in.name;
  return names;
}

/// One set's tensors in signature order.
Result<std::vector<HostTensor>> read_set(const fs::path& set, const Session& s,
                                         const std::string& method) {
  std::vector<HostTensor> tensors(s.inputs().size());
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(set, ec)) {
    if (!e.is_regular_file() || e.path().extension() != ".npy") continue;
    const std::string name = e.path().stem().string();
    const int k = s.input_index(name);
    if (k < 0)
      return make_error(StatusCode::kInvalidArgument, "calibration set '", set.string(), "': '",
                        e.path().filename().string(), "' names no input of method '", method,
                        "' (inputs: ", input_names(s), ")");
    TIR_ASSIGN_OR_RETURN(tensors[size_t(k)], npy_read(e.path().string()));
  }
  if (ec)
    return make_error(StatusCode::kIo, "calibration set '", set.string(), "': ", ec.message());
  for (size_t k = 0; k < tensors.size(); ++k)
    if (tensors[k].view().data == nullptr)
      return make_error(StatusCode::kInvalidArgument, "calibration set '", set.string(),
                        "' has no ", s.inputs()[k].name, ".npy for input '", s.inputs()[k].name,
                        "' of method '", method, "'");
  return tensors;
}

/// max over every index of |t[..., k]| into m[k] (t float32, any strides, last dim m.size()).
void channel_max(const Tensor& t, std::vector<float>& m) {
  const int last = t.rank - 1;
  const int64_t k = t.sizes[size_t(last)], ks = t.strides[size_t(last)];
  const float* base = t.data_as<const float>();
  std::array<int64_t, kMaxRank> at{};
  const int64_t rows = k ? t.numel() / k : 0;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t off = 0;
    for (int d = 0; d < last; ++d) off += at[size_t(d)] * t.strides[size_t(d)];
    for (int64_t c = 0; c < k; ++c) {
      const float v = std::fabs(base[off + c * ks]);
      if (v > m[size_t(c)] || std::isnan(v)) m[size_t(c)] = v;  // NaN sticks: no factor
    }
    for (int d = last - 1; d >= 0 && ++at[size_t(d)] == t.sizes[size_t(d)]; --d) at[size_t(d)] = 0;
  }
}

}  // namespace

Result<Calibration> calibrate_gemm_inputs(const CalibrateOptions& o) {
  TIR_ASSIGN_OR_RETURN(const std::vector<fs::path> sets, input_sets(o.inputs));
  TIR_ASSIGN_OR_RETURN(const std::vector<Int8GemmUse> uses, int8_gemm_uses(o.model, o.method));
  TIR_ASSIGN_OR_RETURN(auto model, data_source_mmap(o.model));
  TIR_ASSIGN_OR_RETURN(auto weights, WeightSet::open(o.weights));
  SessionOptions so;
  so.method = o.method;
  so.fuse = false;  // every GEMM its own kernel call, its A a tensor the observer sees
  TIR_ASSIGN_OR_RETURN(auto session, Session::create(std::move(model), std::move(weights), so));

  std::unordered_map<int32_t, size_t> use_of_node;
  std::vector<std::vector<float>> maxima(uses.size());
  for (size_t u = 0; u < uses.size(); ++u) {
    use_of_node[uses[u].node] = u;
    maxima[u].assign(size_t(uses[u].k), 0.0f);
  }
  std::set<size_t> seen;
  Status bad = ok_status();
  Profiler profiler;
  profiler.observer = [&](int32_t node, std::span<const Tensor> inputs, std::span<const Tensor>) {
    const auto it = use_of_node.find(node);
    if (it == use_of_node.end() || !bad.ok()) return;
    const Int8GemmUse& use = uses[it->second];
    const Tensor* a = size_t(use.a_input) < inputs.size() ? &inputs[size_t(use.a_input)] : nullptr;
    if (!a || a->dtype != DType::kFloat32 || a->rank < 1 ||
        a->sizes[size_t(a->rank - 1)] != use.k) {
      bad = make_error(StatusCode::kInternal, "calibration: GEMM node ", node, " reading '",
                       use.weight_names[0], "' has no float32 activation with ", use.k,
                       " channels as its input ", use.a_input);
      return;
    }
    channel_max(*a, maxima[it->second]);
    seen.insert(it->second);
  };
  TIR_RETURN_IF_ERROR(session->set_profiler(&profiler));
  for (const fs::path& set : sets) {
    TIR_ASSIGN_OR_RETURN(std::vector<HostTensor> tensors, read_set(set, *session, o.method));
    std::vector<Tensor> views;
    for (const HostTensor& t : tensors) views.push_back(t.view());
    const auto out = session->run(views);
    if (!out.ok())
      return make_error(out.status().code(), "calibration set '", set.string(),
                        "': ", out.status().message());
    TIR_RETURN_IF_ERROR(bad);
    profiler.clear();  // only the observer is wanted, not the events
  }
  TIR_RETURN_IF_ERROR(session->set_profiler(nullptr));
  Calibration c;
  c.sets = sets.size();
  c.gemms = seen.size();
  for (size_t u : seen)
    for (const std::string& name : uses[u].weight_names) {
      std::vector<float>& m = c.activation_max[name];
      if (m.empty()) m.assign(maxima[u].size(), 0.0f);
      if (m.size() != maxima[u].size()) continue;  // read with two different K: keep the first
      for (size_t k = 0; k < m.size(); ++k)
        if (maxima[u][k] > m[k] || std::isnan(maxima[u][k])) m[k] = maxima[u][k];
    }
  return c;
}

}  // namespace tir::tools
