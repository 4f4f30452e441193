// Weight sets from every source, on the fixtures of tests/data/gen_weights.py (GPT-2, seeds 0
// and 1, C = A with layer h.1 of B): tir files, safetensors, overlays, zstd and bf16/fp16
// packing, each checked bitwise against a fresh import of the same weights or torch's own
// rounding; and the bad inputs (checksum, truncation, unknown or reshaped overlay tensors,
// another model's weights), each with its error line.
#include "runtime/weights/weight_set.h"

#include <gtest/gtest.h>
#include <immintrin.h>  // _cvtsh_ss: the CPU's own half -> float (F16C, in x86-64-v3)

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "importer/import_pt2.h"
#include "runtime/exec/session.h"
#include "runtime/weights/host_tensor.h"
#include "runtime/weights/npy.h"
#include "runtime/weights/safetensors.h"
#include "runtime/weights/safetensors_writer.h"
#include "tests/common/test_util.h"
#include "tooling/weights/weights_tool.h"

namespace tir {
namespace {

using testing::TempDir;
using Set = std::shared_ptr<const WeightSet>;

std::string wdir() { return testing::fixture_dir() + "/weights"; }
std::string wfile(const std::string& name) { return wdir() + "/" + name; }

nlohmann::json weights_manifest() {
  return nlohmann::json::parse(std::ifstream(wfile("manifest.json")));
}

/// Imports fixture program `name` ("A", "B", "C") into tmp/<name>.tir + tmp/<name>.bin.
void import_program(const std::string& name, const TempDir& tmp) {
  importer::ImportOptions o;
  o.input = wfile(name + ".pt2");
  o.model_path = tmp.file(name + ".tir");
  o.weights_path = tmp.file(name + ".bin");
  const auto r = importer::import_pt2(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
}

Set open_ok(const std::string& path) {
  auto s = WeightSet::open(path);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : nullptr;
}

/// Output 0 of `model` run with `weights` on the fixture input, copied out.
HostTensor run(const std::string& model, Set weights) {
  auto src = data_source_mmap(model);
  EXPECT_TRUE(src.ok()) << src.status().message();
  auto session = Session::create(*src, std::move(weights));
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return {};
  auto input = npy_read(wfile("input_0.npy"));
  EXPECT_TRUE(input.ok());
  const Tensor in = input->view();
  auto out = (*session)->run({&in, 1});
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? HostTensor::copy_of((*out)[0]) : HostTensor();
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.dtype == b.dtype && a.same_shape(b) && std::memcmp(a.data, b.data, a.nbytes()) == 0;
}

/// Every tensor of `a` is in `b` with the same bytes; with `same_size`, nothing else is.
::testing::AssertionResult sets_equal(const WeightSet& a, const WeightSet& b,
                                      bool same_size = true) {
  if (same_size && a.size() != b.size())
    return ::testing::AssertionFailure() << a.size() << " vs " << b.size() << " tensors";
  for (size_t i = 0; i < a.size(); ++i) {
    const Tensor* t = b.find(a.names()[i]);
    if (!t || !same_bytes(a.tensor(i), *t))
      return ::testing::AssertionFailure() << "tensor '" << a.names()[i] << "' differs";
  }
  return ::testing::AssertionSuccess();
}

void copy_file(const std::string& from, const std::string& to) {
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
}

void flip_byte(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(std::streamoff(offset));
  char c;
  f.read(&c, 1);
  c = char(c ^ 0x5a);
  f.seekp(std::streamoff(offset));
  f.write(&c, 1);
}

/// Offset of the stored bytes of entry `i` (file order) of tir weight file `path`.
uint64_t tensor_offset(const std::string& path, size_t i) {
  auto src = data_source_mmap(path);
  auto view = ir::WeightFileView::open((*src)->bytes(), path);
  EXPECT_TRUE(view.ok()) << view.status().message();
  return view->index().entries()->Get(i)->offset();
}

uint64_t first_tensor_offset(const std::string& path) { return tensor_offset(path, 0); }

std::string pack(const std::string& src, const std::string& out, DType narrow, bool zstd) {
  tools::PackOptions o;
  o.source = src;
  o.output = out;
  o.narrow = narrow;
  o.zstd = zstd;
  std::ostringstream log;
  const Status s = tools::weights_pack(o, log);
  EXPECT_TRUE(s.ok()) << s.message();
  return log.str();
}

TEST(WeightSet, OpensTirAndSafetensorsByTheirFirstBytes) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("B", tmp));
  Set bin = open_ok(tmp.file("B.bin"));
  Set st = open_ok(wfile("B.safetensors"));
  ASSERT_TRUE(bin && st);
  EXPECT_EQ(bin->format(), WeightFormat::kTir);
  EXPECT_NE(bin->signature(), 0u);
  EXPECT_EQ(st->format(), WeightFormat::kSafetensors);
  EXPECT_EQ(st->signature(), 0u);
  // torch's safetensors file and the weights imported from torch's .pt2 hold the same bytes;
  // the tied lm_head is one tensor with an alias in the tir file, two in safetensors.
  EXPECT_TRUE(sets_equal(*bin, *st, /*same_size=*/false));
  EXPECT_EQ(st->size(), bin->size() + 1);
  EXPECT_TRUE(same_bytes(*st->find("model.lm_head.weight"), *bin->find("model.lm_head.weight")));
  // Every tensor of torch's file is aligned, so none is copied.
  EXPECT_EQ(st->owned_bytes(), 0u);
  EXPECT_EQ(bin->owned_bytes(), 0u);
}

TEST(WeightSet, RejectsFileOfNeitherFormat) {
  auto s =
      WeightSet::from_source(data_source_from_buffer(std::vector<uint8_t>(100, 'x'), "junk.bin"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "weight file 'junk.bin': neither a tir weight file nor safetensors (bad magic)");
}

TEST(WeightSet, FlippedByteInTensorFailsChecksum) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  const std::string bad = tmp.file("bad.bin");
  copy_file(tmp.file("A.bin"), bad);
  flip_byte(bad, first_tensor_offset(bad) + 5);
  Set good = open_ok(tmp.file("A.bin"));
  auto s = WeightSet::open(bad);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "weight file '" + bad + "': tensor '" + good->names()[0] + "' fails its checksum");
  // Skipping verification is the caller's explicit choice.
  WeightSetOptions fast;
  fast.verify_checksums = false;
  EXPECT_TRUE(WeightSet::open(bad, fast).ok());
}

// Checksums verified in the background (tirrun's default): the set opens at once, the run
// overlaps the check, and a bad floating-point tensor fails every run instead of giving an
// output, with the same error line as a check at open.
TEST(WeightSet, BackgroundVerifiedRunsReturnNothingComputedFromABadTensor) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  const std::string bad = tmp.file("bad.bin");
  copy_file(tmp.file("A.bin"), bad);
  flip_byte(bad, first_tensor_offset(bad) + 5);
  Set good = open_ok(tmp.file("A.bin"));
  WeightSetOptions background;
  background.verify_in_background = true;
  auto set = WeightSet::open(bad, background);
  ASSERT_TRUE(set.ok()) << "float tensors are checked while the first run goes on";
  auto src = data_source_mmap(tmp.file("A.tir"));
  ASSERT_TRUE(src.ok());
  auto session = Session::create(*src, *set);
  ASSERT_TRUE(session.ok()) << session.status().message();
  auto input = npy_read(wfile("input_0.npy"));
  ASSERT_TRUE(input.ok());
  const Tensor in = input->view();
  const std::string want =
      "weight file '" + bad + "': tensor '" + good->names()[0] + "' fails its checksum";
  for (int r = 0; r < 2; ++r) {
    auto out = (*session)->run({&in, 1});
    ASSERT_FALSE(out.ok()) << "run " << r;
    EXPECT_EQ(out.status().message(), want);
  }
  EXPECT_EQ((*set)->verified().message(), want);
  // An intact file, run from three threads while the check goes on: each gets the output of
  // a set checked at open.
  const HostTensor want_out = run(tmp.file("A.tir"), good);
  auto intact = WeightSet::open(tmp.file("A.bin"), background);
  ASSERT_TRUE(intact.ok());
  auto shared = Session::create(*src, *intact);
  ASSERT_TRUE(shared.ok()) << shared.status().message();
  std::vector<HostTensor> got(3);
  std::vector<std::thread> threads;
  for (HostTensor& out : got)
    threads.emplace_back([&] {
      auto r = (*shared)->run({&in, 1});
      if (r.ok()) out = HostTensor::copy_of((*r)[0]);
    });
  for (std::thread& t : threads) t.join();
  EXPECT_TRUE((*intact)->verified().ok());
  for (const HostTensor& out : got) EXPECT_TRUE(same_bytes(out.view(), want_out.view()));
}

// Integer tensors (a batch norm's num_batches_tracked here; indices, sizes elsewhere) are
// checked at open even then: they could lead a kernel astray before the check ends.
TEST(WeightSet, BackgroundVerificationChecksIntegerTensorsAtOpen) {
  TempDir tmp;
  importer::ImportOptions o;
  o.input = testing::fixture_dir() + "/resnet_small/training/program.pt2";
  o.model_path = tmp.file("r.tir");
  o.weights_path = tmp.file("r.bin");
  ASSERT_TRUE(importer::import_pt2(o).ok());
  Set good = open_ok(tmp.file("r.bin"));
  size_t slot = good->size();
  for (size_t i = 0; i < good->size() && slot == good->size(); ++i)
    if (good->tensor(i).dtype == DType::kInt64) slot = i;
  ASSERT_LT(slot, good->size()) << "the fixture has an int64 tensor";
  const std::string bad = tmp.file("bad.bin");
  copy_file(tmp.file("r.bin"), bad);
  flip_byte(bad, tensor_offset(bad, slot));
  WeightSetOptions background;
  background.verify_in_background = true;
  auto set = WeightSet::open(bad, background);
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().message(),
            "weight file '" + bad + "': tensor '" + good->names()[slot] + "' fails its checksum");
}

TEST(WeightSet, ParallelVerifyNamesTheFirstBadTensorInFileOrder) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  Set good = open_ok(tmp.file("A.bin"));
  const size_t n = good->size(), middle = n / 2, last = n - 1;
  ASSERT_GT(n, 4u);
  const std::string bad = tmp.file("bad.bin");
  auto expect_named = [&](size_t i, int threads) {
    WeightSetOptions o;
    o.verify_threads = threads;
    auto s = WeightSet::open(bad, o);
    ASSERT_FALSE(s.ok()) << "threads " << threads;
    EXPECT_EQ(s.status().message(),
              "weight file '" + bad + "': tensor '" + good->names()[i] + "' fails its checksum")
        << "threads " << threads;
  };
  for (const size_t i : {middle, last}) {
    copy_file(tmp.file("A.bin"), bad);
    flip_byte(bad, tensor_offset(bad, i) + 3);
    for (const int threads : {1, 2, 8, 0}) expect_named(i, threads);
  }
  // Two bad tensors: the earlier one is named, whichever thread hashes what first.
  copy_file(tmp.file("A.bin"), bad);
  flip_byte(bad, tensor_offset(bad, middle) + 3);
  flip_byte(bad, tensor_offset(bad, last) + 3);
  for (const int threads : {1, 2, 8, 0}) expect_named(middle, threads);
  // An intact file opens the same on any thread count.
  for (const int threads : {1, 3}) {
    WeightSetOptions o;
    o.verify_threads = threads;
    auto s = WeightSet::open(tmp.file("A.bin"), o);
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_TRUE(sets_equal(**s, *good));
  }
}

TEST(WeightSet, PrefetchOfAMappingLeavesItsBytesAlone) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  auto src = data_source_mmap(tmp.file("A.bin"));
  ASSERT_TRUE(src.ok()) << src.status().message();
  const std::span<const uint8_t> b = (*src)->bytes();
  const std::vector<uint8_t> before(b.begin(), b.end());
  (*src)->prefetch(0, b.size());
  (*src)->prefetch(5, 3);                 // not page-aligned
  (*src)->prefetch(b.size() - 1, 4096);   // runs past the end
  (*src)->prefetch(b.size() + 4096, 10);  // starts past the end
  (*src)->prefetch(0, 0);
  EXPECT_TRUE(std::equal(b.begin(), b.end(), before.begin(), before.end()));
}

TEST(WeightSet, FlippedByteInCompressedTensorIsCaughtAlways) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  pack(tmp.file("A.bin"), tmp.file("z.bin"), DType::kUndefined, true);
  flip_byte(tmp.file("z.bin"), first_tensor_offset(tmp.file("z.bin")) + 40);
  WeightSetOptions fast;
  fast.verify_checksums = false;  // compressed tensors are checked regardless
  auto s = WeightSet::open(tmp.file("z.bin"), fast);
  ASSERT_FALSE(s.ok());
  const std::string prefix =
      "weight file '" + tmp.file("z.bin") + "': tensor 'model.transformer.wte.weight' ";
  EXPECT_EQ(s.status().message().rfind(prefix, 0), 0u) << s.status().message();
}

TEST(WeightSet, TruncatedTirFileIsRejected) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  const std::string cut = tmp.file("cut.bin");
  copy_file(tmp.file("A.bin"), cut);
  const auto size = std::filesystem::file_size(cut);
  std::filesystem::resize_file(cut, size - 100);
  auto s = WeightSet::open(cut);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "weight file '" + cut + "': size is " +
                                      std::to_string(size - 100) + " bytes but the header says " +
                                      std::to_string(size) + " (truncated?)");
}

TEST(WeightSet, OverlaySharesMemoryAndKeepsBaseSignature) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  Set a = open_ok(tmp.file("A.bin"));
  Set partial = open_ok(wfile("partial.safetensors"));
  auto o = WeightSet::overlay(a, {&partial, 1});
  ASSERT_TRUE(o.ok()) << o.status().message();
  const WeightSet& set = **o;
  EXPECT_EQ(set.format(), WeightFormat::kOverlay);
  EXPECT_EQ(set.signature(), a->signature());
  EXPECT_EQ(set.names(), a->names());
  EXPECT_EQ(set.path(), tmp.file("A.bin") + " + " + wfile("partial.safetensors"));
  EXPECT_EQ(set.num_replaced(), weights_manifest()["partial_tensors"].size());
  EXPECT_EQ(set.owned_bytes(), 0u);
  for (const std::string& name : a->names()) {
    const bool replaced = name.rfind("model.transformer.h.1.", 0) == 0;
    // No copies: each tensor is the base's or the delta's own memory.
    EXPECT_EQ(set.find(name)->data, (replaced ? partial : a)->find(name)->data) << name;
  }
  // Aliases resolve to the same tensor.
  EXPECT_EQ(set.find("model.lm_head.weight"), set.find("model.transformer.wte.weight"));
}

TEST(WeightSet, OverlayEqualsFreshImportOfTheUpdatedModel) {
  TempDir tmp;
  for (const char* p : {"A", "B", "C"}) ASSERT_NO_FATAL_FAILURE(import_program(p, tmp));
  Set a = open_ok(tmp.file("A.bin")), b = open_ok(tmp.file("B.bin")),
      c = open_ok(tmp.file("C.bin"));
  Set partial = open_ok(wfile("partial.safetensors"));
  auto ac = WeightSet::overlay(a, {&partial, 1});
  ASSERT_TRUE(ac.ok()) << ac.status().message();
  EXPECT_TRUE(sets_equal(*c, **ac));

  // Through the C++ API: A's graph with the overlay == C imported from scratch, bitwise.
  const HostTensor want_c = run(tmp.file("C.tir"), c);
  const HostTensor got_c = run(tmp.file("A.tir"), *ac);
  EXPECT_TRUE(same_bytes(got_c.view(), want_c.view()));
  auto eager_c = npy_read(wfile("C_output_0.npy"));
  EXPECT_TRUE(testing::all_close(got_c.view(), eager_c->view(), 1e-4, 1e-4));

  // A whole safetensors state_dict bound directly == B imported from scratch.
  const HostTensor want_b = run(tmp.file("B.tir"), b);
  EXPECT_TRUE(
      same_bytes(run(tmp.file("A.tir"), open_ok(wfile("B.safetensors"))).view(), want_b.view()));
  // Later wins: B then C is C; C then B is B; an overlay of an overlay keeps both.
  std::vector<Set> bc = {open_ok(wfile("B.safetensors")), c}, cb = {c, bc[0]};
  EXPECT_TRUE(sets_equal(*c, **WeightSet::overlay(a, bc)));
  EXPECT_TRUE(sets_equal(*b, **WeightSet::overlay(a, cb)));
  auto again = WeightSet::overlay(*ac, {});
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(sets_equal(*c, **again));
  EXPECT_EQ((*again)->num_replaced(), (*ac)->num_replaced());
}

// One live session: swapping to B's safetensors, to the overlay A + partial, and back to A
// gives, each time, exactly what a fresh import of B, C or A computes.
TEST(WeightSet, LiveSwapEqualsFreshImportBitwise) {
  TempDir tmp;
  for (const char* p : {"A", "B", "C"}) ASSERT_NO_FATAL_FAILURE(import_program(p, tmp));
  Set a = open_ok(tmp.file("A.bin"));
  const HostTensor want_a = run(tmp.file("A.tir"), a);
  const HostTensor want_b = run(tmp.file("B.tir"), open_ok(tmp.file("B.bin")));
  const HostTensor want_c = run(tmp.file("C.tir"), open_ok(tmp.file("C.bin")));
  Set partial = open_ok(wfile("partial.safetensors"));
  auto ac = WeightSet::overlay(a, {&partial, 1});
  ASSERT_TRUE(ac.ok()) << ac.status().message();

  auto src = data_source_mmap(tmp.file("A.tir"));
  ASSERT_TRUE(src.ok());
  auto session = Session::create(*src, a);
  ASSERT_TRUE(session.ok()) << session.status().message();
  auto input = npy_read(wfile("input_0.npy"));
  ASSERT_TRUE(input.ok());
  const Tensor in = input->view();
  auto output_with = [&](Set w) {
    EXPECT_TRUE((*session)->swap_weights(std::move(w)).ok());
    auto out = (*session)->run({&in, 1});
    EXPECT_TRUE(out.ok()) << out.status().message();
    return out.ok() ? HostTensor::copy_of((*out)[0]) : HostTensor();
  };
  EXPECT_TRUE(same_bytes(output_with(open_ok(wfile("B.safetensors"))).view(), want_b.view()));
  EXPECT_TRUE(same_bytes(output_with(*ac).view(), want_c.view()));
  EXPECT_TRUE(same_bytes(output_with(a).view(), want_a.view()));
  EXPECT_FALSE(same_bytes(want_a.view(), want_b.view()));  // the sets really differ
}

TEST(WeightSet, OverlayRejectsUnknownTensorAndWrongShape) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  Set a = open_ok(tmp.file("A.bin"));
  auto delta = [](const std::string& header, const std::string& name) {
    std::vector<uint8_t> f(8);
    for (int i = 0; i < 8; ++i) f[i] = uint8_t(uint64_t(header.size()) >> (8 * i));
    f.insert(f.end(), header.begin(), header.end());
    f.resize(f.size() + 12, 0);
    return *WeightSet::from_source(data_source_from_buffer(std::move(f), name));
  };
  Set unknown = delta(R"({"model.nope":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}})",
                      "unknown.safetensors");
  auto r = WeightSet::overlay(a, {&unknown, 1});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "overlay 'unknown.safetensors': tensor 'model.nope' is not in the base weights '" +
                tmp.file("A.bin") + "'");
  Set reshaped =
      delta(R"({"model.transformer.ln_f.bias":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}})",
            "reshaped.safetensors");
  r = WeightSet::overlay(a, {&reshaped, 1});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "overlay 'reshaped.safetensors': tensor 'model.transformer.ln_f.bias' is "
            "float32[3], the base has float32[32]");
  Set retyped =
      delta(R"({"model.transformer.ln_f.bias":{"dtype":"I32","shape":[3],"data_offsets":[0,12]}})",
            "retyped.safetensors");
  r = WeightSet::overlay(a, {&retyped, 1});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("is int32[3], the base has float32[32]"), std::string::npos)
      << r.status().message();
  // tirrun's path: files opened and laid over in order.
  const std::vector<std::string> layers = {tmp.file("A.bin"), tmp.file("missing.safetensors")};
  EXPECT_FALSE(WeightSet::open_layers(layers).ok());
}

TEST(WeightSet, OtherModelsWeightsAreRefusedAtSessionOpen) {
  TempDir tmp;
  importer::ImportOptions o;
  o.input = testing::fixture_dir() + "/mlp/training/program.pt2";
  o.model_path = tmp.file("mlp.tir");
  o.weights_path = tmp.file("mlp.bin");
  ASSERT_TRUE(importer::import_pt2(o).ok());
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  auto s = Session::open(tmp.file("A.tir"), tmp.file("mlp.bin"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("'" + tmp.file("mlp.bin") + "' does not match the model"),
            std::string::npos)
      << s.status().message();
  EXPECT_NE(s.status().message().find("model.transformer.wte.weight"), std::string::npos)
      << s.status().message();
  // A partial set alone is not a whole model either.
  s = Session::open(tmp.file("A.tir"), wfile("partial.safetensors"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("does not match the model"), std::string::npos);
}

// torch's safetensors file stores GPT-2's tied lm_head under its own name beside wte. The
// model reads one of the two, so a file whose copies differ (shape or bytes) is refused,
// naming both; a file that leaves the tied name out is fine.
TEST(WeightSet, TiedCopiesInAFileMustAgree) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("B", tmp));
  auto model = data_source_mmap(tmp.file("B.tir"));
  auto torch_file = data_source_mmap(wfile("B.safetensors"));
  ASSERT_TRUE(model.ok() && torch_file.ok());
  auto parsed = safetensors_parse((*torch_file)->bytes(), (*torch_file)->name());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const std::string head = "model.lm_head.weight", wte = "model.transformer.wte.weight";
  // Opens the model with torch's file after `edit` changed its entry list.
  auto open_edited = [&](auto edit) {
    std::vector<SafetensorsEntry> entries = parsed->entries;
    edit(entries);
    auto bytes = safetensors_serialize(entries);
    EXPECT_TRUE(bytes.ok()) << bytes.status().message();
    auto set = WeightSet::from_source(data_source_from_buffer(std::move(*bytes), "edited"));
    EXPECT_TRUE(set.ok()) << set.status().message();
    return Session::create(*model, *set);
  };
  auto entry = [&](std::vector<SafetensorsEntry>& e) -> SafetensorsEntry& {
    return *std::ranges::find(e, head, &SafetensorsEntry::name);
  };
  ASSERT_NE(std::ranges::find(parsed->entries, head, &SafetensorsEntry::name),
            parsed->entries.end());
  std::vector<uint8_t> changed;

  EXPECT_TRUE(open_edited([](auto&) {}).ok()) << "torch's own file";
  auto dropped =
      open_edited([&](auto& e) { e.erase(std::ranges::find(e, head, &SafetensorsEntry::name)); });
  EXPECT_TRUE(dropped.ok()) << dropped.status().message();

  auto narrow = open_edited([&](auto& e) {
    SafetensorsEntry& h = entry(e);
    h.bytes = h.bytes.first(static_cast<size_t>(h.shape[0]) * sizeof(float));
    h.shape[1] = 1;
  });
  ASSERT_FALSE(narrow.ok());
  EXPECT_NE(narrow.status().message().find("tensor '" + head + "' is float32["), std::string::npos)
      << narrow.status().message();
  EXPECT_NE(narrow.status().message().find("differs from '" + wte + "'"), std::string::npos)
      << narrow.status().message();

  auto one_value = open_edited([&](auto& e) {
    SafetensorsEntry& h = entry(e);
    changed.assign(h.bytes.begin(), h.bytes.end());
    float f;
    std::memcpy(&f, changed.data() + 40, sizeof f);
    f += 1.0f;
    std::memcpy(changed.data() + 40, &f, sizeof f);
    h.bytes = changed;
  });
  ASSERT_FALSE(one_value.ok());
  EXPECT_NE(one_value.status().message().find("the model ties them into one weight"),
            std::string::npos)
      << one_value.status().message();
}

TEST(WeightSet, ZstdPackRoundTripsBitwise) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  const std::string log = pack(tmp.file("A.bin"), tmp.file("z.bin"), DType::kUndefined, true);
  EXPECT_NE(log.find("packed 28 tensors"), std::string::npos) << log;
  Set a = open_ok(tmp.file("A.bin")), z = open_ok(tmp.file("z.bin"));
  ASSERT_TRUE(a && z);
  EXPECT_TRUE(sets_equal(*a, *z));
  EXPECT_EQ(z->signature(), a->signature());
  EXPECT_EQ(z->owned_bytes(), a->total_bytes());  // inflated into memory the set owns
  EXPECT_EQ(z->aliases(0), a->aliases(0));
  EXPECT_TRUE(same_bytes(run(tmp.file("A.tir"), z).view(), run(tmp.file("A.tir"), a).view()));
  // From safetensors too: B's state_dict, compressed.
  pack(wfile("B.safetensors"), tmp.file("bz.bin"), DType::kUndefined, true);
  EXPECT_TRUE(sets_equal(*open_ok(wfile("B.safetensors")), *open_ok(tmp.file("bz.bin"))));
}

TEST(WeightSet, NarrowPackWidensToTorchsRounding) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  Set a = open_ok(tmp.file("A.bin"));
  for (const bool zstd : {false, true}) {
    for (const DType narrow : {DType::kBFloat16, DType::kFloat16}) {
      SCOPED_TRACE(std::string(dtype_name(narrow)) + (zstd ? " zstd" : ""));
      pack(tmp.file("A.bin"), tmp.file("n.bin"), narrow, zstd);
      Set n = open_ok(tmp.file("n.bin"));
      Set torch_rounded =
          open_ok(wfile(narrow == DType::kBFloat16 ? "A_bf16.safetensors" : "A_fp16.safetensors"));
      ASSERT_TRUE(n && torch_rounded);
      EXPECT_EQ(n->signature(), a->signature());  // the logical dtypes are unchanged
      EXPECT_LT(std::filesystem::file_size(tmp.file("n.bin")),
                std::filesystem::file_size(tmp.file("A.bin")) * 6 / 10);
      for (size_t i = 0; i < n->size(); ++i) {
        const Tensor& got = n->tensor(i);
        const Tensor* want = torch_rounded->find(n->names()[i]);
        ASSERT_NE(want, nullptr) << n->names()[i];
        ASSERT_EQ(got.dtype, DType::kFloat32);
        ASSERT_EQ(got.numel(), want->numel());
        for (int64_t k = 0; k < got.numel(); ++k) {
          const uint16_t h = want->data_as<uint16_t>()[k];
          const float expect =
              narrow == DType::kBFloat16 ? std::bit_cast<float>(uint32_t(h) << 16) : _cvtsh_ss(h);
          ASSERT_EQ(std::bit_cast<uint32_t>(got.data_as<float>()[k]),
                    std::bit_cast<uint32_t>(expect))
              << n->names()[i] << "[" << k << "]";
        }
      }
      // The model still runs and stays close to full precision.
      auto eager = npy_read(wfile("A_output_0.npy"));
      EXPECT_TRUE(testing::all_close(run(tmp.file("A.tir"), n).view(), eager->view(), 0.1, 0.1));
    }
  }
}

/// A safetensors file holding one float32 tensor `name` shaped like `like`, filled with `v`.
std::vector<uint8_t> one_tensor_safetensors(const std::string& name, const Tensor& like, float v) {
  const size_t bytes = like.nbytes();
  nlohmann::json shape = nlohmann::json::array();
  for (int64_t d : like.shape()) shape.push_back(d);
  std::string header =
      nlohmann::json{{name, {{"dtype", "F32"}, {"shape", shape}, {"data_offsets", {0, bytes}}}}}
          .dump();
  header.append((8 - header.size() % 8) % 8, ' ');
  std::vector<uint8_t> out(8);
  for (int i = 0; i < 8; ++i) out[i] = uint8_t(uint64_t(header.size()) >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  const size_t at = out.size();
  out.resize(at + bytes);
  for (size_t i = 0; i < bytes / 4; ++i) std::memcpy(out.data() + at + 4 * i, &v, 4);
  return out;
}

// Continual learning (issue 17): 1000 partial updates, each overlaid on the previous set.
// Superseded deltas must be released: at the end only the base and the latest delta live,
// and the set owns the bytes of one delta, not a thousand.
TEST(WeightSet, ChainOfThousandPartialUpdatesStaysBounded) {
  Set base = open_ok(wfile("B.safetensors"));
  ASSERT_NE(base, nullptr);
  size_t slot = 0;
  while (slot < base->size() && base->tensor(slot).dtype != DType::kFloat32) ++slot;
  ASSERT_LT(slot, base->size());
  const std::string name = base->names()[slot];
  const Tensor like = base->tensor(slot);
  std::vector<std::weak_ptr<const WeightSet>> deltas;
  size_t delta_bytes = 0;
  Set current = base;
  for (int k = 0; k < 1000; ++k) {
    auto delta = WeightSet::from_source(data_source_from_buffer(
        one_tensor_safetensors(name, like, float(k)), "update" + std::to_string(k)));
    ASSERT_TRUE(delta.ok()) << delta.status().message();
    delta_bytes = (*delta)->owned_bytes();
    deltas.push_back(*delta);
    const std::shared_ptr<const WeightSet> d = *delta;
    auto next = WeightSet::overlay(current, std::span(&d, 1));
    ASSERT_TRUE(next.ok()) << next.status().message();
    current = *next;
  }
  size_t alive = 0;
  for (const auto& w : deltas) alive += !w.expired();
  EXPECT_EQ(alive, 1u);
  EXPECT_FALSE(deltas.back().expired());
  EXPECT_EQ(current->owned_bytes(), base->owned_bytes() + delta_bytes);
  EXPECT_EQ(current->find(name)->data_as<const float>()[0], 999.f);
  EXPECT_LT(current->path().size(), 1100u);
}

}  // namespace
}  // namespace tir
