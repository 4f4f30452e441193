// Dynamic shapes end to end on real torch exports with Dims: every fixture at several
// shapes per symbol (min and max included) through one Session, and every kind of
// constraint violation rejected with its exact error line before any kernel runs.
#include <gtest/gtest.h>

#include "importer/import_pt2.h"
#include "runtime/exec/session.h"
#include "runtime/weights/npy.h"
#include "tests/common/test_util.h"

namespace tir {
namespace {

using testing::TempDir;

nlohmann::json dynamic_manifest() {
  std::ifstream f(testing::fixture_dir() + "/dynamic/manifest.json");
  return nlohmann::json::parse(f);
}

std::vector<nlohmann::json> dynamic_fixtures() {
  const nlohmann::json m = dynamic_manifest();
  return m["fixtures"].get<std::vector<nlohmann::json>>();
}

/// Imports dynamic/<dir>/program.pt2 into tmp and opens a session on it.
std::unique_ptr<Session> open_fixture(const std::string& rel, const TempDir& tmp) {
  importer::ImportOptions o;
  o.input = testing::fixture_dir() + "/dynamic/" + rel + "/program.pt2";
  o.model_path = tmp.file("m.tir");
  o.weights_path = tmp.file("m.bin");
  auto imported = importer::import_pt2(o);
  EXPECT_TRUE(imported.ok()) << imported.status().message();
  if (!imported.ok()) return nullptr;
  auto session = Session::open(o.model_path, o.weights_path);
  EXPECT_TRUE(session.ok()) << session.status().message();
  return session.ok() ? std::move(session).value() : nullptr;
}

class DynamicFixture : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(DynamicFixture, MatchesTorchAtEveryShape) {
  const nlohmann::json& f = GetParam();
  const std::string dir = testing::fixture_dir() + "/dynamic/" + f["dir"].get<std::string>();
  TempDir tmp;
  auto session = open_fixture(f["dir"], tmp);
  ASSERT_NE(session, nullptr);
  // Twice over the cases: the second pass reuses the plans cached for each shape.
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& c : f["cases"]) {
      SCOPED_TRACE("symbol value " + c["value"].dump());
      std::vector<HostTensor> inputs;
      std::vector<Tensor> views;
      for (const auto& in : c["inputs"]) {
        auto t = npy_read(dir + "/" + in["file"].get<std::string>());
        ASSERT_TRUE(t.ok()) << t.status().message();
        inputs.push_back(std::move(t).value());
      }
      for (const HostTensor& h : inputs) views.push_back(h.view());
      auto outputs = session->run(views);
      ASSERT_TRUE(outputs.ok()) << outputs.status().message();
      ASSERT_EQ(outputs->size(), c["outputs"].size());
      for (size_t k = 0; k < outputs->size(); ++k) {
        auto want = npy_read(dir + "/" + c["outputs"][k]["file"].get<std::string>());
        ASSERT_TRUE(want.ok());
        EXPECT_TRUE(testing::all_close((*outputs)[k], want->view(), f["rtol"], f["atol"]))
            << "output " << k;
      }
    }
  }
  EXPECT_EQ(session->num_cached_plans(), f["cases"].size());
}

INSTANTIATE_TEST_SUITE_P(Dynamic, DynamicFixture, ::testing::ValuesIn(dynamic_fixtures()),
                         testing::FixtureName());

/// The root symbol name torch gave fixture `model` (e.g. "s77"), from range_constraints.
std::string root_symbol(const std::string& model) {
  const nlohmann::json m = dynamic_manifest();
  for (const auto& f : m["fixtures"])
    if (f["model"] == model)
      for (const auto& [name, range] : f["range_constraints"].items())
        if (name.find('*') == std::string::npos) return name;
  return "?";
}

struct Violation {
  std::string model;
  std::vector<std::vector<int64_t>> shapes;  // one per input, float32 zeros
  std::string expected;                      // with {s} for the root symbol
};

class ConstraintViolation : public ::testing::TestWithParam<Violation> {};

TEST_P(ConstraintViolation, RejectedWithExactMessageBeforeAnyKernelRuns) {
  const Violation& v = GetParam();
  TempDir tmp;
  auto session = open_fixture(v.model + "/training", tmp);
  ASSERT_NE(session, nullptr);
  std::vector<HostTensor> inputs;
  std::vector<Tensor> views;
  for (const auto& s : v.shapes) inputs.emplace_back(DType::kFloat32, s);
  for (const HostTensor& h : inputs) views.push_back(h.view());
  auto r = session->run(views);
  ASSERT_FALSE(r.ok());
  std::string expected = v.expected;
  const std::string sym = root_symbol(v.model);
  for (size_t at; (at = expected.find("{s}")) != std::string::npos;) expected.replace(at, 3, sym);
  EXPECT_EQ(r.status().message(), expected);
  EXPECT_EQ(session->kernel_calls(), 0u) << "a kernel ran before the input was rejected";
}

INSTANTIATE_TEST_SUITE_P(
    Dynamic, ConstraintViolation,
    ::testing::Values(
        Violation{"mlp_range",
                  {{1, 16}},
                  "input 'x' dim 0 = 1: expected {s} in [2, 8] (below the minimum)"},
        Violation{"mlp_range",
                  {{9, 16}},
                  "input 'x' dim 0 = 9: expected {s} in [2, 8] (above the maximum)"},
        Violation{"seq8",
                  {{2, 13, 16}},
                  "input 'x' dim 1 = 13: expected 8*{s} with {s} in [2, 64] (not a multiple of 8)"},
        Violation{"seq8",
                  {{2, 520, 16}},
                  "input 'x' dim 1 = 520: expected 8*{s} with {s} in [2, 64] ({s} = 65 is above "
                  "the maximum)"},
        Violation{"branches_dyn",
                  {{4, 64}, {5, 128}},
                  "input 'x2' dim 0 = 5: expected {s} with {s} = 4 as bound by input 'x1' dim 0 "
                  "(inputs disagree on {s})"},
        Violation{"mlp_assert",
                  {{3, 16}},
                  "node '_assert_scalar_default' (aten::_assert_scalar): assertion failed: Runtime "
                  "assertion failed for expression Ne({s}, 3) on node 'sym_not'"},
        Violation{
            "mlp_range", {{4, 15}}, "input 'x' dim 1 = 15: expected 16 (input shape [4, 15])"}),
    [](const auto& info) { return info.param.model + "_" + std::to_string(info.index); });

/// The symbol of fixture `model` whose range ends at `max` (tells batch from seq apart).
std::string symbol_with_max(const std::string& model, int64_t max) {
  const nlohmann::json m = dynamic_manifest();
  for (const auto& f : m["fixtures"])
    if (f["model"] == model)
      for (const auto& [name, range] : f["range_constraints"].items())
        if (range["max_val"] == max) return name;
  return "?";
}

/// Runs `session` on `inputs`; returns the error message ("" on success).
std::string run_error(Session& session, const std::vector<HostTensor>& inputs) {
  std::vector<Tensor> views;
  for (const HostTensor& h : inputs) views.push_back(h.view());
  auto r = session.run(views);
  return r.ok() ? "" : r.status().message();
}

HostTensor int64_scalar(int64_t v) {
  HostTensor t(DType::kInt64, std::vector<int64_t>{});
  *t.data<int64_t>() = v;
  return t;
}

// GPT-2 with batch in [1, 4] and seq in [1, 32]: each symbol is checked on its own dim.
TEST(DynamicTwoSymbols, EachSymbolRangeCheckedOnItsDim) {
  TempDir tmp;
  auto session = open_fixture("gpt2_dyn/training", tmp);
  ASSERT_NE(session, nullptr);
  const std::string batch = symbol_with_max("gpt2_dyn", 4), seq = symbol_with_max("gpt2_dyn", 32);
  auto ids = [](int64_t b, int64_t s) {
    std::vector<HostTensor> in;
    in.emplace_back(DType::kInt64, std::vector{b, s});
    return in;
  };
  EXPECT_EQ(run_error(*session, ids(2, 33)),
            "input 'input_ids' dim 1 = 33: expected " + seq + " in [1, 32] (above the maximum)");
  EXPECT_EQ(run_error(*session, ids(5, 8)),
            "input 'input_ids' dim 0 = 5: expected " + batch + " in [1, 4] (above the maximum)");
  EXPECT_EQ(run_error(*session, ids(0, 8)),
            "input 'input_ids' dim 0 = 0: expected " + batch + " in [1, 4] (below the minimum)");
  EXPECT_EQ(session->kernel_calls(), 0u);
  EXPECT_EQ(run_error(*session, ids(4, 32)), "");  // both maxima at once
}

// An int user input (SymInt) is passed as a 0-dim int64 tensor and binds its symbol: the
// outputs follow its value, not the export-time hint (symint_input: x[:n] * 2, arange(n)+b).
TEST(SymIntInput, BindsItsSymbolFromTheValue) {
  TempDir tmp;
  auto session = open_fixture("symint_input/training", tmp);
  ASSERT_NE(session, nullptr);
  ASSERT_EQ(session->inputs().size(), 2u);
  for (int64_t n : {3, 7}) {
    std::vector<HostTensor> in;
    in.emplace_back(DType::kFloat32, std::vector<int64_t>{8, 3});
    in.push_back(int64_scalar(n));
    std::vector<Tensor> views = {in[0].view(), in[1].view()};
    auto out = session->run(views);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(shape_str((*out)[0].shape()), shape_str(std::vector<int64_t>{n, 3}));
    ASSERT_EQ(shape_str((*out)[1].shape()), shape_str(std::vector<int64_t>{n}));
    EXPECT_EQ(static_cast<const int64_t*>((*out)[1].data)[n - 1], 8 + n - 1);
  }
}

TEST(SymIntInput, RejectsBadValuesBeforeAnyKernelRuns) {
  TempDir tmp;
  auto session = open_fixture("symint_input/training", tmp);
  ASSERT_NE(session, nullptr);
  // n's symbol: the one that is not x's batch dim (both range over [2, 16]).
  const std::string batch = session->inputs()[0].dims[0];
  std::string n_sym;
  const nlohmann::json m = dynamic_manifest();
  for (const auto& f : m["fixtures"])
    if (f["model"] == "symint_input")
      for (const auto& [name, range] : f["range_constraints"].items())
        if (name != batch) n_sym = name;
  auto x = [] { return HostTensor(DType::kFloat32, std::vector<int64_t>{8, 3}); };
  std::vector<HostTensor> in;
  in.push_back(x());
  in.push_back(int64_scalar(17));
  EXPECT_EQ(run_error(*session, in),
            "input 'n' = 17: expected " + n_sym + " in [2, 16] (above the maximum)");
  in[1] = int64_scalar(1);
  EXPECT_EQ(run_error(*session, in),
            "input 'n' = 1: expected " + n_sym + " in [2, 16] (below the minimum)");
  in[1] = HostTensor(DType::kFloat32, std::vector<int64_t>{});
  EXPECT_EQ(run_error(*session, in),
            "input 'n' is an integer (SymInt): expected a 0-dim int64 tensor, got float32[]");
  in[1] = HostTensor(DType::kInt64, std::vector<int64_t>{1});
  EXPECT_EQ(run_error(*session, in),
            "input 'n' is an integer (SymInt): expected a 0-dim int64 tensor, got int64[1]");
  EXPECT_EQ(session->kernel_calls(), 0u);
}

}  // namespace
}  // namespace tir
