// The op suite: one test per op catalogue row, backend and dtype that the row lists
// (kernels/ops/), generated from the catalogue. Each runs the row's samples with that backend's
// kernels and compares the outputs with the reference backend's and with torch's: the
// conformance sweep's OpInfo programs (tests/data/conformance) and the suite's own one-op
// programs (tests/data/op_suite, gen_op_samples.py: one per row and dtype the sweep leaves
// out or an optimized backend lists, training-IR ops such as aten::linear included). A case
// counts only when the row's node really ran on that backend's kernel; an own sample that
// fails to import, run or match torch on the reference fails the case. CUDA cases skip, with
// the reason, where no GPU is present, so a run on a GPU machine tests every CUDA row by name.
// A row no sample holds skips and says why (gen_op_samples.py's "refused").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runtime/devices/device.h"
#include "runtime/exec/device_select.h"
#include "tests/common/test_util.h"
#include "tests/conformance/conformance_run.h"
#include "tests/conformance/opinfo_dtypes.h"

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

/// A sample: its manifest case and the folder of its archive.
struct Sample {
  nlohmann::json c;
  std::string dir;
};

/// Both fixture sets: the conformance sweep's OpInfo samples (tests/data/conformance,
/// gen_conformance.py) and the op suite's own (tests/data/op_suite, gen_op_samples.py: a
/// program per catalogue row and dtype, its "dtype" that of the op's first tensor input).
const std::vector<Sample>& all_samples() {
  static const std::vector<Sample> all = [] {
    std::vector<Sample> out;
    for (const char* folder : {"/conformance", "/op_suite"}) {
      const std::string dir = testing::test_data_dir() + folder;
      std::ifstream f(dir + "/manifest.json");
      if (!f) continue;
      const nlohmann::json m = nlohmann::json::parse(f);
      for (const auto& c : m["cases"]) out.push_back({c, dir});
    }
    return out;
  }();
  return all;
}

/// Why gen_op_samples.py made no sample of `op` (its manifest's "refused"), or "".
std::string refused(const std::string& op) {
  std::ifstream f(testing::test_data_dir() + "/op_suite/manifest.json");
  if (!f) return "";
  for (const auto& r : nlohmann::json::parse(f).value("refused", nlohmann::json::array()))
    if (r["op"] == op) return r["reason"].get<std::string>();
  return "";
}

/// The samples whose program holds `op` (in `dtype` unless any).
std::vector<Sample> samples_of(const std::string& op, DType dtype) {
  std::vector<Sample> out;
  for (const Sample& s : all_samples()) {
    bool holds = false;
    for (const auto& o : s.c["core_ops"]) holds = holds || o.get<std::string>() == op;
    if (holds &&
        (dtype == DType::kUndefined || s.c["dtype"].get<std::string>() == dtype_name(dtype)))
      out.push_back(s);
  }
  return out;
}

bool ran_on(const CaseResult& r, const std::string& op, Backend b) {
  for (const auto& [node_op, backend] : r.kernels)
    if (node_op == op && backend == b) return true;
  return false;
}

/// The pairs docs/conformance.md lists as run by tir but not sampled or not passing
/// ("- `op` dtype: why"), with why.
const std::map<std::string, std::string>& documented_opinfo_failures() {
  static const std::map<std::string, std::string> failures = [] {
    std::map<std::string, std::string> out;
    std::ifstream f(testing::test_data_dir() + "/../../docs/conformance.md");
    bool in_section = false;
    for (std::string line; std::getline(f, line);) {
      if (line.starts_with("### "))
        in_section = line == "### Run by tir, not sampled or not passing";
      if (!in_section || !line.starts_with("- `")) continue;
      const size_t end = line.find('`', 3), colon = line.find(": ", end);
      if (end == std::string::npos || colon == std::string::npos) continue;
      out[line.substr(3, end - 3) + " " + line.substr(end + 2, colon - end - 2)] =
          line.substr(colon + 2);
    }
    return out;
  }();
  return failures;
}

class OpSuite : public ::testing::TestWithParam<SuiteCase> {};

TEST_P(OpSuite, MatchesTheReferenceAndTorch) {
  const SuiteCase& sc = GetParam();
  const std::vector<Sample> samples = samples_of(sc.op, sc.dtype);
  if (samples.empty()) {
    const std::string why = refused(sc.op);
    GTEST_SKIP() << "no sample holds " << sc.op << " in this dtype"
                 << (why.empty() ? "" : "; gen_op_samples.py: " + why);
  }
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
  for (const auto& [c, dir] : samples) {
    // The op suite's own samples must import, run and match torch on the reference too; the
    // sweep's failures are documented (docs/conformance.md) and left out here.
    const bool own = c.contains("generator");
    const CaseResult want = run_case(dir, c, reference);
    if (!want.passed) {
      const bool documented = documented_opinfo_failures().count(c["op"].get<std::string>() + " " +
                                                                 c["dtype"].get<std::string>());
      if (own && !documented) ADD_FAILURE() << c["case"] << " on the reference: " << want.reason;
      continue;
    }
    CaseResult on_other;
    if (sc.backend != Backend::kReference) on_other = run_case(dir, c, on_backend);
    const CaseResult& got = sc.backend == Backend::kReference ? want : on_other;
    if (own && got.kernels.empty()) ADD_FAILURE() << c["case"] << ": " << got.reason;
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
    GTEST_SKIP() << samples.size() << " sample(s) hold " << sc.op
                 << ", none runs it on this backend in this dtype";
}

INSTANTIATE_TEST_SUITE_P(Catalogue, OpSuite, ::testing::ValuesIn(suite_cases()), case_name);

// Every dtype torch's OpInfo lists for a row's op (tests/data/opinfo_dtypes.json) is one tir
// runs, or the exclusion list names it with a reason; the list has no stale entries.
TEST(OpInfoDtypes, EveryTorchDtypeIsImplementedOrExcluded) {
  std::vector<std::string> errors;
  const std::vector<OpInfoDtype> pairs = opinfo_dtypes(testing::test_data_dir(), &errors);
  ASSERT_GT(pairs.size(), 1000u);
  for (const std::string& e : errors) ADD_FAILURE() << e;
  for (const OpInfoDtype& p : pairs)
    if (p.how.empty() && p.excluded.empty())
      ADD_FAILURE() << p.op << " in " << p.dtype
                    << ": torch's OpInfo lists it and tir does not run it; implement it or "
                       "exclude it with a reason in tests/data/opinfo_dtype_exclusions.json";
}

/// A copy of the table and exclusion files, edited by `edit`, in a fresh folder.
std::string edited_data(const std::function<void(nlohmann::json&, nlohmann::json&)>& edit) {
  const std::string dir = ::testing::TempDir() + "/opinfo_dtypes_edit";
  std::filesystem::create_directories(dir);
  nlohmann::json table =
      nlohmann::json::parse(std::ifstream(testing::test_data_dir() + "/opinfo_dtypes.json"));
  nlohmann::json excl = nlohmann::json::parse(
      std::ifstream(testing::test_data_dir() + "/opinfo_dtype_exclusions.json"));
  edit(table, excl);
  std::ofstream(dir + "/opinfo_dtypes.json") << table.dump();
  std::ofstream(dir + "/opinfo_dtype_exclusions.json") << excl.dump();
  return dir;
}

// The check can fail: a dtype no kernel takes and no exclusion names is a gap, an exclusion
// of a pair tir runs is stale, and a catalogue row the table lacks is reported.
TEST(OpInfoDtypes, GapsStaleExclusionsAndMissingRowsAreReported) {
  const std::string dir = edited_data([](nlohmann::json& table, nlohmann::json& excl) {
    table["ops"]["aten::cos"]["dtypes"].push_back("int4");
    table["ops"].erase("aten::sin");
    excl["by_op"].push_back({{"ops", {"aten::cos"}}, {"dtypes", {"float32"}}, {"reason", "x"}});
  });
  std::vector<std::string> errors;
  const std::vector<OpInfoDtype> pairs = opinfo_dtypes(dir, &errors);
  bool gap = false;
  for (const OpInfoDtype& p : pairs)
    gap = gap || (p.op == "aten::cos" && p.dtype == "int4" && p.how.empty() && p.excluded.empty());
  EXPECT_TRUE(gap);
  std::string all;
  for (const std::string& e : errors) all += e + "\n";
  EXPECT_NE(all.find("aten::sin is not in opinfo_dtypes.json"), std::string::npos) << all;
  EXPECT_NE(all.find("exclusion of aten::cos in float32 is stale"), std::string::npos) << all;
}

std::vector<OpInfoDtype> opinfo_cases() {
  std::vector<std::string> errors;
  return opinfo_dtypes(testing::test_data_dir(), &errors);
}

std::string opinfo_case_name(const ::testing::TestParamInfo<OpInfoDtype>& info) {
  std::string name = info.param.op + "_" + info.param.dtype;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

class OpInfoDtypeSamples : public ::testing::TestWithParam<OpInfoDtype> {};

// Each pair tir runs has an own sample (gen_op_samples.py) in that dtype, which matches torch
// on the default CPU device: float64 within float64's tolerance, float16 / bfloat16 within
// one rounding step, integers and bools exactly (compare_output). A pair docs/conformance.md
// lists as failing skips with that reason (conformance_test keeps the list true); any other
// failure fails here.
TEST_P(OpInfoDtypeSamples, MatchTorch) {
  const OpInfoDtype& p = GetParam();
  if (p.how.empty()) GTEST_SKIP() << "not run by tir: " << p.excluded;
  const auto known = documented_opinfo_failures().find(p.op + " " + p.dtype);
  if (known != documented_opinfo_failures().end())
    GTEST_SKIP() << "documented in docs/conformance.md: " << known->second;
  int ran = 0;
  for (const Sample& s : all_samples()) {
    if (!s.c.contains("generator") || s.c["op"] != p.op || s.c["dtype"] != p.dtype) continue;
    const CaseResult r = run_case(s.dir, s.c);
    EXPECT_TRUE(r.passed) << s.c["case"] << ": " << r.reason;
    bool node = false;
    for (const auto& [op, backend] : r.kernels) node = node || op == p.op;
    EXPECT_TRUE(node || !r.passed) << s.c["case"] << ": no node of " << p.op << " ran";
    ++ran;
  }
  if (ran == 0) {
    const std::string why = refused(p.op);
    GTEST_SKIP() << "no sample of " << p.op << " in " << p.dtype
                 << (why.empty() ? "" : "; gen_op_samples.py: " + why);
  }
}

INSTANTIATE_TEST_SUITE_P(OpInfo, OpInfoDtypeSamples, ::testing::ValuesIn(opinfo_cases()),
                         opinfo_case_name);

}  // namespace
}  // namespace tir::conformance
