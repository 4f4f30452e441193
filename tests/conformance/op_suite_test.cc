// The op suite: one test per op catalogue row, backend and dtype that the row lists
// (kernels/ops/), generated from the catalogue. Each runs the row's OpInfo samples (the
// conformance sweep's one-op programs, tests/data/conformance) with that backend's kernels and
// compares the outputs with the reference backend's and with torch's. A CPU case counts only
// when the row's node really ran on an optimized CPU kernel; CUDA cases skip, with the reason,
// where no GPU is present, so a run on a GPU machine tests every CUDA row by name. Rows that no
// OpInfo sample exercises (training-IR ops such as aten::linear, which the core-ATen sweep never
// emits) skip and say so.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "runtime/devices/device.h"
#include "runtime/exec/device_select.h"
#include "tests/common/test_util.h"
#include "tests/conformance/conformance_run.h"

namespace tir::conformance {
namespace {

using kernels::Backend;

struct SuiteCase {
  std::string op;
  Backend backend;
  DType dtype;  // kUndefined: the row's "any dtype" kernel
};

std::vector<SuiteCase> suite_cases() {
  std::vector<SuiteCase> cases;
  for (const kernels::FamilyTable& table : kernels::op_catalogue())
    for (const kernels::OpRow& row : table.rows)
      for (Backend b : {Backend::kReference, Backend::kCpu, Backend::kCuda})
        row.dtypes(b).for_each([&](DType d) { cases.push_back({std::string(row.op), b, d}); });
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<SuiteCase>& info) {
  std::string name =
      info.param.op + "_" + std::string(kernels::backend_name(info.param.backend)) + "_" +
      std::string(info.param.dtype == DType::kUndefined ? "any" : dtype_name(info.param.dtype));
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

const nlohmann::json& manifest() {
  static const nlohmann::json m = [] {
    std::ifstream f(testing::test_data_dir() + "/conformance/manifest.json");
    return f ? nlohmann::json::parse(f) : nlohmann::json::object();
  }();
  return m;
}

/// The sweep's cases whose program holds `op` (in `dtype` unless any).
std::vector<nlohmann::json> samples_of(const std::string& op, DType dtype) {
  std::vector<nlohmann::json> out;
  for (const auto& c : manifest().value("cases", nlohmann::json::array())) {
    bool holds = false;
    for (const auto& o : c["core_ops"]) holds = holds || o.get<std::string>() == op;
    if (holds && (dtype == DType::kUndefined || c["dtype"].get<std::string>() == dtype_name(dtype)))
      out.push_back(c);
  }
  return out;
}

bool ran_on(const CaseResult& r, const std::string& op, Backend b) {
  for (const auto& [node_op, backend] : r.kernels)
    if (node_op == op && backend == b) return true;
  return false;
}

class OpSuite : public ::testing::TestWithParam<SuiteCase> {};

TEST_P(OpSuite, MatchesTheReferenceAndTorch) {
  const SuiteCase& sc = GetParam();
  const std::string dir = testing::test_data_dir() + "/conformance";
  const std::vector<nlohmann::json> samples = samples_of(sc.op, sc.dtype);
  if (samples.empty()) GTEST_SKIP() << "no OpInfo sample holds " << sc.op << " in this dtype";
  SessionOptions reference;
  reference.devices = {make_reference_device()};
  SessionOptions on_backend;
  if (sc.backend == Backend::kReference) on_backend = reference;
  if (sc.backend == Backend::kCuda) {
    auto selected = select_device("cuda");
    if (!selected.ok()) GTEST_SKIP() << "no CUDA device: " << selected.status().message();
    on_backend.devices = selected->devices;
    on_backend.placement = selected->placement;
  }
  int exercised = 0;
  for (const nlohmann::json& c : samples) {
    const CaseResult want = run_case(dir, c, reference);
    if (!want.passed) continue;  // a documented conformance failure (docs/conformance.md)
    const CaseResult got = run_case(dir, c, on_backend);
    if (!ran_on(got, sc.op, sc.backend)) continue;  // another dtype keyed this node's kernel
    ++exercised;
    EXPECT_TRUE(got.passed) << c["case"] << ": " << got.reason;
    ASSERT_EQ(got.outputs.size(), want.outputs.size()) << c["case"];
    for (size_t k = 0; k < got.outputs.size(); ++k)
      EXPECT_EQ(compare_output(k, got.outputs[k].view(), want.outputs[k].view(), "the reference"),
                "")
          << c["case"];
  }
  if (exercised == 0)
    GTEST_SKIP() << samples.size() << " OpInfo sample(s) hold " << sc.op
                 << ", none runs it on this backend in this dtype";
}

INSTANTIATE_TEST_SUITE_P(Catalogue, OpSuite, ::testing::ValuesIn(suite_cases()), case_name);

}  // namespace
}  // namespace tir::conformance
