#include "tests/conformance/conformance_run.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <type_traits>

#include "core/float16.h"
#include "importer/import_pt2.h"
#include "kernels/shapes/dtype_util.h"
#include "runtime/exec/session.h"
#include "runtime/weights/host_tensor.h"

namespace tir::conformance {
namespace {

DType dtype_of(const std::string& s) {
  for (int v = 0; v < 16; ++v)
    if (dtype_valid(v) && dtype_name(DType(v)) == s) return DType(v);
  return DType::kUndefined;
}

template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

double number(const nlohmann::json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return std::nan("");
    return s == "-inf" ? -INFINITY : INFINITY;
  }
  return v.get<double>();
}

}  // namespace

HostTensor tensor_of(const nlohmann::json& j) {
  const std::vector<int64_t> shape = j["shape"].get<std::vector<int64_t>>();
  HostTensor t(dtype_of(j["dtype"].get<std::string>()), shape);
  const nlohmann::json& data = j["data"];
  // A complex tensor's data lists its parts, real then imaginary, element by element.
  kernels::visit_any_dtype(complex_part_dtype(t.view().dtype), [&](auto tag) {
    using T = decltype(tag);
    T* out = static_cast<T*>(t.view().data);
    for (size_t i = 0; i < data.size(); ++i) {
      if constexpr (kIsHalf<T>) {
        out[i] = T::from_float(static_cast<float>(number(data[i])));
      } else if constexpr (std::is_same_v<T, bool>) {
        out[i] = data[i].is_boolean() ? data[i].get<bool>() : data[i].get<int64_t>() != 0;
      } else if constexpr (std::is_floating_point_v<T>) {
        out[i] = static_cast<T>(number(data[i]));
      } else {
        out[i] = data[i].is_boolean() ? T(data[i].get<bool>()) : data[i].get<T>();
      }
    }
  });
  return t;
}

namespace {

double element(const Tensor& t, int64_t i) {
  double v = 0;
  kernels::visit_any_dtype(t.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T x = static_cast<const T*>(t.data)[i];
    if constexpr (kIsHalf<T>) {
      v = x.to_float();
    } else {
      v = static_cast<double>(x);
    }
  });
  return v;
}

}  // namespace

std::string compare_output(size_t k, const Tensor& got, const Tensor& want,
                           const std::string& who) {
  const std::string at = "output " + std::to_string(k) + ": ";
  if (got.dtype != want.dtype)
    return at + "dtype " + std::string(dtype_name(got.dtype)) + ", " + who + " gives " +
           std::string(dtype_name(want.dtype));
  if (!got.same_shape(want))
    return at + "shape " + shape_str(got.shape()) + ", " + who + " gives " +
           shape_str(want.shape());
  if (dtype_is_complex(want.dtype)) {  // part by part, as two floats per element
    Tensor g = got, w = want;
    g.dtype = w.dtype = complex_part_dtype(want.dtype);
    g.set_shape({got.numel() * 2});
    w.set_shape({want.numel() * 2});
    return compare_output(k, g, w, who);
  }
  const bool exact = !dtype_is_float(want.dtype);
  // float16 / bfloat16: one rounding step of the dtype (transcendentals may round the other way).
  const double rtol = want.dtype == DType::kBFloat16  ? 0x1p-7
                      : want.dtype == DType::kFloat16 ? 0x1p-10
                      : want.dtype == DType::kFloat64 ? kRtol64
                                                      : kRtol;
  const double atol = want.dtype == DType::kFloat64 ? kAtol64 : kAtol;
  int64_t bad = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double a = element(got, i), b = element(want, i);
    if (exact ? a != b
              : !(std::isnan(b) ? std::isnan(a)
                                : (a == b || std::abs(a - b) <= atol + rtol * std::abs(b))))
      ++bad;
  }
  if (bad == 0) return "";
  return at + std::to_string(bad) + " of " + std::to_string(want.numel()) + " elements differ" +
         (exact ? "" : " beyond the tolerance");
}

namespace {

// An error message without the archive's path ("'<path>': ...").
std::string without_path(const std::string& m) {
  if (m.starts_with("'")) {
    const size_t end = m.find("': ");
    if (end != std::string::npos) return m.substr(end + 3);
  }
  return m;
}

}  // namespace

CaseResult run_case(const std::string& dir, const nlohmann::json& c,
                    const SessionOptions& options) {
  CaseResult r;
  r.case_name = c["case"].get<std::string>();
  r.op = c["op"].get<std::string>();
  r.dtype = c["dtype"].get<std::string>();
  const std::filesystem::path tmp =
      std::filesystem::temp_directory_path() / ("tir_conformance_" + std::to_string(::getpid()));
  std::filesystem::create_directories(tmp);
  importer::ImportOptions o;
  o.input = dir + "/" + r.case_name + ".pt2";
  o.model_path = (tmp / "m.tir").string();
  o.weights_path = (tmp / "m.bin").string();
  const auto imported = importer::import_pt2(o);
  if (!imported.ok()) {
    r.reason = "import: " + without_path(imported.status().message());
    return r;
  }
  auto session = Session::open(o.model_path, o.weights_path, options);
  if (!session.ok()) {
    r.reason = "load: " + without_path(session.status().message());
    return r;
  }
  std::vector<HostTensor> inputs;
  std::vector<Tensor> views;
  for (const auto& j : c["inputs"]) inputs.push_back(tensor_of(j));
  for (const HostTensor& h : inputs) views.push_back(h.view());
  auto outputs = (*session)->run(views);
  if (!outputs.ok()) {
    r.reason = "run: " + without_path(outputs.status().message());
    return r;
  }
  const nlohmann::json& want = c["outputs"];
  if (outputs->size() != want.size()) {
    r.reason =
        std::to_string(outputs->size()) + " outputs, torch gives " + std::to_string(want.size());
    return r;
  }
  for (const ExecNode& n : (*session)->exec_graph().nodes)
    if (n.kernel) r.kernels.emplace_back(n.op, n.kernel->backend());
  for (const Tensor& t : *outputs) r.outputs.push_back(HostTensor::copy_of(t));
  for (size_t k = 0; k < want.size(); ++k) {
    r.reason = compare_output(k, (*outputs)[k], tensor_of(want[k]).view(), "torch");
    if (!r.reason.empty()) return r;
  }
  r.passed = true;
  return r;
}

std::string render_markdown(const std::vector<CaseResult>& results, const std::string& torch) {
  struct OpTally {
    int passed = 0, total = 0;
  };
  std::map<std::string, OpTally> ops;
  int passed = 0;
  for (const CaseResult& r : results) {
    OpTally& t = ops[r.op];
    ++t.total;
    t.passed += r.passed;
    passed += r.passed;
  }
  int ops_all = 0;
  for (const auto& [op, t] : ops) ops_all += t.passed == t.total;
  std::ostringstream os;
  os << "# Conformance with PyTorch's OpInfo samples\n\n"
     << "Generated by `tests/conformance/conformance_test` (set `TIR_CONFORMANCE_WRITE` to this "
        "file's path to rewrite it); do not edit. The fixtures are one-op programs exported by "
        "`tests/conformance/gen_conformance.py` (torch "
     << torch
     << ") from the sample inputs of torch's OpInfo database, for every op whose core-ATen "
        "program has only core ATen ops (or the two non-core ops that decomposition itself "
        "emits for inference: `_embedding_bag_forward_only`, "
        "`_native_batch_norm_legit_functional`), in float32 and int64. A sample passes when "
        "tir's outputs match torch eager's (floats within rtol 1e-4, atol 1e-5, float64 "
        "outputs within rtol 1e-9, atol 1e-12; integers and bools exactly).\n\n"
     << "**" << passed << " of " << results.size() << " samples pass ("
     << (results.empty() ? 0 : passed * 1000 / static_cast<int>(results.size())) / 10.0 << "%); "
     << ops_all << " of " << ops.size() << " OpInfo entries pass every sample.**\n\n"
     << "| OpInfo entry | passed / samples |\n|---|---|\n";
  for (const auto& [op, t] : ops)
    os << "| `" << op << "` | " << t.passed << " / " << t.total << " |\n";
  os << "\n## Failures\n\n";
  if (passed == static_cast<int>(results.size())) os << "None.\n";
  for (const CaseResult& r : results) {
    if (r.passed) continue;
    std::string reason = r.reason;
    for (char& ch : reason)
      if (ch == '|' || ch == '\n') ch = ' ';
    os << "- `" << r.case_name << "`: " << reason << "\n";
  }
  return os.str();
}

std::vector<PromotionResult> run_promotion_sweep(const std::string& dir) {
  std::ifstream f(dir + "/manifest.json");
  const nlohmann::json m = nlohmann::json::parse(f);
  std::vector<PromotionResult> out;
  for (const nlohmann::json& c : m["cases"]) {
    PromotionResult p;
    p.op = c["op"].get<std::string>();
    p.form = c["dtype"].get<std::string>();
    const std::vector<std::string> pairs = c["pairs"].get<std::vector<std::string>>();
    p.total = int(pairs.size());
    const CaseResult r = run_case(dir, c);
    for (size_t k = 0; k < pairs.size(); ++k) {
      std::string why =
          k < r.outputs.size()
              ? compare_output(k, r.outputs[k].view(), tensor_of(c["outputs"][k]).view(), "torch")
              : r.reason;
      if (why.empty()) {
        ++p.passed;
      } else {
        p.failed.push_back(pairs[k] + ": " + why);
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::string render_promotion_markdown(const std::vector<PromotionResult>& results,
                                      std::string_view dialect) {
  int passed = 0, total = 0;
  for (const PromotionResult& r : results) {
    passed += r.passed;
    total += r.total;
  }
  std::ostringstream os;
  os << "\n## Type promotion sweep, " << dialect << "\n\n"
     << "`tests/conformance/gen_promotion.py` exports, per op and operand form, one program "
        "computing the op on every pair of bool, uint8, int8, int16, int32, int64, float16, "
        "bfloat16, float32 and float64 that torch accepts (tensor x tensor, tensor x 0-dim "
        "tensor, tensor x Python int/float/bool); a pair passes when tir's result has torch's "
        "dtype and values (float16/bfloat16 within one rounding step).\n\n"
     << "**" << passed << " of " << total << " pairs pass in " << results.size()
     << " programs.**\n\n| op | form | passed / pairs |\n|---|---|---|\n";
  for (const PromotionResult& r : results)
    os << "| `" << r.op << "` | " << r.form << " | " << r.passed << " / " << r.total << " |\n";
  // Failures grouped by their reason (the pair's name cut off): one line per op, form and reason.
  bool header = false;
  for (const PromotionResult& r : results) {
    std::map<std::string, int> reasons;
    for (const std::string& why : r.failed) {
      std::string reason = why.substr(why.find(": ") + 2);
      for (char& ch : reason)
        if (ch == '|' || ch == '\n') ch = ' ';
      ++reasons[reason];
    }
    for (const auto& [reason, n] : reasons) {
      if (!header) os << "\n### Failing pairs, by reason\n\n";
      header = true;
      os << "- `" << r.op << "` (" << r.form << "), " << n << " pair" << (n == 1 ? "" : "s") << ": "
         << reason << "\n";
    }
  }
  return os.str();
}

}  // namespace tir::conformance
