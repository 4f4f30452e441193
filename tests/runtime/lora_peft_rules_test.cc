// PEFT adapters read as PEFT reads them (issue 54): variants of the real adapters of
// tests/data/gen_lora.py whose config and tensors disagree, or whose numbers are absurd, are
// refused with one line naming the file and the field or tensor. Each was accepted before:
// the tensors in the file were applied whatever adapter_config.json said. (That the adapters
// using each field compute what PEFT computes is lora_test.cc: they are in the manifest.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "runtime/weights/safetensors.h"
#include "runtime/weights/safetensors_writer.h"
#include "tests/runtime/lora_fixture.h"

namespace tir {
namespace {

using nlohmann::json;
using testing::LoraFamily;

/// A tensor added to an adapter's file: zeros of `shape`.
struct Extra {
  std::string name;
  std::vector<int64_t> shape;
};

class LoraPeftRules : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const json manifest = testing::lora_manifest();
    for (int i = 0; i < 2; ++i) {
      families_[i] = new LoraFamily();
      testing::load_lora_family(manifest["families"][i], families_[i]);
      sessions_[i] = testing::open_with_adapters(*families_[i]).release();
    }
  }
  static void TearDownTestSuite() {
    for (int i = 0; i < 2; ++i) {
      delete sessions_[i];
      delete families_[i];
    }
  }

  static std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  /// A copy of adapter `adapter` of family `fam` (0: GPT-2, 1: Llama) with its config passed
  /// through `edit` (or replaced by `raw_config` when given) and `extra` tensors added.
  std::string variant(int fam, const std::string& adapter, const std::function<void(json&)>& edit,
                      const std::vector<Extra>& extra = {}, const std::string& raw_config = "") {
    const LoraFamily& f = *families_[fam];
    const std::string src = f.dir + "/" + adapter;
    const std::string dir = f.tmp.file("variant_" + std::to_string(++count_));
    std::filesystem::create_directories(dir);
    json config = json::parse(read_text(src + "/adapter_config.json"));
    edit(config);
    std::ofstream(dir + "/adapter_config.json")
        << (raw_config.empty() ? config.dump() : raw_config);
    const std::string bytes = read_text(src + "/adapter_model.safetensors");
    auto file = safetensors_parse(
        std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), src);
    EXPECT_TRUE(file.ok()) << file.status().message();
    std::vector<SafetensorsEntry> entries = file->entries;
    std::vector<std::vector<uint8_t>> zeros;
    zeros.reserve(extra.size());
    for (const Extra& e : extra) {
      int64_t n = 1;
      for (int64_t d : e.shape) n *= d;
      zeros.emplace_back(size_t(n) * sizeof(float), uint8_t{0});
      entries.push_back({"base_model.model." + e.name, DType::kFloat32, e.shape, zeros.back()});
    }
    auto out = safetensors_serialize(entries);
    EXPECT_TRUE(out.ok()) << out.status().message();
    std::ofstream(dir + "/adapter_model.safetensors", std::ios::binary)
        .write(reinterpret_cast<const char*>(out->data()), std::streamsize(out->size()));
    return dir;
  }

  /// Loading `dir` into family `fam`'s session fails with one line holding every needle.
  static void expect_refused(int fam, const std::string& dir,
                             const std::vector<std::string>& needles) {
    const Status s = sessions_[fam]->load_adapter("bad", dir);
    ASSERT_FALSE(s.ok()) << dir;
    EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
    for (const std::string& n : needles)
      EXPECT_NE(s.message().find(n), std::string::npos) << "'" << n << "' not in: " << s.message();
  }

  /// LoRA matrices of `module` for a [k -> n] layer of rank `r`.
  static std::vector<Extra> pair(const std::string& module, int64_t r, int64_t k, int64_t n) {
    return {{module + ".lora_A.weight", {r, k}}, {module + ".lora_B.weight", {n, r}}};
  }

  static inline LoraFamily* families_[2] = {};
  static inline Session* sessions_[2] = {};
  int count_ = 0;
};

constexpr int kGpt2 = 0, kLlama = 1;
const std::string kGpt2Layer = "model.transformer.h.";
const std::string kLlamaLayer = "model.model.layers.";

TEST_F(LoraPeftRules, TheVariantsUnchangedLoad) {
  for (const auto& [fam, adapter] : std::vector<std::pair<int, std::string>>{
           {kGpt2, "attn_r4"}, {kGpt2, "layer0_exclude"}, {kLlama, "layer1_patterns"}}) {
    const Status s = sessions_[fam]->load_adapter("same", variant(fam, adapter, [](json&) {}));
    EXPECT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE(sessions_[fam]->unload_adapter("same").ok());
  }
}

TEST_F(LoraPeftRules, AbsurdScalesAreRefused) {
  expect_refused(kGpt2, variant(kGpt2, "attn_r4", [](json& c) { c["lora_alpha"] = 1e308; }),
                 {"adapter_config.json", "lora_alpha", "limit is 1e+06"});
  expect_refused(
      kLlama,
      variant(kLlama, "layer1_patterns", [](json& c) { c["alpha_pattern"]["v_proj"] = -1e9; }),
      {"adapter_config.json", "alpha_pattern", "v_proj"});
  // Python reads 1e999 as infinity; here it is not a number.
  const std::string text = read_text(families_[kGpt2]->dir + "/attn_r4/adapter_config.json");
  std::string inf = text;
  inf.replace(inf.find("\"lora_alpha\": 8"), 15, "\"lora_alpha\": 1e999");
  expect_refused(kGpt2,
                 variant(
                     kGpt2, "attn_r4", [](json&) {}, {}, inf),
                 {"adapter_config.json", "is not valid JSON"});
}

TEST_F(LoraPeftRules, RanksThatDisagreeWithTheTensorsAreRefused) {
  expect_refused(
      kGpt2, variant(kGpt2, "attn_r4", [](json& c) { c["r"] = 8; }),
      {"adapter_model.safetensors", "c_attn.lora_A.weight", "[4, 32]", "do not have the rank 8"});
  expect_refused(
      kGpt2, variant(kGpt2, "regex_patterns", [](json& c) { c["rank_pattern"] = json::object(); }),
      {"mlp.c_fc.lora_A.weight", "[2, 32]", "rank 4", "rank_pattern"});
  for (const json& r : {json(0), json(-4), json(2.5), json("4"), json(nullptr)})
    expect_refused(kGpt2, variant(kGpt2, "attn_r4", [&](json& c) { c["r"] = r; }),
                   {"adapter_config.json", "r is not a positive integer"});
}

TEST_F(LoraPeftRules, TensorsOfModulesTheConfigLeavesOutAreRefused) {
  // A target that is not in the model, or another module than the tensors'.
  for (const json& targets : {json::array({"c_fc"}), json::array({"nowhere"}), json("nowhere")})
    expect_refused(kGpt2,
                   variant(kGpt2, "attn_r4", [&](json& c) { c["target_modules"] = targets; }),
                   {"adapter_model.safetensors", "h.0.attn.c_attn.lora_A.weight",
                    "which adapter_config.json does not adapt (target_modules)"});
  // A layer outside layers_to_transform, with and without layers_pattern.
  expect_refused(
      kGpt2,
      variant(
          kGpt2, "layer0_exclude", [](json&) {}, pair(kGpt2Layer + "1.attn.c_attn", 4, 32, 96)),
      {"h.1.attn.c_attn.lora_", "(layers_to_transform)"});
  expect_refused(kLlama,
                 variant(
                     kLlama, "layer1_patterns", [](json&) {},
                     pair(kLlamaLayer + "0.self_attn.q_proj", 4, 32, 32)),
                 {"layers.0.self_attn.q_proj.lora_", "(layers_to_transform)"});
  // A layers_pattern that names no segment of the model.
  expect_refused(
      kLlama, variant(kLlama, "layer1_patterns", [](json& c) { c["layers_pattern"] = "blocks"; }),
      {"layers.1.mlp.up_proj.lora_", "(layers_pattern)"});
  // An excluded module: by a list suffix, and by a regular expression.
  expect_refused(
      kGpt2,
      variant(
          kGpt2, "layer0_exclude", [](json&) {}, pair(kGpt2Layer + "0.mlp.c_proj", 4, 128, 32)),
      {"h.0.mlp.c_proj.lora_", "(exclude_modules)"});
  expect_refused(kLlama,
                 variant(
                     kLlama, "regex_exclude", [](json&) {},
                     pair(kLlamaLayer + "0.self_attn.k_proj", 3, 32, 16)),
                 {"layers.0.self_attn.k_proj.lora_", "(exclude_modules)"});
}

TEST_F(LoraPeftRules, ModulesTheConfigAdaptsWithoutTensorsAreRefused) {
  expect_refused(kLlama,
                 variant(kLlama, "qv_r4",
                         [](json& c) {
                           c["target_modules"] = {"q_proj", "v_proj", "k_proj"};
                         }),
                 {"adapter_model.safetensors", "module 'model.model.layers.0.self_attn.k_proj'",
                  "holds no lora_A/lora_B for it"});
  expect_refused(kGpt2,
                 variant(kGpt2, "layer0_exclude", [](json& c) { c["exclude_modules"] = nullptr; }),
                 {"module 'model.transformer.h.0.mlp.c_proj'", "holds no lora_A/lora_B"});
}

TEST_F(LoraPeftRules, WholeTensorsOutsideModulesToSaveAreRefused) {
  expect_refused(kLlama,
                 variant(kLlama, "ko_r2_save", [](json& c) { c["modules_to_save"] = nullptr; }),
                 {"tensor 'base_model.model.model.lm_head.weight'",
                  "neither a LoRA matrix nor of a module in modules_to_save"});
  expect_refused(kGpt2, variant(kGpt2, "layer0_exclude", [](json& c) { c["bias"] = "none"; }),
                 {"h.0.attn.c_attn.base_layer.bias'", "modules_to_save"});
}

TEST_F(LoraPeftRules, FieldsTirCannotHonourAreRefusedByName) {
  const std::vector<std::pair<std::string, json>> fields = {{"use_dora", true},
                                                            {"lora_bias", true},
                                                            {"alora_invocation_tokens", {1, 2}},
                                                            {"layer_replication", {{0, 1}}},
                                                            {"use_qalora", true},
                                                            {"arrow_config", {{"top_k", 2}}},
                                                            {"target_parameters", {"x"}},
                                                            {"trainable_token_indices", {1}}};
  for (const auto& [field, value] : fields)
    expect_refused(kGpt2, variant(kGpt2, "attn_r4", [&](json& c) { c[field] = value; }),
                   {"adapter_config.json", field + " is not supported"});
  expect_refused(kGpt2,
                 variant(kGpt2, "attn_r4", [](json& c) { c["target_modules"] = "all-linear"; }),
                 {"target_modules 'all-linear'"});
  expect_refused(kGpt2, variant(kGpt2, "attn_r4", [](json& c) { c.erase("target_modules"); }),
                 {"target_modules is missing"});
  expect_refused(kGpt2, variant(kGpt2, "attn_r4", [](json& c) { c["bias"] = "some"; }),
                 {"bias \"some\""});
  expect_refused(kGpt2,
                 variant(kGpt2, "regex_patterns", [](json& c) { c["layers_to_transform"] = 1; }),
                 {"layers_to_transform cannot be used when target_modules is a string"});
  expect_refused(kGpt2, variant(kGpt2, "attn_r4", [](json& c) { c["layers_pattern"] = "h"; }),
                 {"layers_pattern is given without layers_to_transform"});
  expect_refused(kGpt2, variant(kGpt2, "attn_r4", [](json& c) { c["target_modules"] = "c_attn("; }),
                 {"target_modules: pattern 'c_attn(' is not a valid regular expression"});
}

TEST_F(LoraPeftRules, ADuplicatedConfigKeyIsRefused) {
  // PEFT (Python's json) would take the last "r", 16: a rank no tensor has.
  const std::string text = read_text(families_[kGpt2]->dir + "/attn_r4/adapter_config.json");
  const std::string twice = text.substr(0, text.rfind('}')) + ", \"r\": 16}";
  expect_refused(kGpt2,
                 variant(
                     kGpt2, "attn_r4", [](json&) {}, {}, twice),
                 {"adapter_config.json", "key \"r\" appears twice in one object"});
}

}  // namespace
}  // namespace tir
