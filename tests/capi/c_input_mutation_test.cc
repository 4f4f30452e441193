// Programs that write their own inputs (fixtures/arch_mutation) through the C ABI: the bound
// buffers are never written (the binding is const); each run's written value is read back with
// tir_session_written_input and, copied into the buffer as torch's eager module would leave
// it, feeds the next call, whose outputs and written values must be torch's.
#include <gtest/gtest.h>

#include <cstring>

#include "include/tir/tir.h"
#include "tests/capi/tirc_import.h"
#include "tests/common/npy_util.h"
#include "tests/common/test_util.h"

namespace tir::testing {
namespace {

class CApiInputMutation : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(CApiInputMutation, TheCAbiLeavesTheBoundBufferAndShowsTheWrittenValue) {
  const nlohmann::json& f = GetParam();
  const std::string dir = fixture_dir() + "/" + f["dir"].get<std::string>();
  TempDir tmp;
  ASSERT_TRUE(tirc_import(dir, tmp));
  tir_session* s = nullptr;
  ASSERT_EQ(tir_session_open(tmp.file("m.tir").c_str(), tmp.file("m.bin").c_str(), nullptr, &s),
            TIR_OK)
      << tir_last_error();
  std::vector<HostTensor> inputs = read_all(dir, f["inputs"]);
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Tensor t = inputs[k].view();
    ASSERT_EQ(tir_session_bind_input(s, k, static_cast<tir_dtype>(t.dtype), t.sizes.data(), t.rank,
                                     t.data, t.nbytes()),
              TIR_OK)
        << tir_last_error();
  }
  tir_tensor_view view{};
  const size_t some_written = f["written_inputs"][0].get<size_t>();
  EXPECT_EQ(tir_session_written_input(s, some_written, &view), TIR_INVALID_ARGUMENT);  // no run
  for (size_t r = 0; r < f["runs"].size(); ++r) {
    SCOPED_TRACE("call " + std::to_string(r));
    const std::string run_dir = dir + "/runs/" + std::to_string(r);
    std::vector<HostTensor> before;
    for (const HostTensor& h : inputs) before.push_back(HostTensor::copy_of(h.view()));
    ASSERT_EQ(tir_session_run(s), TIR_OK) << tir_last_error();
    for (size_t k = 0; k < inputs.size(); ++k) {
      int is_written = -1;
      ASSERT_EQ(tir_session_input_written(s, k, &is_written), TIR_OK);
      EXPECT_EQ(
          std::memcmp(before[k].view().data, inputs[k].view().data, inputs[k].view().nbytes()), 0)
          << "the bound buffer of input " << k << " changed";
      if (!is_written) {
        EXPECT_EQ(tir_session_written_input(s, k, &view), TIR_INVALID_ARGUMENT);
        continue;
      }
      ASSERT_EQ(tir_session_written_input(s, k, &view), TIR_OK) << tir_last_error();
      const std::string file = f["runs"][r]["written"][std::to_string(k)]["file"];
      auto want = npy_read(run_dir + "/" + file);
      ASSERT_TRUE(want.ok());
      const Tensor got =
          make_tensor(static_cast<DType>(view.dtype), {view.dims, static_cast<size_t>(view.rank)},
                      const_cast<void*>(view.data));
      EXPECT_TRUE(all_close(got, want->view(), f["rtol"], f["atol"])) << "input " << k;
      std::memcpy(inputs[k].view().data, view.data, view.nbytes);  // as torch would leave it
    }
  }
  tir_session_free(s);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CApiInputMutation,
                         ::testing::ValuesIn(sub_manifest("arch_mutation")), FixtureName());

}  // namespace
}  // namespace tir::testing
