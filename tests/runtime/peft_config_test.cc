// runtime/weights/peft_config.h against PEFT itself: for each config of
// tests/data/fixtures/lora/peft_rules.json (gen_peft_rules.py) and each module name, whether
// PEFT adapts the module and with which rank and scale.
#include "runtime/weights/peft_config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/common/test_util.h"

namespace tir {
namespace {

TEST(PeftConfig, DecidesWhatPeftDecides) {
  std::ifstream in(testing::fixture_dir() + "/lora/peft_rules.json");
  const nlohmann::ordered_json rules = nlohmann::ordered_json::parse(in);  // pattern order counts
  testing::TempDir dir;
  std::vector<PeftLoraConfig> configs;
  for (const nlohmann::ordered_json& c : rules["configs"]) {
    const std::string file = dir.file("adapter_config_" + std::to_string(configs.size()) + ".json");
    std::ofstream(file) << c.dump();
    auto config = peft_config_read(file);
    ASSERT_TRUE(config.ok()) << config.status().message();
    configs.push_back(std::move(config).value());
  }
  size_t adapted = 0;
  for (const nlohmann::ordered_json& c : rules["cases"]) {
    const std::string key = c["key"].get<std::string>();
    const size_t index = c["config"].get<size_t>();
    auto t = peft_config_target(configs.at(index), key);
    ASSERT_TRUE(t.ok()) << t.status().message();
    const std::string where = rules["configs"][index].dump() + " " + key + " (" + t->why_not + ")";
    ASSERT_EQ(t->adapted, c["adapted"].get<bool>()) << where;
    if (!t->adapted) continue;
    ++adapted;
    EXPECT_EQ(t->rank, c["rank"].get<int64_t>()) << where;
    EXPECT_DOUBLE_EQ(t->scale, c["scale"].get<double>()) << where;
  }
  EXPECT_GT(adapted, 50u);  // the table is not all refusals
}

}  // namespace
}  // namespace tir
