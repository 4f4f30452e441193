// Malformed and unsupported PEFT adapters are refused with one line naming the file and the
// field or tensor; the session keeps running what it had.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "runtime/weights/safetensors_writer.h"
#include "tests/runtime/lora_fixture.h"

namespace tir {
namespace {

using nlohmann::json;
using testing::LoraFamily;

struct Matrix {
  std::string name;
  std::vector<int64_t> shape;
  DType dtype = DType::kFloat32;
};

class LoraErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::load_lora_family(testing::lora_manifest()["families"][0], &f_);  // GPT-2, n_embd 32
    session_ = testing::open_with_adapters(f_);
    ASSERT_NE(session_, nullptr);
    std::ifstream in(f_.adapters[0].dir + "/adapter_config.json");
    config_ = json::parse(in);
  }

  /// A PEFT folder with `config` and zero-filled `tensors`.
  std::string write_adapter(const std::string& name, const json& config,
                            const std::vector<Matrix>& tensors) {
    const std::string dir = f_.tmp.file(name);
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/adapter_config.json") << config.dump();
    std::vector<std::vector<uint8_t>> data;
    std::vector<SafetensorsEntry> entries;
    for (const Matrix& m : tensors) {
      int64_t n = 1;
      for (int64_t d : m.shape) n *= d;
      data.emplace_back(size_t(n) * dtype_size(m.dtype), uint8_t{0});
      entries.push_back({m.name, m.dtype, m.shape, data.back()});
    }
    auto bytes = safetensors_serialize(entries);
    EXPECT_TRUE(bytes.ok()) << bytes.status().message();
    std::ofstream(dir + "/adapter_model.safetensors", std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes->data()), std::streamsize(bytes->size()));
    return dir;
  }

  /// lora_A/lora_B of `module` shaped for a [32 -> n] layer of rank 4 (the config's r).
  static std::vector<Matrix> pair(const std::string& module, int64_t n = 96, int64_t k = 32) {
    const std::string p = "base_model.model." + module;
    return {{p + ".lora_A.weight", {4, k}}, {p + ".lora_B.weight", {n, 4}}};
  }

  /// Loading `dir` fails with one line holding every needle; runs go on as before.
  void expect_refused(const std::string& dir, std::vector<std::string> needles) {
    const Status s = session_->load_adapter("bad", dir);
    ASSERT_FALSE(s.ok()) << dir;
    EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
    for (const std::string& n : needles)
      EXPECT_NE(s.message().find(n), std::string::npos) << "'" << n << "' not in: " << s.message();
    EXPECT_EQ(session_->adapter_names().size(), f_.adapters.size());
    const std::vector<Tensor> in = {f_.input.view()};
    auto out = session_->run(in, f_.adapters[0].name);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_TRUE(testing::all_close((*out)[0], f_.adapters[0].expected.view(), testing::kLoraTol,
                                   testing::kLoraTol));
  }

  LoraFamily f_;
  std::unique_ptr<Session> session_;
  json config_;
  const std::string c_attn_ = "model.transformer.h.0.attn.c_attn";
};

TEST_F(LoraErrors, OtherPeftTypes) {
  json c = config_;
  c["peft_type"] = "PREFIX_TUNING";
  expect_refused(write_adapter("prefix", c, pair(c_attn_)), {"adapter_config.json", "peft_type"});
}

TEST_F(LoraErrors, UnsupportedOptions) {
  for (const char* field : {"use_dora", "lora_bias"}) {
    json c = config_;
    c[field] = true;
    expect_refused(write_adapter(field, c, pair(c_attn_)), {"adapter_config.json", field});
  }
}

TEST_F(LoraErrors, TargetNotInTheModel) {
  expect_refused(write_adapter("missing", config_, pair("model.transformer.h.7.attn.c_attn")),
                 {"adapter_model.safetensors", "h.7.attn.c_attn.lora_A.weight", "names no weight"});
  // A weight, but no GEMM reads it (the position embedding).
  json wpe = config_;
  wpe["target_modules"] = {"wpe"};
  expect_refused(write_adapter("wpe", wpe, pair("model.transformer.wpe", 32)),
                 {"model.transformer.wpe", "read by no linear"});
}

TEST_F(LoraErrors, ShapeOrDtypeThatDoesNotFit) {
  expect_refused(write_adapter("shape", config_, pair(c_attn_, 95)),
                 {"c_attn.lora_B.weight", "[95, 4]", "does not fit weight"});
  expect_refused(write_adapter("k", config_, pair(c_attn_, 96, 31)), {"does not fit weight"});
  std::vector<Matrix> half = pair(c_attn_);
  half[0].dtype = DType::kFloat16;
  expect_refused(write_adapter("half", config_, half), {"lora_A.weight", "float32"});
}

TEST_F(LoraErrors, EmbeddingLoraAndMissingHalves) {
  expect_refused(
      write_adapter("emb", config_,
                    {{"base_model.model.model.transformer.wte.lora_embedding_A", {2, 64}}}),
      {"lora_embedding_A", "not supported"});
  std::vector<Matrix> only_a = pair(c_attn_);
  only_a.pop_back();
  expect_refused(write_adapter("only_a", config_, only_a), {"has lora_A but not lora_B"});
}

TEST_F(LoraErrors, MissingOrGarbageFiles) {
  expect_refused(f_.tmp.file("nowhere"), {"nowhere"});
  const std::string dir = write_adapter("garbage", config_, pair(c_attn_));
  std::ofstream(dir + "/adapter_model.safetensors") << "not safetensors";
  expect_refused(dir, {"adapter_model.safetensors"});
  std::ofstream(dir + "/adapter_config.json") << "{ not json";
  expect_refused(dir, {"adapter_config.json", "not valid JSON"});
}

}  // namespace
}  // namespace tir
