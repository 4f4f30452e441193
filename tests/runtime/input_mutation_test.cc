// Programs that write their own inputs (torch's user_input_mutation; fixtures/arch_mutation,
// gen_arch_mutation.py): run several times on the same input tensors, each run must give
// torch's outputs for that call and leave in each written input the value torch's eager
// module left in it (each call sees what the previous one wrote). The C ABI's side:
// tests/capi/c_input_mutation_test.cc.
#include <gtest/gtest.h>

#include "tests/runtime/fixture_session.h"

namespace tir::testing {
namespace {

class InputMutation : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(InputMutation, EachRunWritesTheInputsAsTorchDoes) {
  const nlohmann::json& f = GetParam();
  const std::string dir = fixture_dir() + "/" + f["dir"].get<std::string>();
  TempDir tmp;
  auto session = open_fixture(dir, tmp);
  ASSERT_TRUE(session.ok()) << session.status().message();
  std::vector<bool> written((*session)->inputs().size());
  for (const auto& k : f["written_inputs"]) written[k.get<size_t>()] = true;
  for (size_t k = 0; k < written.size(); ++k)
    EXPECT_EQ((*session)->inputs()[k].mutated, written[k]) << "input " << k;
  std::vector<HostTensor> inputs = read_all(dir, f["inputs"]);
  for (size_t r = 0; r < f["runs"].size(); ++r) {
    SCOPED_TRACE("call " + std::to_string(r));
    const nlohmann::json& run = f["runs"][r];
    const std::string run_dir = dir + "/runs/" + std::to_string(r);
    auto outputs = (*session)->run(views(inputs));
    ASSERT_TRUE(outputs.ok()) << outputs.status().message();
    const std::vector<HostTensor> want = read_all(run_dir, run["outputs"]);
    ASSERT_EQ(outputs->size(), want.size());
    for (size_t k = 0; k < want.size(); ++k)
      EXPECT_TRUE(all_close((*outputs)[k], want[k].view(), f["rtol"], f["atol"])) << "output " << k;
    for (const auto& [k, file] : run["written"].items()) {
      auto value = npy_read(run_dir + "/" + file["file"].get<std::string>());
      ASSERT_TRUE(value.ok()) << value.status().message();
      EXPECT_TRUE(all_close(inputs[std::stoul(k)].view(), value->view(), f["rtol"], f["atol"]))
          << "input " << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, InputMutation,
                         ::testing::ValuesIn(sub_manifest("arch_mutation")), FixtureName());

}  // namespace
}  // namespace tir::testing
