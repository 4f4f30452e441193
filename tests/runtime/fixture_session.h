// Test helpers shared by the runtime tests: import a real torch fixture with the importer
// library and open a Session on it; read a fixture's .npy tensors.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "importer/import_pt2.h"
#include "ir/weight_file.h"
#include "runtime/exec/session.h"
#include "runtime/weights/data_loader.h"
#include "runtime/weights/host_tensor.h"
#include "runtime/weights/npy.h"
#include "tests/common/npy_util.h"
#include "tests/common/test_util.h"

namespace tir::testing {

/// A second weight set for the same model: the file at `path` with every float32 tensor
/// scaled by `scale` (checksums are not recomputed, so it is opened without verifying).
inline std::shared_ptr<const WeightSet> scaled_weights(const std::string& path, float scale) {
  auto bytes = read_file(path);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  auto file = ir::WeightFileView::open(*bytes, path);
  EXPECT_TRUE(file.ok()) << file.status().message();
  for (const ir::fb::WeightEntry* e : *file->index().entries()) {
    if (ir::to_dtype(e->dtype()) != DType::kFloat32) continue;
    const std::span<const uint8_t> s = file->stored_bytes(*e);
    float* f = reinterpret_cast<float*>(const_cast<uint8_t*>(s.data()));
    for (size_t i = 0; i < s.size() / sizeof(float); ++i) f[i] *= scale;
  }
  WeightSetOptions o;
  o.verify_checksums = false;
  auto set =
      WeightSet::from_source(data_source_from_buffer(std::move(*bytes), path + "*scaled"), o);
  EXPECT_TRUE(set.ok()) << set.status().message();
  return set.ok() ? *set : nullptr;
}

/// Imports `<dir>/program.pt2` into tmp/m.tir + tmp/m.bin; false (with a gtest failure) if
/// the import fails.
inline bool import_fixture(const std::string& dir, const TempDir& tmp) {
  importer::ImportOptions o;
  o.input = dir + "/program.pt2";
  o.model_path = tmp.file("m.tir");
  o.weights_path = tmp.file("m.bin");
  const auto summary = importer::import_pt2(o);
  EXPECT_TRUE(summary.ok()) << summary.status().message();
  return summary.ok();
}

/// Imports `<dir>/program.pt2` into `tmp` (import_fixture) and opens a Session on it.
inline Result<std::unique_ptr<Session>> open_fixture(const std::string& dir, const TempDir& tmp,
                                                     const SessionOptions& options = {}) {
  if (!import_fixture(dir, tmp))
    return make_error(StatusCode::kInvalidArgument, "cannot import ", dir);
  return Session::open(tmp.file("m.tir"), tmp.file("m.bin"), options);
}

struct FixtureRun {
  std::unique_ptr<Session> session;  // null when something failed (a gtest failure says what)
  std::vector<HostTensor> inputs, outputs;
};

/// Opens a session with `options` on the fixture in `dir` (manifest entry `f`, imported into
/// `tmp`) and runs its inputs once; the session stays open for its statistics.
inline FixtureRun run_fixture_once(const std::string& dir, const nlohmann::json& f,
                                   const TempDir& tmp, const SessionOptions& options = {});

/// Runs an LLM fixture's prefill (inputs input_ids [1, 7], cache_position [7]) on the 7-token
/// prompt the LLM tests share; the session's outputs.
inline Result<std::span<const Tensor>> run_test_prompt(Session& s) {
  std::vector<int64_t> ids = {5, 17, 3, 99, 42, 8, 61}, positions = {0, 1, 2, 3, 4, 5, 6};
  return s.run(
      std::vector<Tensor>{make_tensor(DType::kInt64, std::vector<int64_t>{1, 7}, ids.data()),
                          make_tensor(DType::kInt64, std::vector<int64_t>{7}, positions.data())});
}

/// The argmax of the last row of LLM logits [1, T, vocab]: the greedy next token.
inline int64_t last_argmax(const Tensor& logits) {
  const int64_t vocab = logits.shape().back();
  const float* row = static_cast<const float*>(logits.data) + logits.numel() - vocab;
  return std::max_element(row, row + vocab) - row;
}

inline std::vector<Tensor> views(const std::vector<HostTensor>& hs) {
  std::vector<Tensor> v;
  for (const HostTensor& h : hs) v.push_back(h.view());
  return v;
}

/// Owned copies of a run's outputs (a session's views die with its next run).
inline std::vector<HostTensor> copies(std::span<const Tensor> ts) {
  std::vector<HostTensor> out;
  for (const Tensor& t : ts) out.push_back(HostTensor::copy_of(t));
  return out;
}

inline bool bitwise_equal(std::span<const Tensor> a, const std::vector<HostTensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (a[k].nbytes() != b[k].view().nbytes() ||
        std::memcmp(a[k].data, b[k].view().data, a[k].nbytes()) != 0)
      return false;
  return true;
}

inline FixtureRun run_fixture_once(const std::string& dir, const nlohmann::json& f,
                                   const TempDir& tmp, const SessionOptions& options) {
  FixtureRun r;
  auto session = open_fixture(dir, tmp, options);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return r;
  r.inputs = read_all(dir, f["inputs"]);
  auto outputs = (*session)->run(views(r.inputs));
  EXPECT_TRUE(outputs.ok()) << outputs.status().message();
  if (!outputs.ok()) return r;
  r.outputs = copies(*outputs);
  r.session = std::move(*session);
  return r;
}

}  // namespace tir::testing
