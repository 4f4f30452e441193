// Runs every case of the conformance sweep and checks docs/conformance.md against the
// results: a sample that stops passing (or starts) makes the page stale and fails this test.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "tests/common/test_util.h"
#include "tests/conformance/conformance_run.h"
#include "tests/conformance/opinfo_dtypes.h"

namespace tir::conformance {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

/// The page's section on every OpInfo dtype of every catalogue row (opinfo_dtypes.h).
std::string opinfo_dtypes_section() {
  std::vector<std::string> errors;
  const std::vector<OpInfoDtype> pairs = opinfo_dtypes(testing::test_data_dir(), &errors);
  std::ifstream f(testing::test_data_dir() + "/opinfo_dtypes.json");
  const std::string torch =
      f ? nlohmann::json::parse(f, nullptr, false).value("torch", std::string("?")) : "?";
  return render_opinfo_dtypes_markdown(
      pairs, run_opinfo_dtype_samples(testing::test_data_dir(), pairs), torch);
}

TEST(Conformance, OpInfoSamplesMatchTheDocumentedResults) {
  const std::string dir = testing::test_data_dir() + "/conformance";
  std::ifstream f(dir + "/manifest.json");
  ASSERT_TRUE(f) << "no " << dir << "/manifest.json";
  const nlohmann::json m = nlohmann::json::parse(f);
  ASSERT_GT(m["cases"].size(), 100u);
  std::vector<CaseResult> results;
  for (const auto& c : m["cases"]) results.push_back(run_case(dir, c));
  const std::string md =
      render_markdown(results, m["torch"].get<std::string>()) +
      render_promotion_markdown(run_promotion_sweep(testing::test_data_dir() + "/promotion"),
                                "core IR") +
      render_promotion_markdown(
          run_promotion_sweep(testing::test_data_dir() + "/promotion_training"), "training IR") +
      opinfo_dtypes_section();
  if (const char* out = std::getenv("TIR_CONFORMANCE_WRITE")) {
    std::ofstream w(out, std::ios::binary | std::ios::trunc);
    w << md;
  }
  EXPECT_EQ(md, slurp(testing::test_data_dir() + "/../../docs/conformance.md"))
      << "docs/conformance.md is stale: rerun with TIR_CONFORMANCE_WRITE=$PWD/docs/conformance.md";
}

// The promotion sweep is real: it has thousands of pairs, and a pair whose expected value is
// wrong fails (the sweep's results are in docs/conformance.md, checked above).
TEST(Conformance, PromotionSweepCountsAndCatchesAWrongAnswer) {
  for (const char* dialect : {"/promotion_training", "/promotion"}) {
    const auto results = run_promotion_sweep(testing::test_data_dir() + dialect);
    ASSERT_GE(results.size(), 50u) << dialect;
    int total = 0, passed = 0;
    for (const PromotionResult& r : results) {
      total += r.total;
      passed += r.passed;
    }
    EXPECT_GT(total, 4000) << dialect;
    EXPECT_GT(passed, 0) << dialect;
  }
  const std::string dir = testing::test_data_dir() + "/promotion";
  std::ifstream f(dir + "/manifest.json");
  const nlohmann::json m = nlohmann::json::parse(f);
  nlohmann::json c;
  for (const nlohmann::json& each : m["cases"])
    if (each["case"] == "add-tensor") c = each;
  ASSERT_FALSE(c.is_null()) << "no case add-tensor";
  const auto pairs = c["pairs"].get<std::vector<std::string>>();
  const size_t k =
      size_t(std::find(pairs.begin(), pairs.end(), "float32 x float32") - pairs.begin());
  ASSERT_LT(k, pairs.size());
  const CaseResult r = run_case(dir, c);
  ASSERT_GT(r.outputs.size(), k) << r.reason;
  nlohmann::json want = c["outputs"][k];
  EXPECT_EQ(compare_output(k, r.outputs[k].view(), tensor_of(want).view(), "torch"), "");
  want["data"][0] = want["data"][0].get<double>() + 1.0;
  EXPECT_NE(compare_output(k, r.outputs[k].view(), tensor_of(want).view(), "torch"), "");
}

// float64 outputs are checked at float64 precision: torch's float64 cosine rounded through
// float32 (what a float32 kernel would give) fails, as does an error of 1e-7 relative.
TEST(Conformance, Float64IsComparedAtFloat64Precision) {
  const std::string dir = testing::test_data_dir() + "/op_suite";
  std::ifstream f(dir + "/manifest.json");
  ASSERT_TRUE(f);
  const nlohmann::json m = nlohmann::json::parse(f);
  for (nlohmann::json c : m["cases"]) {
    if (c["case"] != "aten-cos-float64") continue;
    const CaseResult good = run_case(dir, c);
    ASSERT_TRUE(good.passed) << good.reason;
    auto& d = c["outputs"][0]["data"];
    nlohmann::json rounded = c, nudged = c;
    for (size_t i = 0; i < d.size(); ++i)
      rounded["outputs"][0]["data"][i] = double(float(d[i].get<double>()));
    nudged["outputs"][0]["data"][0] = d[0].get<double>() * (1 + 1e-7);
    for (const nlohmann::json* bad : {&rounded, &nudged}) {
      const CaseResult r = run_case(dir, *bad);
      EXPECT_FALSE(r.passed);
      EXPECT_NE(r.reason.find("elements differ"), std::string::npos) << r.reason;
    }
    return;
  }
  FAIL() << "no case aten-cos-float64";
}

// A sample whose outputs differ from torch's is reported, not passed: feed a case the wrong
// expected values.
TEST(Conformance, AWrongAnswerFails) {
  const std::string dir = testing::test_data_dir() + "/conformance";
  std::ifstream f(dir + "/manifest.json");
  ASSERT_TRUE(f);
  const nlohmann::json m = nlohmann::json::parse(f);
  for (nlohmann::json c : m["cases"]) {
    if (c["dtype"] != "float32" || c["outputs"][0]["data"].empty()) continue;
    const CaseResult good = run_case(dir, c);
    if (!good.passed) continue;
    auto& d = c["outputs"][0]["data"];
    d[0] = d[0].is_number() ? d[0].get<double>() + 1.0 : 1.0;
    const CaseResult bad = run_case(dir, c);
    EXPECT_FALSE(bad.passed) << c["case"];
    EXPECT_NE(bad.reason.find("elements differ"), std::string::npos) << bad.reason;
    return;
  }
  FAIL() << "no passing float32 case";
}

}  // namespace
}  // namespace tir::conformance
