// libFuzzer target, structure-aware: the input bytes are a script of edits to the program
// JSON of real torch fixtures (a field replaced by another type, a huge, negative or
// deeply nested value, deleted, or copied from elsewhere), and the edited archive is
// imported. Byte-level mutation of a zip rarely gets past its CRC; this reaches the
// graph builder with JSON that parses.
#include <zip.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "importer/import_pt2.h"

namespace {

using Json = nlohmann::json;

struct Seed {
  std::string bytes;   // the archive
  std::string member;  // its models/model.json
  Json doc;
};

const char* const kSeeds[] = {
    "tests/data/fixtures/mlp/core/program.pt2",
    "tests/data/fixtures/cond_true/core/program.pt2",
    "tests/data/fixtures/dynamic/mlp_range/core/program.pt2",
    "tests/data/fixtures/legacy/2.5.1/sincos/core/program.pt2",
};

std::vector<Seed> load_seeds() {
  std::vector<Seed> seeds;
  for (const char* rel : kSeeds) {
    const std::string path = std::string(TIR_SOURCE_ROOT) + "/" + rel;
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    int err = 0;
    zip_t* z = zip_open(path.c_str(), ZIP_RDONLY, &err);
    if (!z) continue;
    for (zip_int64_t i = 0; i < zip_get_num_entries(z, 0); ++i) {
      const std::string name = zip_get_name(z, i, 0);
      if (!name.ends_with("models/model.json") &&
          !name.ends_with("serialized_exported_program.json"))
        continue;
      zip_stat_t st;
      zip_stat_index(z, i, 0, &st);
      std::string text(st.size, '\0');
      zip_file_t* zf = zip_fopen_index(z, i, 0);
      zip_fread(zf, text.data(), text.size());
      zip_fclose(zf);
      Json doc = Json::parse(text, nullptr, false);
      if (!doc.is_discarded()) seeds.push_back({ss.str(), name, std::move(doc)});
    }
    zip_discard(z);
  }
  return seeds;
}

void collect(Json& j, std::vector<Json*>* out) {
  out->push_back(&j);
  if (j.is_structured())
    for (auto& v : j) collect(v, out);
}

/// Reads bytes from the script; zeros once it runs out.
struct Script {
  const uint8_t* p;
  size_t n;
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = v << 8 | (n ? (--n, *p++) : 0);
    return v;
  }
};

void edit(Json* root, Script& s) {
  std::vector<Json*> nodes;
  collect(*root, &nodes);
  Json& target = *nodes[s.u32() % nodes.size()];
  const Json& donor = *nodes[s.u32() % nodes.size()];
  switch (s.u32() % 12) {
    case 0:
      target = Json(int64_t(s.u32()) - 0x80000000LL);
      break;
    case 1:
      target = Json(INT64_MIN + int64_t(s.u32() % 3));
      break;
    case 2:
      target = Json(uint64_t(UINT64_MAX - s.u32() % 3));
      break;
    case 3:
      target = Json(double(s.u32()) / 7.0);
      break;
    case 4:
      target = Json(std::string(s.u32() % 2 ? "\x1b[2J" : "s0*") + std::to_string(s.u32() % 100));
      break;
    case 5:
      target = Json::object();
      break;
    case 6:
      target = Json::array();
      break;
    case 7:
      target = nullptr;
      break;
    case 8: {
      Json deep = 1;
      for (uint32_t i = 0, d = s.u32() % 300; i < d; ++i) deep = Json::array({deep});
      target = deep;
      break;
    }
    case 9:
      target = Json(donor);
      break;  // a copy of some other field
    case 10:
      if (target.is_object() && !target.empty()) target.erase(target.begin());
      break;
    case 11:
      if (target.is_array() && !target.empty()) target.push_back(Json(target[0]));
      break;
  }
}

/// `zip` with member `name` replaced by `text` (stored, as torch writes members), built in
/// memory; "" when libzip refuses.
std::string replace_member(const std::string& zip, const std::string& name,
                           const std::string& text) {
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* buf = zip_source_buffer_create(zip.data(), zip.size(), 0, &err);
  zip_error_fini(&err);
  if (!buf) return {};
  zip_source_keep(buf);  // zip_close writes the new archive into it
  zip_t* z = zip_open_from_source(buf, 0, nullptr);
  std::string out;
  if (z) {
    zip_source_t* member = zip_source_buffer(z, text.data(), text.size(), 0);
    const zip_int64_t idx = zip_file_add(z, name.c_str(), member, ZIP_FL_OVERWRITE);
    if (idx < 0)
      zip_source_free(member);
    else
      zip_set_file_compression(z, zip_uint64_t(idx), ZIP_CM_STORE, 0);
    if (zip_close(z) != 0) zip_discard(z);
  }
  zip_stat_t st;
  if (zip_source_stat(buf, &st) == 0 && (st.valid & ZIP_STAT_SIZE) && zip_source_open(buf) == 0) {
    out.resize(st.size);
    if (zip_source_read(buf, out.data(), st.size) != zip_int64_t(st.size)) out.clear();
    zip_source_close(buf);
  }
  zip_source_free(buf);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<Seed> seeds = load_seeds();
  if (seeds.empty() || size < 1) return 0;
  Script s{data, size};
  const Seed& seed = seeds[s.u32() % seeds.size()];
  Json doc = seed.doc;
  for (uint32_t i = 0, k = 1 + s.u32() % 4; i < k; ++i) edit(&doc, s);
  const std::string text = doc.dump(-1, ' ', false, Json::error_handler_t::replace);

  // The edited archive is built and imported in memory: no input file is written.
  const std::string archive = replace_member(seed.bytes, seed.member, text);
  if (archive.empty()) return 0;
  tir::importer::ImportOptions o;
  o.input = "fuzz.pt2";
  o.input_bytes = {reinterpret_cast<const uint8_t*>(archive.data()), archive.size()};
  o.model_path = tir::fuzz::scratch_dir() + "/out.tir";
  o.weights_path = tir::fuzz::scratch_dir() + "/out.bin";
  (void)tir::importer::import_pt2(o);
  return 0;
}
