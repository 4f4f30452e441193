// Test helpers for the generate loop: the transformers LLM fixtures (tests/data/gen_llm.py,
// gen_generate.py) imported into a temporary model, and their reference manifests.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "importer/import_pt2.h"
#include "llm/generator.h"
#include "tests/common/test_util.h"

namespace tir::testing {

inline std::string llm_dir() { return fixture_dir() + "/llm"; }

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

/// gen_llm.py's manifest (prompt, max_context, each family's generate() tokens).
inline const nlohmann::json& llm_manifest() {
  static const nlohmann::json m = read_json(llm_dir() + "/manifest.json");
  return m;
}

/// gen_generate.py's references (sampling distributions, a text prompt, a cache-less program).
inline const nlohmann::json& generate_reference() {
  static const nlohmann::json m = read_json(llm_dir() + "/generate.json");
  return m;
}

inline std::vector<llm::TokenId> family_tokens(const std::string& family) {
  for (const auto& f : llm_manifest()["families"])
    if (f["family"] == family) return f["tokens"].get<std::vector<llm::TokenId>>();
  ADD_FAILURE() << "no family " << family;
  return {};
}

inline std::vector<llm::TokenId> llm_prompt() {
  return llm_manifest()["prompt"].get<std::vector<llm::TokenId>>();
}

/// `family`'s programs of `dialect` ("core": prefill + decode; "training": one prefill that
/// also decodes; "nocache": one forward without a cache) imported into dir/llm.tir + llm.bin.
inline void import_llm(const std::string& family, const std::string& dialect, const TempDir& dir) {
  const std::string src = llm_dir() + "/" + family + "/" + dialect + "/";
  importer::ImportOptions o;
  if (dialect == "nocache") {
    o.methods = {{"forward", src + "forward.pt2"}};
  } else {
    o.methods = {{"prefill", src + "prefill.pt2"}};
    if (dialect == "core") o.methods.push_back({"decode", src + "decode.pt2"});
  }
  o.model_path = dir.file("llm.tir");
  o.weights_path = dir.file("llm.bin");
  auto imported = importer::import_pt2(o);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
}

inline std::unique_ptr<llm::Generator> open_generator(const TempDir& dir,
                                                      const llm::GeneratorOptions& o = {}) {
  auto g = llm::Generator::open(dir.file("llm.tir"), dir.file("llm.bin"), o);
  EXPECT_TRUE(g.ok()) << g.status().message();
  return g.ok() ? std::move(*g) : nullptr;
}

}  // namespace tir::testing
