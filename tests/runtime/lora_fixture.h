// The LoRA fixtures (tests/data/gen_lora.py): a base model per family imported into a temp
// folder, its input, the base logits and, per PEFT adapter, the logits of PEFT's merged model.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/common/npy_util.h"
#include "tests/runtime/fixture_session.h"

namespace tir::testing {

inline nlohmann::json lora_manifest() {
  std::ifstream in(fixture_dir() + "/lora/manifest.json");
  return nlohmann::json::parse(in);
}

struct LoraAdapterCase {
  std::string name, dir;  // dir: the PEFT folder
  HostTensor expected;    // PEFT merge_and_unload() logits
};

struct LoraFamily {
  std::string name, dir;
  TempDir tmp;
  HostTensor input, base;
  std::vector<LoraAdapterCase> adapters;
};

/// Reads family `entry` of the manifest and imports its program into `f->tmp` (m.tir, m.bin).
inline void load_lora_family(const nlohmann::json& entry, LoraFamily* f) {
  f->name = entry["family"].get<std::string>();
  f->dir = fixture_dir() + "/" + entry["dir"].get<std::string>();
  ASSERT_TRUE(import_fixture(f->dir, f->tmp));
  f->input = read_npy(f->dir + "/" + entry["input"].get<std::string>());
  f->base = read_npy(f->dir + "/" + entry["base_output"].get<std::string>());
  for (const auto& a : entry["adapters"])
    f->adapters.push_back({a["name"].get<std::string>(), f->dir + "/" + a["dir"].get<std::string>(),
                           read_npy(f->dir + "/" + a["output"].get<std::string>())});
}

/// A session on `f`'s model with all its adapters loaded under their names.
inline std::unique_ptr<Session> open_with_adapters(const LoraFamily& f,
                                                   const SessionOptions& options = {}) {
  auto s = Session::open(f.tmp.file("m.tir"), f.tmp.file("m.bin"), options);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return nullptr;
  for (const LoraAdapterCase& a : f.adapters) {
    const Status st = (*s)->load_adapter(a.name, a.dir);
    EXPECT_TRUE(st.ok()) << st.message();
  }
  return std::move(*s);
}

inline constexpr double kLoraTol = 1e-5;

}  // namespace tir::testing
