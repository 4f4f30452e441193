#include "tests/conformance/conformance_run.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "importer/import_pt2.h"
#include "runtime/exec/session.h"
#include "runtime/weights/host_tensor.h"

namespace tir::conformance {
namespace {

DType dtype_of(const std::string& s) {
  if (s == "float32") return DType::kFloat32;
  if (s == "float64") return DType::kFloat64;
  if (s == "int64") return DType::kInt64;
  if (s == "int32") return DType::kInt32;
  if (s == "bool") return DType::kBool;
  if (s == "int8") return DType::kInt8;
  if (s == "uint8") return DType::kUInt8;
  return DType::kUndefined;
}

double number(const nlohmann::json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return std::nan("");
    return s == "-inf" ? -INFINITY : INFINITY;
  }
  return v.get<double>();
}

HostTensor tensor_of(const nlohmann::json& j) {
  const std::vector<int64_t> shape = j["shape"].get<std::vector<int64_t>>();
  HostTensor t(dtype_of(j["dtype"].get<std::string>()), shape);
  const nlohmann::json& data = j["data"];
  for (size_t i = 0; i < data.size(); ++i) {
    switch (t.view().dtype) {
      case DType::kFloat32:
        t.data<float>()[i] = static_cast<float>(number(data[i]));
        break;
      case DType::kFloat64:
        t.data<double>()[i] = number(data[i]);
        break;
      case DType::kInt64:
        t.data<int64_t>()[i] = data[i].get<int64_t>();
        break;
      case DType::kInt32:
        t.data<int32_t>()[i] = data[i].get<int32_t>();
        break;
      case DType::kInt8:
        t.data<int8_t>()[i] = data[i].get<int8_t>();
        break;
      case DType::kUInt8:
        t.data<uint8_t>()[i] = data[i].get<uint8_t>();
        break;
      case DType::kBool:
        t.data<bool>()[i] =
            data[i].is_boolean() ? data[i].get<bool>() : data[i].get<int64_t>() != 0;
        break;
      default:
        break;
    }
  }
  return t;
}

double element(const Tensor& t, int64_t i) {
  switch (t.dtype) {
    case DType::kFloat32:
      return t.data_as<const float>()[i];
    case DType::kFloat64:
      return t.data_as<const double>()[i];
    case DType::kInt64:
      return static_cast<double>(t.data_as<const int64_t>()[i]);
    case DType::kInt32:
      return t.data_as<const int32_t>()[i];
    case DType::kInt8:
      return t.data_as<const int8_t>()[i];
    case DType::kUInt8:
      return t.data_as<const uint8_t>()[i];
    case DType::kBool:
      return t.data_as<const bool>()[i];
    default:
      return 0;
  }
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
  const bool exact = !dtype_is_float(want.dtype);
  int64_t bad = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double a = element(got, i), b = element(want, i);
    if (exact ? a != b
              : !(std::isnan(b) ? std::isnan(a)
                                : (a == b || std::abs(a - b) <= kAtol + kRtol * std::abs(b))))
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
        "tir's outputs match torch eager's (floats within rtol 1e-4, atol 1e-5; integers and "
        "bools exactly).\n\n"
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

}  // namespace tir::conformance
