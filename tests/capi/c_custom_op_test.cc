// Custom ops through the C ABI (include/tir/tir.h, "custom ops"; runtime/capi/c_custom_op.cc):
// the C kernel of c_custom_op_kernel.c runs the torch.library op of tests/data/gen_custom_op.py
// to torch eager's outputs in both dialects; a session without it fails at open naming node
// and op; the callbacks' errors come back naming the node; misuse is a status. `tirc import`
// keeps the op with --custom-op or --custom-ops FILE and fails with one line without.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "runtime/weights/npy.h"
#include "tests/capi/c_custom_op_kernel.h"
#include "tests/common/npy_util.h"
#include "tests/common/test_util.h"

namespace tir {
namespace {

using testing::read_npy;
using testing::TempDir;

const tir_dtype kFloat32[] = {TIR_DTYPE_FLOAT32};

std::string fixture(const char* dialect) {
  return testing::fixture_dir() + "/custom_op/scaled_add/" + dialect;
}

/// Runs `tirc import <fixture>/program.pt2 -o tmp/m.tir ... <flags>`; its exit status, and its
/// stderr in `err`.
int tirc_import(const std::string& dir, const TempDir& tmp, const std::string& flags,
                std::string* err) {
  const char* tirc = std::getenv("TIRC");
  if (!tirc) {
    ADD_FAILURE() << "TIRC is not set";
    return -1;
  }
  const std::string cmd = std::string(tirc) + " import -q " + dir + "/program.pt2 -o " +
                          tmp.file("m.tir") + " --weights " + tmp.file("m.bin") + " " + flags +
                          " > /dev/null 2> " + tmp.file("err.txt");
  const int rc = std::system(cmd.c_str());
  std::ifstream f(tmp.file("err.txt"));
  std::stringstream ss;
  ss << f.rdbuf();
  *err = ss.str();
  return rc;
}

/// Opens tmp's model with `options` and binds the fixture's inputs; null on failure.
tir_session* open_bound(const std::string& dir, const TempDir& tmp, tir_session_options* options,
                        HostTensor* x, HostTensor* y) {
  tir_session* s = nullptr;
  EXPECT_EQ(tir_session_open(tmp.file("m.tir").c_str(), tmp.file("m.bin").c_str(), options, &s),
            TIR_OK)
      << tir_last_error();
  if (!s) return nullptr;
  *x = read_npy(dir + "/input_0.npy");
  *y = read_npy(dir + "/input_1.npy");
  for (const auto& [name, t] : {std::pair{"x", x}, std::pair{"y", y}}) {
    const Tensor v = t->view();
    EXPECT_EQ(tir_session_bind_input_by_name(s, name, TIR_DTYPE_FLOAT32, v.sizes.data(), v.rank,
                                             v.data, v.nbytes()),
              TIR_OK)
        << tir_last_error();
  }
  return s;
}

/// Opens tmp's model with `options`, runs the fixture's inputs, compares with torch.
void run_and_compare(const std::string& dir, const TempDir& tmp, tir_session_options* options) {
  HostTensor x, y;
  tir_session* s = open_bound(dir, tmp, options, &x, &y);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(tir_session_run(s), TIR_OK) << tir_last_error();
  tir_tensor_view out;
  ASSERT_EQ(tir_session_output(s, 0, &out), TIR_OK);
  const HostTensor want = read_npy(dir + "/output_0.npy");
  const Tensor got =
      make_tensor(static_cast<DType>(out.dtype), {out.dims, static_cast<size_t>(out.rank)},
                  const_cast<void*>(out.data));
  EXPECT_TRUE(testing::all_close(got, want.view(), 1e-5, 1e-5));
  tir_session_free(s);
}

TEST(CCustomOp, RegisteredKernelMatchesTorch) {
  for (const char* dialect : {"training", "core"}) {
    SCOPED_TRACE(dialect);
    TempDir tmp;
    std::string err;
    ASSERT_EQ(tirc_import(fixture(dialect), tmp, "--custom-op mylib::scaled_add", &err), 0) << err;
    scaled_add_state state = {};
    const tir_custom_op op = scaled_add_op(&state, kFloat32, 1);
    tir_session_options* options = nullptr;
    ASSERT_EQ(tir_session_options_create(&options), TIR_OK);
    ASSERT_EQ(tir_session_options_add_custom_op(options, &op), TIR_OK) << tir_last_error();
    run_and_compare(fixture(dialect), tmp, options);
    tir_session_options_free(options);
    EXPECT_EQ(state.prepares, 2);  // two nodes, one input shape
    EXPECT_EQ(state.runs, 2);
    EXPECT_EQ(state.alpha_given, 1);
    EXPECT_EQ(state.alpha_defaulted, 1);
  }
}

TEST(CCustomOp, ErrorsNameNodeAndOp) {
  TempDir tmp;
  std::string err;
  ASSERT_EQ(tirc_import(fixture("core"), tmp, "--custom-op mylib::scaled_add", &err), 0) << err;
  tir_session* s = nullptr;
  EXPECT_EQ(tir_session_open(tmp.file("m.tir").c_str(), tmp.file("m.bin").c_str(), nullptr, &s),
            TIR_UNSUPPORTED);
  EXPECT_NE(std::string(tir_last_error())
                .find("node 'scaled_add' calls custom op mylib::scaled_add, which has no "
                      "registered kernel"),
            std::string::npos)
      << tir_last_error();

  scaled_add_state state = {};
  state.refuse = 1;
  const tir_custom_op op = scaled_add_op(&state, nullptr, 0);  // any dtype
  tir_session_options* options = nullptr;
  ASSERT_EQ(tir_session_options_create(&options), TIR_OK);
  ASSERT_EQ(tir_session_options_add_custom_op(options, &op), TIR_OK) << tir_last_error();
  HostTensor x, y;
  s = open_bound(fixture("core"), tmp, options, &x, &y);  // prepared at the first run's shape
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(tir_session_run(s), TIR_UNSUPPORTED);
  EXPECT_NE(std::string(tir_last_error())
                .find("node 'scaled_add' (mylib::scaled_add): refused by the test"),
            std::string::npos)
      << tir_last_error();
  EXPECT_EQ(state.prepares, 1);
  EXPECT_EQ(state.runs, 0);
  tir_session_free(s);

  // Misuse: a name that is not a custom op, no callbacks, twice, an unknown dtype.
  tir_custom_op bad = op;
  bad.name = "aten::relu";
  EXPECT_EQ(tir_session_options_add_custom_op(options, &bad), TIR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tir_last_error()).find("not a custom op name"), std::string::npos);
  bad = op;
  bad.run = nullptr;
  EXPECT_EQ(tir_session_options_add_custom_op(options, &bad), TIR_INVALID_ARGUMENT);
  EXPECT_EQ(tir_session_options_add_custom_op(options, &op), TIR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tir_last_error()).find("registered twice"), std::string::npos);
  const tir_dtype unknown[] = {static_cast<tir_dtype>(99)};
  bad = scaled_add_op(&state, unknown, 1);
  bad.name = "mylib::other";
  EXPECT_EQ(tir_session_options_add_custom_op(options, &bad), TIR_INVALID_ARGUMENT);
  EXPECT_EQ(tir_session_options_add_custom_op(nullptr, &op), TIR_INVALID_ARGUMENT);
  EXPECT_EQ(tir_session_options_add_custom_op(options, nullptr), TIR_INVALID_ARGUMENT);
  tir_session_options_free(options);
}

TEST(CCustomOp, TircImportNeedsTheFlag) {
  TempDir tmp;
  std::string err;
  EXPECT_NE(tirc_import(fixture("core"), tmp, "", &err), 0);
  EXPECT_EQ(err.rfind("error: ", 0), 0u) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find("1 op has no kernel: mylib::scaled_add (x2, first at node 'scaled_add')"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("--custom-op mylib::scaled_add"), std::string::npos) << err;

  EXPECT_NE(tirc_import(fixture("core"), tmp, "--custom-op aten::relu", &err), 0);
  EXPECT_NE(err.find("error: --custom-op 'aten::relu': not a custom op name"), std::string::npos)
      << err;

  // A manifest: one name per line, comments and blank lines ignored.
  {
    std::ofstream list(tmp.file("ops.txt"));
    list << "# the ops our application registers\n\n  mylib::scaled_add  # x + alpha * y\n";
  }
  EXPECT_EQ(tirc_import(fixture("core"), tmp, "--custom-ops " + tmp.file("ops.txt"), &err), 0)
      << err;
  {
    std::ofstream list(tmp.file("bad.txt"));
    list << "mylib::scaled_add\nscaled_add\n";
  }
  EXPECT_NE(tirc_import(fixture("core"), tmp, "--custom-ops " + tmp.file("bad.txt"), &err), 0);
  EXPECT_NE(err.find("line 2: 'scaled_add' is not a custom op name"), std::string::npos) << err;
  EXPECT_NE(tirc_import(fixture("core"), tmp, "--custom-ops " + tmp.file("none.txt"), &err), 0);
  EXPECT_NE(err.find("custom op list '" + tmp.file("none.txt") + "': cannot open"),
            std::string::npos)
      << err;
  EXPECT_NE(tirc_import(fixture("core"), tmp, "--custom-ops /dev/zero", &err), 0);
  EXPECT_NE(err.find("is a character device"), std::string::npos) << err;
}

}  // namespace
}  // namespace tir
