// libFuzzer target: a .tir model: checksum, FlatBuffers and semantic verification, then
// what tools and shape binding do with every verified dim (evaluate and format), then what
// tirrun does with it: a session over weights made in memory from the model's own weight
// table, and one run (shape binding, plan creation, kernels) on small zero inputs. Each
// input is tried as it is and sealed with a correct checksum trailer, so mutations reach
// the verifiers instead of stopping at the checksum. Every failure must be a Status.
#include <algorithm>

#include "core/read_limits.h"
#include "ir/model.h"
#include "ir/sym_expr.h"
#include "runtime/exec/session.h"
#include "runtime/weights/host_tensor.h"
#include "runtime/weights/safetensors_writer.h"
#include "runtime/weights/weight_set.h"

namespace {

namespace fb = tir::fb;

// Budgets: a model declaring more is verified but not run (its weights are not allocated).
constexpr uint64_t kMaxWeightBytes = 1 << 20;
constexpr uint64_t kMaxInputBytes = 1 << 16;
constexpr size_t kMaxNodes = 256;
constexpr int64_t kMaxSymbol = 8;

// Symbols at small values inside their ranges: the hint when it is small, else the
// smallest value >= 2 the range allows.
std::vector<int64_t> small_symbols(const fb::Method& m) {
  std::vector<int64_t> symbols;
  if (!m.symbols()) return symbols;
  for (const fb::Symbol* s : *m.symbols()) {
    int64_t v = s->hint() >= 0 && s->hint() <= kMaxSymbol ? s->hint() : 2;
    symbols.push_back(std::clamp(v, s->min(), std::max(s->min(), s->max())));
  }
  return symbols;
}

void eval_every_dim(const fb::Method& m) {
  const std::vector<int64_t> symbols = small_symbols(m);
  if (!m.values()) return;
  for (const fb::Value* v : *m.values()) {
    if (!v->sizes()) continue;
    for (const fb::Dim* d : *v->sizes()) {
      (void)tir::ir::eval_dim(*d, symbols);
      if (d->expr()) (void)tir::ir::format_sym_expr(*d->expr(), m.symbols());
    }
  }
}

// Every weight the model declares, zero-filled, as a safetensors file in memory; nullopt
// when they exceed the byte budget or cannot be written (that is not the model's bug).
std::shared_ptr<const tir::WeightSet> synthetic_weights(const fb::Model& model) {
  std::vector<tir::SafetensorsEntry> entries;
  std::vector<uint8_t> zeros;
  uint64_t total = 0;
  if (model.weights()) {
    for (const fb::WeightRef* w : *model.weights()) {
      total += w->byte_size();
      if (total > kMaxWeightBytes || !w->name()) return nullptr;
      tir::SafetensorsEntry e;
      e.name = std::string(tir::ir::str(w->name()));
      e.dtype = tir::ir::to_dtype(w->dtype());
      if (w->shape()) e.shape.assign(w->shape()->begin(), w->shape()->end());
      entries.push_back(std::move(e));
    }
  }
  zeros.resize(total);
  for (tir::SafetensorsEntry& e : entries) {
    const fb::WeightRef* w = model.weights()->Get(static_cast<uint32_t>(&e - entries.data()));
    e.bytes = {zeros.data(), static_cast<size_t>(w->byte_size())};
  }
  auto file = tir::safetensors_serialize(entries);
  if (!file.ok()) return nullptr;
  auto set = tir::WeightSet::from_source(
      tir::data_source_from_buffer(std::move(*file), "fuzz.safetensors"));
  return set.ok() ? *set : nullptr;
}

// Zero inputs of the declared dtypes and shapes at small symbol values (a SymInt input: its
// expression's value as a 0-dim int64 tensor); empty when one cannot be made small.
std::vector<tir::HostTensor> small_inputs(const fb::Method& m) {
  std::vector<tir::HostTensor> inputs;
  if (!m.inputs() || !m.values()) return inputs;
  const std::vector<int64_t> symbols = small_symbols(m);
  uint64_t total = 0;
  for (int32_t index : *m.inputs()) {
    if (index < 0 || static_cast<uint32_t>(index) >= m.values()->size()) return {};
    const fb::Value* v = m.values()->Get(static_cast<uint32_t>(index));
    if (v->kind() == fb::ValueKind::SymInt) {
      if (!v->expr()) return {};
      auto value = tir::ir::eval_sym_expr(*v->expr(), symbols);
      if (!value.ok()) return {};
      tir::HostTensor t(tir::DType::kInt64, {});
      *t.data<int64_t>() = *value;
      inputs.push_back(std::move(t));
      continue;
    }
    std::vector<int64_t> shape;
    uint64_t numel = 1;
    if (v->sizes()) {
      if (v->sizes()->size() > static_cast<uint32_t>(tir::kMaxRank)) return {};
      for (const fb::Dim* d : *v->sizes()) {
        auto size = tir::ir::eval_dim(*d, symbols);
        if (!size.ok() || *size < 0 || *size > 1024) return {};
        numel *= static_cast<uint64_t>(*size);
        shape.push_back(*size);
      }
    }
    const tir::DType dtype = tir::ir::to_dtype(v->dtype());
    const size_t item = tir::dtype_size(dtype);
    if (item == 0 || (total += numel * item) > kMaxInputBytes) return {};
    inputs.emplace_back(dtype, shape);
  }
  return inputs;
}

void run_first_method(std::span<const uint8_t> bytes, const tir::ir::ModelView& view) {
  const fb::Method* m = view.model().methods()->Get(0);
  if (!m->name() || (m->nodes() && m->nodes()->size() > kMaxNodes)) return;
  std::shared_ptr<const tir::WeightSet> weights = synthetic_weights(view.model());
  if (!weights) return;
  std::vector<tir::HostTensor> inputs = small_inputs(*m);
  tir::SessionOptions options;
  options.method = std::string(tir::ir::str(m->name()));
  options.weights.verify_threads = 1;
  auto session = tir::Session::create(
      tir::data_source_from_buffer({bytes.begin(), bytes.end()}, "fuzz.tir"), weights, options);
  if (!session.ok()) return;
  std::vector<tir::Tensor> views;
  for (const tir::HostTensor& t : inputs) views.push_back(t.view());
  (void)(*session)->run(views);
}

void one(std::span<const uint8_t> bytes) {
  auto view = tir::ir::ModelView::open(bytes, "fuzz.tir");
  if (!view.ok()) return;
  for (const fb::Method* m : *view->model().methods()) eval_every_dim(*m);
  if (view->model().methods()->size() > 0) run_first_method(bytes, *view);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tir::set_num_threads(1);
  // No activation or weight larger than the fuzzer's memory limit is planned.
  tir::set_read_limits({.max_bytes = 64 << 20, .max_nodes = kMaxNodes * 4});
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  one({data, size});
  const std::vector<uint8_t> sealed = tir::ir::model_seal({data, size});
  one(sealed);
  return 0;
}
