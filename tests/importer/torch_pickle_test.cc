// The torch.save reader (importer/torch_pickle, torch_save) on the archives of older torch
// releases (tests/data/fixtures/legacy, written by tests/data/gen_legacy.py) and on
// malicious or malformed pickles built here byte by byte.
#include "importer/torch_pickle.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "../common/test_util.h"
#include "importer/import_pt2.h"
#include "importer/program_json.h"
#include "importer/pt2_archive.h"
#include "ir/model.h"

namespace tir::importer {
namespace {

using namespace std::string_literals;

using tir::testing::fixture_dir;
using tir::testing::TempDir;

nlohmann::json legacy_manifest() {
  std::ifstream f(fixture_dir() + "/legacy/manifest.json");
  return f ? nlohmann::json::parse(f) : nlohmann::json{{"fixtures", nlohmann::json::array()}};
}

// The raw data of a little-endian .npy file (header skipped).
std::string npy_data(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::string s{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  if (s.size() < 10) return "";
  const size_t header = s[6] == 1 ? 10 + size_t(uint8_t(s[8])) + 256 * size_t(uint8_t(s[9]))
                                  : 12 + size_t(uint8_t(s[8])) + 256 * size_t(uint8_t(s[9]));
  return s.substr(header);
}

TEST(LegacyFixtures, EveryFixtureImports) {
  const auto m = legacy_manifest();
  if (m["fixtures"].empty()) GTEST_SKIP() << "no tests/data/fixtures/legacy/manifest.json";
  for (const auto& fx : m["fixtures"]) {
    const std::string pt2 =
        fixture_dir() + "/legacy/" + fx["dir"].get<std::string>() + "/program.pt2";
    SCOPED_TRACE(pt2);
    TempDir dir;
    ImportOptions o;
    o.input = pt2;
    o.model_path = dir.file("model.tir");
    o.weights_path = dir.file("model.bin");
    o.check_kernels = false;
    auto sum = import_pt2(o);
    ASSERT_TRUE(sum.ok()) << sum.status().message();
    // torch 2.3 (schema 5.x) does not record its version in the program.
    const std::string version = fx["torch_version"].get<std::string>().substr(0, 3);
    EXPECT_EQ(sum->torch_version.substr(0, 3), version == "2.3" ? "unk" : version);
    // gen_legacy.py counts ATen ops inside HOP subgraphs too, so inlining must match exactly.
    std::ifstream f(sum->model_path, std::ios::binary);
    const std::vector<uint8_t> tir{std::istreambuf_iterator<char>(f), {}};
    auto view = ir::ModelView::open(tir, sum->model_path);
    ASSERT_TRUE(view.ok()) << view.status().message();
    std::map<std::string, int> ops, expect_ops;
    for (const fb::Node* n : *view->method("forward")->nodes())
      ops[std::string(ir::str(n->op()))]++;
    for (const auto& [op, count] : fx["ops"].items()) expect_ops[op] = count.get<int>();
    EXPECT_EQ(ops, expect_ops);
  }
}

TEST(LegacyFixtures, PickledWeightBytesMatchTorch) {
  const auto m = legacy_manifest();
  int checked = 0;
  for (const auto& fx : m["fixtures"]) {
    if (!fx.contains("weights")) continue;
    const std::string dir = fixture_dir() + "/legacy/" + fx["dir"].get<std::string>();
    SCOPED_TRACE(dir);
    auto archive = Pt2Archive::open(dir + "/program.pt2");
    ASSERT_TRUE(archive.ok()) << archive.status().message();
    auto program = read_program(**archive, "model");
    ASSERT_TRUE(program.ok()) << program.status().message();
    for (const auto& w : fx["weights"]) {
      const std::string fqn = w["name"].get<std::string>();
      auto it = program->pickled_weights.find(fqn);
      ASSERT_NE(it, program->pickled_weights.end()) << fqn;
      const PickledTensor& t = it->second.tensor;
      EXPECT_EQ(t.sizes, w["shape"].get<std::vector<int64_t>>()) << fqn;
      const std::string want = npy_data(dir + "/" + w["file"].get<std::string>());
      auto got = (*archive)->read(it->second.member, 1 << 20);
      ASSERT_TRUE(got.ok()) << got.status().message();
      const size_t off = size_t(t.storage_offset) * dtype_size(t.dtype);
      ASSERT_GE(got->size(), off + want.size()) << fqn;
      EXPECT_EQ(got->substr(off, want.size()), want) << fqn;
      ++checked;
    }
  }
  if (checked == 0) GTEST_SKIP() << "no legacy weight dumps";
}

// ---- malformed pickles

std::string pkl(std::initializer_list<std::string> parts) {
  std::string s;
  for (const std::string& p : parts) s += p;
  return s;
}
std::string u(const std::string& text) {  // BINUNICODE
  const uint32_t n = uint32_t(text.size());
  return std::string("X") + char(n & 255) + char((n >> 8) & 255) + char((n >> 16) & 255) +
         char(n >> 24) + text;
}
const std::string kProto = "\x80\x02";
const std::string kOrderedDict = "ccollections\nOrderedDict\n)R";
// ('storage', torch.FloatStorage, key, 'cpu', numel) BINPERSID
std::string storage(const std::string& key, int numel) {
  return "(" + u("storage") + "ctorch\nFloatStorage\n" + u(key) + u("cpu") + "K" + char(numel) +
         "tQ";
}
// _rebuild_tensor_v2(storage, offset, (size,), (1,), False, OrderedDict())
std::string tensor1d(const std::string& key, int numel, int offset, int size) {
  return "ctorch._utils\n_rebuild_tensor_v2\n(" + storage(key, numel) + "K" + char(offset) + "K" +
         char(size) + "\x85K\x01\x85\x89" + kOrderedDict + "tR";
}

Result<std::vector<PickledTensor>> run(const std::string& bytes) {
  return unpickle_tensor_dict({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()},
                              "'t.pt2': member 'x!/data.pkl'");
}

TEST(TorchPickle, AcceptsAStateDict) {
  auto r = run(pkl({kProto, kOrderedDict, "q\x00("s, u("w"), tensor1d("0", 6, 2, 3), u("b"),
                    tensor1d("1", 2, 0, 2), "u}b."}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].name, "w");
  EXPECT_EQ((*r)[0].storage_key, "0");
  EXPECT_EQ((*r)[0].storage_offset, 2);
  EXPECT_EQ((*r)[0].sizes, std::vector<int64_t>{3});
  EXPECT_EQ((*r)[0].dtype, DType::kFloat32);
  EXPECT_EQ((*r)[1].name, "b");
}

void expect_rejected(const std::string& bytes, StatusCode code, const std::string& needle) {
  auto r = run(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), code) << r.status().message();
  EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("x!/data.pkl"), std::string::npos) << r.status().message();
}

TEST(TorchPickle, RejectsUnknownGlobal) {
  expect_rejected(pkl({kProto, "cos\nsystem\n", u("echo pwned"), "\x85R."}),
                  StatusCode::kUnsupported, "'os.system' is not allowed");
  expect_rejected(pkl({kProto, "cbuiltins\neval\n."}), StatusCode::kUnsupported, "builtins.eval");
  expect_rejected(pkl({kProto, "ctorch\nComplexHalfStorage\n."}), StatusCode::kUnsupported,
                  "ComplexHalfStorage");
}

TEST(TorchPickle, RejectsUnknownOpcode) {
  // STACK_GLOBAL (0x93) and INST ('i') can name arbitrary callables.
  expect_rejected(pkl({kProto, u("os"), u("system"), "\x93."}), StatusCode::kUnsupported,
                  "opcode 0x93");
  expect_rejected(pkl({kProto, "(ios\nsystem\n."}), StatusCode::kUnsupported, "opcode 0x69");
}

TEST(TorchPickle, RejectsStorageViewOutOfRange) {
  expect_rejected(pkl({kProto, kOrderedDict, "(", u("w"), tensor1d("0", 4, 2, 3), "u."}),
                  StatusCode::kCorrupt, "storage '0' with 4 elements");
}

TEST(TorchPickle, RejectsBadStorageKey) {
  expect_rejected(pkl({kProto, kOrderedDict, "(", u("w"), tensor1d("../x", 4, 0, 3), "u."}),
                  StatusCode::kCorrupt, "not a plain name");
}

TEST(TorchPickle, RejectsTruncatedAndUnderflow) {
  const std::string full = pkl({kProto, kOrderedDict, "(", u("w"), tensor1d("0", 6, 0, 3), "u."});
  for (size_t n : {size_t(1), size_t(5), size_t(30), full.size() / 2, full.size() - 1}) {
    SCOPED_TRACE(n);
    auto r = run(full.substr(0, n));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kCorrupt) << r.status().message();
  }
  expect_rejected(pkl({kProto, "R."}), StatusCode::kCorrupt, "underflow");
  expect_rejected(pkl({kProto, "t."}), StatusCode::kCorrupt, "MARK");
  expect_rejected(pkl({kProto,
                       "X\xff\xff\xff\x7f"
                       "abc."}),
                  StatusCode::kCorrupt, "truncated");
}

TEST(TorchPickle, RejectsMemoOutOfRange) {
  expect_rejected(pkl({kProto, "h\x05."}), StatusCode::kCorrupt, "memo index 5");
  expect_rejected(pkl({kProto, "j\xff\xff\xff\xff."}), StatusCode::kCorrupt, "memo index");
}

TEST(TorchPickle, RejectsHugeSizesAndNonTensors) {
  // size 2^40 via LONG1 in a 1-element storage.
  const std::string huge = "ctorch._utils\n_rebuild_tensor_v2\n(" + storage("0", 1) +
                           "K\x00\x8a\x06\x00\x00\x00\x00\x00\x01\x85K\x01\x85\x89"s +
                           kOrderedDict + "tR";
  expect_rejected(pkl({kProto, kOrderedDict, "(", u("w"), huge, "u."}), StatusCode::kCorrupt,
                  "storage '0'");
  expect_rejected(pkl({kProto, kOrderedDict, "(", u("n"), "K\x03u."}), StatusCode::kUnsupported,
                  "'n' is a int");
  expect_rejected(pkl({kProto, "]."}), StatusCode::kUnsupported, "top-level object is a list");
}

}  // namespace
}  // namespace tir::importer
