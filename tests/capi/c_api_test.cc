// The C ABI (include/tir/tir.h, runtime/capi/c_api.cc) through libtir: every misuse is a status
// with a message naming the thing, and a real torch fixture runs to torch's outputs. The
// fixtures are imported with the built tirc ($TIRC), so this suite links libtir alone.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "include/tir/tir.h"
#include "runtime/weights/data_loader.h"
#include "runtime/weights/npy.h"
#include "tests/capi/tirc_import.h"
#include "tests/common/npy_util.h"
#include "tests/common/test_util.h"

namespace tir {
namespace {

using testing::read_npy;
using testing::TempDir;

#define EXPECT_STATUS(expr, code, fragment)                                              \
  do {                                                                                   \
    const tir_status st_ = (expr);                                                       \
    EXPECT_EQ(st_, code) << #expr << ": " << tir_last_error();                           \
    EXPECT_NE(std::string(tir_last_error()).find(fragment), std::string::npos)           \
        << #expr << ": message '" << tir_last_error() << "' lacks '" << fragment << "'"; \
  } while (0)

/// Imports fixture `dir` (under tests/data/fixtures) with tirc into tmp/m.tir + tmp/m.bin.
bool import(const std::string& dir, const TempDir& tmp) {
  return testing::tirc_import(testing::fixture_dir() + "/" + dir, tmp);
}

Tensor view_of(const tir_tensor_view& v) {
  return make_tensor(static_cast<DType>(v.dtype), {v.dims, static_cast<size_t>(v.rank)},
                     const_cast<void*>(v.data));
}

TEST(CApi, Version) {
  // The project version, then "+g<revision>" in a build from a git checkout.
  EXPECT_EQ(std::string(tir_version()).rfind(TIR_TEST_VERSION, 0), 0u) << tir_version();
  EXPECT_EQ(tir_api_version(), static_cast<uint32_t>(TIR_API_VERSION));
  EXPECT_STREQ(tir_status_name(TIR_NOT_FOUND), "not found");
  EXPECT_STREQ(tir_status_name(static_cast<tir_status>(42)), "unknown status");
  EXPECT_EQ(tir_dtype_size(TIR_DTYPE_FLOAT32), 4u);
  EXPECT_EQ(tir_dtype_size(TIR_DTYPE_UNDEFINED), 0u);
}

TEST(CApi, NullHandlesAreErrorsNamingTheArgument) {
  size_t n = 0;
  tir_io_info info;
  tir_tensor_view view;
  const char* name = nullptr;
  tir_session* s = nullptr;
  EXPECT_STATUS(tir_session_options_create(nullptr), TIR_INVALID_ARGUMENT, "out_options");
  EXPECT_STATUS(tir_session_options_set_method(nullptr, "f"), TIR_INVALID_ARGUMENT, "options");
  EXPECT_STATUS(tir_session_options_set_threads(nullptr, 1), TIR_INVALID_ARGUMENT, "options");
  EXPECT_STATUS(tir_session_open(nullptr, "w.bin", nullptr, &s), TIR_INVALID_ARGUMENT,
                "model_path");
  EXPECT_EQ(s, nullptr);
  EXPECT_STATUS(tir_session_open("m.tir", nullptr, nullptr, &s), TIR_INVALID_ARGUMENT,
                "weights_path");
  EXPECT_STATUS(tir_session_open("m.tir", "w.bin", nullptr, nullptr), TIR_INVALID_ARGUMENT,
                "out_session");
  EXPECT_STATUS(tir_session_open_from_memory(nullptr, 0, nullptr, 0, nullptr, &s),
                TIR_INVALID_ARGUMENT, "model_data");
  EXPECT_STATUS(tir_session_method(nullptr, &name), TIR_INVALID_ARGUMENT, "session");
  EXPECT_STATUS(tir_session_input_count(nullptr, &n), TIR_INVALID_ARGUMENT, "session");
  EXPECT_STATUS(tir_session_output_count(nullptr, &n), TIR_INVALID_ARGUMENT, "session");
  EXPECT_STATUS(tir_session_input_info(nullptr, 0, &info), TIR_INVALID_ARGUMENT, "session");
  EXPECT_STATUS(tir_session_output_info(nullptr, 0, &info), TIR_INVALID_ARGUMENT, "session");
  EXPECT_STATUS(tir_session_input_index(nullptr, "x", &n), TIR_INVALID_ARGUMENT, "session");
  EXPECT_STATUS(tir_session_bind_input(nullptr, 0, TIR_DTYPE_FLOAT32, nullptr, 0, nullptr, 0),
                TIR_INVALID_ARGUMENT, "session");
  EXPECT_STATUS(
      tir_session_bind_input_by_name(nullptr, "x", TIR_DTYPE_FLOAT32, nullptr, 0, nullptr, 0),
      TIR_INVALID_ARGUMENT, "session");
  EXPECT_STATUS(tir_session_run(nullptr), TIR_INVALID_ARGUMENT, "session");
  EXPECT_STATUS(tir_session_output(nullptr, 0, &view), TIR_INVALID_ARGUMENT, "session");
  EXPECT_STATUS(tir_session_swap_weights(nullptr, "w.bin"), TIR_INVALID_ARGUMENT, "session");
  EXPECT_STATUS(tir_session_swap_weights_overlay(nullptr, nullptr, 0), TIR_INVALID_ARGUMENT,
                "session");
  tir_session_free(nullptr);
  tir_session_options_free(nullptr);
}

TEST(CApi, MissingFilesNameThePath) {
  tir_session* s = nullptr;
  const tir_status st = tir_session_open("/nonexistent/m.tir", "/nonexistent/m.bin", nullptr, &s);
  EXPECT_NE(st, TIR_OK);
  EXPECT_NE(std::string(tir_last_error()).find("/nonexistent/m.tir"), std::string::npos)
      << tir_last_error();
  EXPECT_EQ(s, nullptr);
}

TEST(CApi, OptionsAreChecked) {
  tir_session_options* o = nullptr;
  ASSERT_EQ(tir_session_options_create(&o), TIR_OK);
  EXPECT_STATUS(tir_session_options_set_threads(o, -1), TIR_INVALID_ARGUMENT, "threads = -1");
  EXPECT_STATUS(tir_session_options_set_precision(o, static_cast<tir_precision>(7)),
                TIR_INVALID_ARGUMENT, "unknown precision 7");
  EXPECT_STATUS(tir_session_options_set_method(o, nullptr), TIR_INVALID_ARGUMENT, "method");
  tir_session_options_free(o);
}

/// The random ops' fixture (rand, randn, randperm, ...) run once under `seed`: output 0's bytes.
std::vector<uint8_t> random_draw(const TempDir& tmp, const HostTensor& x, uint64_t seed) {
  tir_session_options* o = nullptr;
  EXPECT_EQ(tir_session_options_create(&o), TIR_OK);
  EXPECT_EQ(tir_session_options_set_seed(o, seed), TIR_OK);
  tir_session* s = nullptr;
  const tir_status st =
      tir_session_open(tmp.file("m.tir").c_str(), tmp.file("m.bin").c_str(), o, &s);
  tir_session_options_free(o);
  EXPECT_EQ(st, TIR_OK) << tir_last_error();
  if (st != TIR_OK) return {};
  const Tensor v = x.view();
  EXPECT_EQ(tir_session_bind_input(s, 0, static_cast<tir_dtype>(v.dtype), v.sizes.data(), v.rank,
                                   v.data, v.nbytes()),
            TIR_OK)
      << tir_last_error();
  EXPECT_EQ(tir_session_run(s), TIR_OK) << tir_last_error();
  tir_tensor_view out{};
  EXPECT_EQ(tir_session_output(s, 0, &out), TIR_OK) << tir_last_error();
  const auto* bytes = static_cast<const uint8_t*>(out.data);
  std::vector<uint8_t> draw(bytes, bytes + out.nbytes);
  tir_session_free(s);
  return draw;
}

TEST(CApi, SeedRepeatsTheRandomOpsDraws) {
  TempDir tmp;
  ASSERT_TRUE(import("random/random_ops/core", tmp));
  const HostTensor x = read_npy(testing::fixture_dir() + "/random/random_ops/core/input_0.npy");
  const std::vector<uint8_t> a = random_draw(tmp, x, 5), b = random_draw(tmp, x, 5),
                             c = random_draw(tmp, x, 6);
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

/// resnet_small (core IR), imported once for the suite: input x float32 [2, 3, 32, 32],
/// output float32 [2, 10].
class CApiSession : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new TempDir();
    imported_ = import("resnet_small/core", *tmp_);
  }
  static void TearDownTestSuite() {
    delete tmp_;
    tmp_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(imported_);
    dir_ = testing::fixture_dir() + "/resnet_small/core";
    input_ = read_npy(dir_ + "/input_0.npy");
    expected_ = read_npy(dir_ + "/output_0.npy");
    ASSERT_EQ(tir_session_open(model().c_str(), weights().c_str(), nullptr, &s_), TIR_OK)
        << tir_last_error();
  }
  void TearDown() override { tir_session_free(s_); }

  static std::string model() { return tmp_->file("m.tir"); }
  static std::string weights() { return tmp_->file("m.bin"); }
  tir_status bind_x(tir_session* s) {
    const Tensor& x = input_.view();
    return tir_session_bind_input_by_name(s, "x", TIR_DTYPE_FLOAT32, x.sizes.data(), x.rank, x.data,
                                          x.nbytes());
  }
  ::testing::AssertionResult output_matches(tir_session* s, const HostTensor& want) {
    tir_tensor_view out;
    if (tir_session_output(s, 0, &out) != TIR_OK)
      return ::testing::AssertionFailure() << tir_last_error();
    return testing::all_close(view_of(out), want.view(), 1e-5, 1e-5);
  }

  static TempDir* tmp_;
  static bool imported_;
  std::string dir_;
  HostTensor input_, expected_;
  tir_session* s_ = nullptr;
};
TempDir* CApiSession::tmp_ = nullptr;
bool CApiSession::imported_ = false;

TEST_F(CApiSession, Signature) {
  size_t n = 0;
  ASSERT_EQ(tir_session_input_count(s_, &n), TIR_OK);
  EXPECT_EQ(n, 1u);
  ASSERT_EQ(tir_session_output_count(s_, &n), TIR_OK);
  EXPECT_EQ(n, 1u);
  const char* method = nullptr;
  ASSERT_EQ(tir_session_method(s_, &method), TIR_OK);
  EXPECT_STREQ(method, "forward");
  tir_io_info info;
  ASSERT_EQ(tir_session_input_info(s_, 0, &info), TIR_OK);
  EXPECT_STREQ(info.name, "x");
  EXPECT_EQ(info.dtype, TIR_DTYPE_FLOAT32);
  ASSERT_EQ(info.rank, 4);
  EXPECT_EQ(std::vector<int64_t>(info.dims, info.dims + 4), (std::vector<int64_t>{2, 3, 32, 32}));
  ASSERT_EQ(tir_session_output_info(s_, 0, &info), TIR_OK);
  EXPECT_EQ(info.dtype, TIR_DTYPE_FLOAT32);
  EXPECT_EQ(std::vector<int64_t>(info.dims, info.dims + info.rank), (std::vector<int64_t>{2, 10}));
  EXPECT_STATUS(tir_session_input_info(s_, 1, &info), TIR_INVALID_ARGUMENT, "input index 1");
  EXPECT_STATUS(tir_session_output_info(s_, 3, &info), TIR_INVALID_ARGUMENT, "output index 3");
  EXPECT_STATUS(tir_session_input_index(s_, "y", &n), TIR_NOT_FOUND, "no input 'y' (it has: x)");
  ASSERT_EQ(tir_session_input_index(s_, "x", &n), TIR_OK);
  EXPECT_EQ(n, 0u);
}

TEST_F(CApiSession, RunMatchesTorch) {
  ASSERT_EQ(bind_x(s_), TIR_OK) << tir_last_error();
  ASSERT_EQ(tir_session_run(s_), TIR_OK) << tir_last_error();
  EXPECT_TRUE(output_matches(s_, expected_));
  tir_tensor_view out;
  ASSERT_EQ(tir_session_output(s_, 0, &out), TIR_OK);
  EXPECT_EQ(out.nbytes, 2u * 10 * sizeof(float));
  EXPECT_STATUS(tir_session_output(s_, 1, &out), TIR_INVALID_ARGUMENT, "output index 1");
}

TEST_F(CApiSession, BadBindingsNameTheInput) {
  const Tensor& x = input_.view();
  const int64_t wrong_batch[] = {3, 3, 32, 32};
  const int64_t rank3[] = {3, 32, 32};
  const int64_t negative[] = {2, -3, 32, 32};
  EXPECT_STATUS(tir_session_bind_input_by_name(s_, "y", TIR_DTYPE_FLOAT32, x.sizes.data(), 4,
                                               x.data, x.nbytes()),
                TIR_NOT_FOUND, "no input 'y'");
  EXPECT_STATUS(
      tir_session_bind_input(s_, 5, TIR_DTYPE_FLOAT32, x.sizes.data(), 4, x.data, x.nbytes()),
      TIR_INVALID_ARGUMENT, "input index 5 out of range");
  EXPECT_STATUS(
      tir_session_bind_input(s_, 0, TIR_DTYPE_INT64, x.sizes.data(), 4, x.data, x.nbytes()),
      TIR_INVALID_ARGUMENT, "input 'x': dtype int64, expected float32");
  EXPECT_STATUS(tir_session_bind_input(s_, 0, static_cast<tir_dtype>(99), x.sizes.data(), 4, x.data,
                                       x.nbytes()),
                TIR_INVALID_ARGUMENT, "input 'x': unknown dtype 99");
  EXPECT_STATUS(tir_session_bind_input(s_, 0, TIR_DTYPE_FLOAT32, rank3, 3, x.data, x.nbytes()),
                TIR_INVALID_ARGUMENT, "input 'x': rank 3, expected 4");
  EXPECT_STATUS(tir_session_bind_input(s_, 0, TIR_DTYPE_FLOAT32, rank3, 9, x.data, x.nbytes()),
                TIR_INVALID_ARGUMENT, "input 'x': bad rank 9");
  EXPECT_STATUS(tir_session_bind_input(s_, 0, TIR_DTYPE_FLOAT32, nullptr, 4, x.data, x.nbytes()),
                TIR_INVALID_ARGUMENT, "null dims");
  EXPECT_STATUS(
      tir_session_bind_input(s_, 0, TIR_DTYPE_FLOAT32, wrong_batch, 4, x.data, x.nbytes() * 2),
      TIR_INVALID_ARGUMENT, "input 'x': dim 0 = 3, expected 2");
  EXPECT_STATUS(tir_session_bind_input(s_, 0, TIR_DTYPE_FLOAT32, negative, 4, x.data, x.nbytes()),
                TIR_INVALID_ARGUMENT, "input 'x': dim 1 is -3");
  EXPECT_STATUS(
      tir_session_bind_input(s_, 0, TIR_DTYPE_FLOAT32, x.sizes.data(), 4, x.data, x.nbytes() - 1),
      TIR_INVALID_ARGUMENT, "input 'x': buffer of 24575 bytes");
  EXPECT_STATUS(
      tir_session_bind_input(s_, 0, TIR_DTYPE_FLOAT32, x.sizes.data(), 4, nullptr, x.nbytes()),
      TIR_INVALID_ARGUMENT, "input 'x': data is null");
  // None of these bound anything.
  EXPECT_STATUS(tir_session_run(s_), TIR_INVALID_ARGUMENT, "input 'x' (index 0) is not bound");
}

TEST_F(CApiSession, OutputsNeedASuccessfulRun) {
  tir_tensor_view out;
  EXPECT_STATUS(tir_session_output(s_, 0, &out), TIR_INVALID_ARGUMENT, "has not succeeded");
  EXPECT_STATUS(tir_session_run(s_), TIR_INVALID_ARGUMENT, "'x' (index 0) is not bound");
  EXPECT_STATUS(tir_session_output(s_, 0, &out), TIR_INVALID_ARGUMENT, "has not succeeded");
}

TEST_F(CApiSession, InputIsReadAtRunNotCopiedAtBind) {
  ASSERT_EQ(bind_x(s_), TIR_OK);
  ASSERT_EQ(tir_session_run(s_), TIR_OK) << tir_last_error();
  EXPECT_TRUE(output_matches(s_, expected_));
  // Change the caller's buffer, bind nothing: the next run sees the new values.
  float* x = input_.data<float>();
  for (int64_t i = 0; i < input_.view().numel(); ++i) x[i] = -x[i] + 0.5f;
  ASSERT_EQ(tir_session_run(s_), TIR_OK) << tir_last_error();
  EXPECT_FALSE(output_matches(s_, expected_));
  for (int64_t i = 0; i < input_.view().numel(); ++i) x[i] = -(x[i] - 0.5f);
  ASSERT_EQ(tir_session_run(s_), TIR_OK) << tir_last_error();
  EXPECT_TRUE(output_matches(s_, expected_));
}

TEST_F(CApiSession, UnknownMethodIsNamed) {
  tir_session_options* o = nullptr;
  ASSERT_EQ(tir_session_options_create(&o), TIR_OK);
  ASSERT_EQ(tir_session_options_set_method(o, "decode"), TIR_OK);
  tir_session* s = nullptr;
  EXPECT_STATUS(tir_session_open(model().c_str(), weights().c_str(), o, &s), TIR_NOT_FOUND,
                "has no method 'decode' (it has: forward)");
  EXPECT_EQ(s, nullptr);
  tir_session_options_free(o);
}

TEST_F(CApiSession, OptionsReachTheSession) {
  tir_session_options* o = nullptr;
  ASSERT_EQ(tir_session_options_create(&o), TIR_OK);
  ASSERT_EQ(tir_session_options_set_method(o, "forward"), TIR_OK);
  ASSERT_EQ(tir_session_options_set_threads(o, 1), TIR_OK);
  ASSERT_EQ(tir_session_options_set_fuse(o, 0), TIR_OK);
  ASSERT_EQ(tir_session_options_set_verify_checksums(o, 0), TIR_OK);
  ASSERT_EQ(tir_session_options_set_precision(o, TIR_PRECISION_BF16), TIR_OK);
  tir_session* s = nullptr;
  ASSERT_EQ(tir_session_open(model().c_str(), weights().c_str(), o, &s), TIR_OK)
      << tir_last_error();
  tir_session_options_free(o);  // the session keeps what it needs
  ASSERT_EQ(bind_x(s), TIR_OK);
  ASSERT_EQ(tir_session_run(s), TIR_OK) << tir_last_error();
  tir_tensor_view out;
  ASSERT_EQ(tir_session_output(s, 0, &out), TIR_OK);
  EXPECT_TRUE(testing::all_close(view_of(out), expected_.view(), 5e-2, 5e-2));  // bf16 GEMMs
  tir_session_free(s);
}

TEST_F(CApiSession, OpenFromMemory) {
  auto m = read_file(model());
  auto w = read_file(weights());
  ASSERT_TRUE(m.ok() && w.ok());
  // Aligned buffers are read in place; an unaligned one (offset by 1) is copied once.
  for (size_t offset : {size_t{0}, size_t{1}}) {
    void* mbuf = std::aligned_alloc(64, (m->size() + 64) / 64 * 64 + 64);
    void* wbuf = std::aligned_alloc(64, (w->size() + 64) / 64 * 64 + 64);
    std::memcpy(static_cast<char*>(mbuf) + offset, m->data(), m->size());
    std::memcpy(static_cast<char*>(wbuf) + offset, w->data(), w->size());
    tir_session* s = nullptr;
    ASSERT_EQ(
        tir_session_open_from_memory(static_cast<char*>(mbuf) + offset, m->size(),
                                     static_cast<char*>(wbuf) + offset, w->size(), nullptr, &s),
        TIR_OK)
        << tir_last_error();
    ASSERT_EQ(bind_x(s), TIR_OK);
    ASSERT_EQ(tir_session_run(s), TIR_OK) << tir_last_error();
    EXPECT_TRUE(output_matches(s, expected_)) << "offset " << offset;
    tir_session_free(s);
    std::free(mbuf);
    std::free(wbuf);
  }
  tir_session* s = nullptr;
  EXPECT_STATUS(tir_session_open_from_memory(m->data(), 10, w->data(), w->size(), nullptr, &s),
                TIR_CORRUPT, "<model in memory>");
}

TEST_F(CApiSession, SwapWeights) {
  ASSERT_EQ(bind_x(s_), TIR_OK);
  // Another model's weights: refused naming the file and a tensor; the old set stays.
  TempDir other;
  ASSERT_TRUE(import("mlp/core", other));
  const std::string mlp = other.file("m.bin");
  EXPECT_STATUS(tir_session_swap_weights(s_, mlp.c_str()), TIR_INVALID_ARGUMENT, mlp);
  EXPECT_NE(std::string(tir_last_error()).find("has no tensor '"), std::string::npos)
      << tir_last_error();
  EXPECT_STATUS(tir_session_swap_weights(s_, "/nonexistent/w.bin"), TIR_NOT_FOUND,
                "/nonexistent/w.bin");
  ASSERT_EQ(tir_session_run(s_), TIR_OK) << tir_last_error();
  EXPECT_TRUE(output_matches(s_, expected_));
  // The same weights again, and as an overlay of themselves.
  ASSERT_EQ(tir_session_swap_weights(s_, weights().c_str()), TIR_OK) << tir_last_error();
  const std::string base = weights();
  const char* layers[] = {base.c_str(), base.c_str()};
  ASSERT_EQ(tir_session_swap_weights_overlay(s_, layers, 2), TIR_OK) << tir_last_error();
  ASSERT_EQ(tir_session_run(s_), TIR_OK) << tir_last_error();
  EXPECT_TRUE(output_matches(s_, expected_));
  const char* bad[] = {base.c_str(), mlp.c_str()};
  EXPECT_STATUS(tir_session_swap_weights_overlay(s_, bad, 2), TIR_INVALID_ARGUMENT,
                "overlay '" + mlp + "'");
  EXPECT_STATUS(tir_session_swap_weights_overlay(s_, layers, 0), TIR_INVALID_ARGUMENT, "count 0");
  const char* null_layer[] = {base.c_str(), nullptr};
  EXPECT_STATUS(tir_session_swap_weights_overlay(s_, null_layer, 2), TIR_INVALID_ARGUMENT,
                "paths[1] is null");
}

TEST(CApiDynamic, SymbolicDimsAreMinusOneAndBindAnyLegalSize) {
  TempDir tmp;
  ASSERT_TRUE(import("dynamic/branches_dyn/training", tmp));
  tir_session* s = nullptr;
  ASSERT_EQ(tir_session_open(tmp.file("m.tir").c_str(), tmp.file("m.bin").c_str(), nullptr, &s),
            TIR_OK)
      << tir_last_error();
  tir_io_info info;
  ASSERT_EQ(tir_session_input_info(s, 0, &info), TIR_OK);
  ASSERT_EQ(info.rank, 2);
  EXPECT_EQ(info.dims[0], -1);
  EXPECT_EQ(info.dims[1], 64);
  const std::string dir = testing::fixture_dir() + "/dynamic/branches_dyn/training";
  HostTensor x1 = read_npy(dir + "/case_1_input_0.npy"), x2 = read_npy(dir + "/case_1_input_1.npy");
  HostTensor y0 = read_npy(dir + "/case_1_output_0.npy"),
             y1 = read_npy(dir + "/case_1_output_1.npy");
  for (auto [i, h] : {std::pair{0, &x1}, std::pair{1, &x2}})
    ASSERT_EQ(tir_session_bind_input(s, i, TIR_DTYPE_FLOAT32, h->view().sizes.data(),
                                     h->view().rank, h->view().data, h->view().nbytes()),
              TIR_OK)
        << tir_last_error();
  ASSERT_EQ(tir_session_run(s), TIR_OK) << tir_last_error();
  tir_tensor_view out;
  ASSERT_EQ(tir_session_output(s, 0, &out), TIR_OK);
  EXPECT_TRUE(testing::all_close(view_of(out), y0.view(), 1e-5, 1e-5));
  ASSERT_EQ(tir_session_output(s, 1, &out), TIR_OK);
  EXPECT_TRUE(testing::all_close(view_of(out), y1.view(), 1e-5, 1e-5));
  // A static dim still has to match.
  const int64_t wrong[] = {5, 65};
  EXPECT_STATUS(tir_session_bind_input(s, 0, TIR_DTYPE_FLOAT32, wrong, 2, x1.view().data,
                                       x1.view().nbytes() * 2),
                TIR_INVALID_ARGUMENT, "input 'x1': dim 1 = 65, expected 64");
  tir_session_free(s);
}

}  // namespace
}  // namespace tir
