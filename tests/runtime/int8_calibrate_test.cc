// Calibrated int8 weight files (`tir-calibrate`, SmoothQuant;
// tooling/calibrate/calibrate.h, core/quantize.h) on a real torch fixture (tests/data/fixtures/mlp,
// training IR):
//  - the calibrated pack stores every GEMM weight smoothed, 1/s read back from the file is
//    the 1/s the packer computes from the calibration, the dequantized weights are the
//    float32 ones within int8 rounding, and its int8 run is within the documented bound of
//    torch and (with 8-bit activations) no farther from torch than the uncalibrated pack;
//  - a file written by tirc before smoothing existed (mlp_training_int8_v1.bin) still loads,
//    holds no smoothing and runs as an uncalibrated pack does;
//  - a calibration set lacking an input, naming no input, or of the wrong shape fails with
//    one line naming the set and input, and writes no file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "core/quantize.h"
#include "kernels/cpu/onednn/onednn_context.h"
#include "runtime/weights/npy.h"
#include "tests/runtime/fixture_session.h"
#include "tests/runtime/lowp_util.h"
#include "tooling/calibrate/calibrate.h"
#include "tooling/weights/weights_tool.h"

namespace tir {
namespace {

using testing::copies;
using testing::find_fixture;
using testing::import_fixture;
using testing::max_abs_diff;
using testing::read_all;
using testing::TempDir;
using testing::views;

using testing::kInt8Tolerance;
const char* const kFixture = "mlp/training";

std::vector<HostTensor> run_file(const TempDir& tmp, const std::string& weights,
                                 const std::vector<HostTensor>& inputs) {
  SessionOptions o;
  o.precision = Precision::kInt8;
  auto session = Session::open(tmp.file("m.tir"), weights, o);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return {};
  auto out = (*session)->run(views(inputs));
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? copies(*out) : std::vector<HostTensor>{};
}

/// Calibration sets under `dir`: the fixture's input, and that input scaled by 0.5 and 2.
void write_sets(const std::string& dir, const HostTensor& x) {
  const float factors[] = {1.0f, 0.5f, 2.0f};
  for (int k = 0; k < 3; ++k) {
    const std::string set = dir + "/" + std::to_string(k);
    std::filesystem::create_directories(set);
    HostTensor t = HostTensor::copy_of(x.view());
    float* v = t.view().data_as<float>();
    for (int64_t i = 0; i < t.view().numel(); ++i) v[i] *= factors[k];
    ASSERT_TRUE(npy_write(set + "/x.npy", t.view()).ok());
  }
}

Status pack(const TempDir& tmp, const std::string& out, const std::string& calibration_dir,
            tools::Calibration* calibration) {
  tools::PackOptions p;
  p.source = tmp.file("m.bin");
  p.output = out;
  p.narrow = DType::kInt8;
  p.model = tmp.file("m.tir");
  if (!calibration_dir.empty()) {
    auto c = tools::calibrate_gemm_inputs({p.model, p.source, calibration_dir});
    if (!c.ok()) return c.status();
    *calibration = std::move(*c);
    p.activation_max = &calibration->activation_max;
  }
  std::ostringstream log;
  return tools::weights_pack(p, log);
}

TEST(Int8Calibrate, SmoothedPackRoundTripsAndIsCloserToTorch) {
  const std::string dir = testing::fixture_dir() + "/" + kFixture;
  const nlohmann::json f = find_fixture(kFixture);
  TempDir tmp;
  ASSERT_TRUE(import_fixture(dir, tmp));
  const auto inputs = read_all(dir, f["inputs"]);
  const auto expected = read_all(dir, f["outputs"]);
  write_sets(tmp.file("calib"), inputs[0]);
  tools::Calibration cal;
  ASSERT_TRUE(pack(tmp, tmp.file("plain.bin"), "", nullptr).ok());
  const Status s = pack(tmp, tmp.file("smooth.bin"), tmp.file("calib"), &cal);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(cal.sets, 3u);
  EXPECT_EQ(cal.gemms, 2u);  // the fixture's two linears

  auto f32 = WeightSet::open(tmp.file("m.bin"));
  auto smooth = WeightSet::open(tmp.file("smooth.bin"));
  ASSERT_TRUE(f32.ok() && smooth.ok());
  size_t smoothed = 0;
  for (size_t i = 0; i < (*smooth)->size(); ++i) {
    const kernels::QuantizedWeight* q = (*smooth)->quantized(i);
    if (!q) continue;
    const std::string& name = (*smooth)->names()[i];
    ASSERT_NE(q->inv_smooth, nullptr) << name;
    ++smoothed;
    const Tensor* w = (*f32)->find(name);
    ASSERT_NE(w, nullptr);
    // 1/s as read back = 1 / smooth_factor(calibration, max |w| of the input channel).
    const auto& act = cal.activation_max.at(name);
    ASSERT_EQ(int64_t(act.size()), q->cols);  // linear [N, K], per row: K = cols
    bool some_not_one = false;
    for (int64_t k = 0; k < q->cols; ++k) {
      float w_max = 0;
      for (int64_t r = 0; r < q->rows; ++r)
        w_max = std::max(w_max, std::fabs(w->data_as<float>()[r * q->cols + k]));
      EXPECT_EQ(q->inv_smooth[k], 1.0f / smooth_factor(act[size_t(k)], w_max, 0.5f)) << name << k;
      some_not_one |= q->inv_smooth[k] != 1.0f;
    }
    EXPECT_TRUE(some_not_one) << name;
    // The tensor the graph sees: q * scale * 1/s, the float32 weight within int8 rounding
    // of the smoothed row (half a step of its scale, times 1/s).
    const Tensor* back = (*smooth)->find(name);
    for (int64_t r = 0; r < q->rows; ++r)
      for (int64_t k = 0; k < q->cols; ++k)
        EXPECT_LE(std::fabs(back->data_as<float>()[r * q->cols + k] -
                            w->data_as<float>()[r * q->cols + k]),
                  0.5001f * q->scales[r] * q->inv_smooth[k])
            << name << " [" << r << ", " << k << "]";
  }
  EXPECT_EQ(smoothed, 2u);

  const auto plain_out = run_file(tmp, tmp.file("plain.bin"), inputs);
  const auto smooth_out = run_file(tmp, tmp.file("smooth.bin"), inputs);
  ASSERT_EQ(smooth_out.size(), expected.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    const auto [err, scale] = max_abs_diff(smooth_out[k].view(), expected[k].view());
    const auto [plain_err, unused] = max_abs_diff(plain_out[k].view(), expected[k].view());
    std::printf(
        "[ int8     ] %s output %zu: max|int8-torch| / max|torch| calibrated %.3g, "
        "uncalibrated %.3g\n",
        kFixture, k, err / scale, plain_err / scale);
    EXPECT_LE(err, kInt8Tolerance * scale);
    // Measured with 8-bit activations. With 7 (a CPU whose u8 x s8 pairs saturate,
    // kernels/cpu/onednn/onednn_context.h) this fixture's smoothed run is not closer (AMD EPYC,
    // AVX2: 0.0063 vs 0.0051 of max|torch|), both far inside the tolerance above.
    if (!kernels::int8_pairs_saturate())
      EXPECT_LE(err, plain_err) << "calibration moved output " << k << " away from torch";
  }
}

TEST(Int8Calibrate, FileWrittenBeforeSmoothingStillLoads) {
  const std::string dir = testing::fixture_dir() + "/" + kFixture;
  TempDir tmp;
  ASSERT_TRUE(import_fixture(dir, tmp));
  const auto inputs = read_all(dir, find_fixture(kFixture)["inputs"]);
  ASSERT_TRUE(pack(tmp, tmp.file("plain.bin"), "", nullptr).ok());
  // Written by `tirc weights pack --dtype int8` at commit 3bb71a3 (before `smoothed`).
  const std::string old = testing::fixture_dir() + "/quant/mlp_training_int8_v1.bin";
  auto set = WeightSet::open(old);
  ASSERT_TRUE(set.ok()) << set.status().message();
  size_t quantized = 0;
  for (size_t i = 0; i < (*set)->size(); ++i)
    if (const kernels::QuantizedWeight* q = (*set)->quantized(i)) {
      ++quantized;
      EXPECT_EQ(q->inv_smooth, nullptr);
    }
  EXPECT_EQ(quantized, 2u);
  const auto from_old = run_file(tmp, old, inputs);
  const auto from_new = run_file(tmp, tmp.file("plain.bin"), inputs);
  ASSERT_EQ(from_old.size(), from_new.size());
  for (size_t k = 0; k < from_old.size(); ++k)
    EXPECT_EQ(
        std::memcmp(from_old[k].view().data, from_new[k].view().data, from_old[k].view().nbytes()),
        0)
        << "an uncalibrated pack today computes what the old file does, output " << k;
}

TEST(Int8Calibrate, BadCalibrationSetsNameTheInputAndWriteNothing) {
  const std::string dir = testing::fixture_dir() + "/" + kFixture;
  TempDir tmp;
  ASSERT_TRUE(import_fixture(dir, tmp));
  const auto inputs = read_all(dir, find_fixture(kFixture)["inputs"]);
  struct Case {
    std::string file;  // what the one set holds
    std::vector<int64_t> shape;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"y.npy", {4, 16}, "'y.npy' names no input of method 'forward' (inputs: x)"},
      {"", {}, "has no x.npy for input 'x'"},
      {"x.npy", {4, 17}, "input 'x' dim 1 = 17: expected 16"},
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    const std::string set = tmp.file("bad" + std::to_string(c)) + "/0";
    std::filesystem::create_directories(set);
    if (!cases[c].file.empty()) {
      HostTensor t(DType::kFloat32, cases[c].shape);
      ASSERT_TRUE(npy_write(set + "/" + cases[c].file, t.view()).ok());
    }
    tools::Calibration cal;
    const std::string out = tmp.file("out" + std::to_string(c) + ".bin");
    const Status s = pack(tmp, out, tmp.file("bad" + std::to_string(c)), &cal);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find(cases[c].want), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("calibration set '" + set + "'"), std::string::npos) << s.message();
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

}  // namespace
}  // namespace tir
