// Weight sources (runtime/weights/weight_source.h) over a real fixture's weights: ResidentWeights
// binds every weight of the model by name to the tensor the WeightSet holds, keys it by slot and
// generation (an overlay changes only the generations of what it replaces), and names the
// weight a set lacks. Packed copies keyed by those keys (kernels/packed_cache.h): a newer
// generation of a slot and layout drops the older copies nobody holds any more.
#include "runtime/weights/weight_source.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "kernels/packed_cache.h"
#include "runtime/weights/safetensors.h"
#include "tests/runtime/exec_fixture.h"

namespace tir {
namespace {

using kernels::PackedCache;
using kernels::WeightKey;
using testing::LoadedModel;

/// The safetensors dtype name of `d` ("F32").
std::string safetensors_name(DType d) {
  for (const char* n : {"BOOL", "U8", "I8", "I16", "I32", "I64", "F16", "BF16", "F32", "F64"})
    if (safetensors_dtype(n) == d) return n;
  ADD_FAILURE() << "no safetensors name for " << dtype_name(d);
  return "";
}

/// An in-memory safetensors set named `name` holding `tensors` (name, tensor) in order.
std::shared_ptr<const WeightSet> safetensors_set(
    const std::vector<std::pair<std::string, const Tensor*>>& tensors, const std::string& name) {
  std::string header = "{";
  size_t offset = 0;
  for (const auto& [n, t] : tensors) {
    if (header.size() > 1) header += ",";
    header += "\"";
    header += n;
    header += "\":{\"dtype\":\"";
    header += safetensors_name(t->dtype);
    header += "\",\"shape\":[";
    for (size_t d = 0; d < t->shape().size(); ++d) {
      if (d) header += ",";
      header += std::to_string(t->shape()[d]);
    }
    header += "],\"data_offsets\":[";
    header += std::to_string(offset);
    header += ",";
    header += std::to_string(offset + t->nbytes());
    header += "]}";
    offset += t->nbytes();
  }
  header += "}";
  header.resize((header.size() + 7) / 8 * 8, ' ');  // keeps the data 8-byte aligned
  std::vector<uint8_t> file(8);
  for (int i = 0; i < 8; ++i) file[i] = uint8_t(uint64_t(header.size()) >> (8 * i));
  file.insert(file.end(), header.begin(), header.end());
  for (const auto& [n, t] : tensors) {
    const auto* p = static_cast<const uint8_t*>(t->data);
    file.insert(file.end(), p, p + t->nbytes());
  }
  auto set = WeightSet::from_source(data_source_from_buffer(std::move(file), name));
  EXPECT_TRUE(set.ok()) << set.status().message();
  return set.ok() ? *set : nullptr;
}

std::string weight_name(const LoadedModel& m, WeightId id) {
  return std::string(ir::str(m.view->model().weights()->Get(id)->name()));
}

size_t num_weights(const LoadedModel& m) {
  const auto* w = m.view->model().weights();
  return w ? w->size() : 0;
}

class ResidentWeightsTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(testing::load_model("gpt2/training", &m_)); }
  LoadedModel m_;
};

TEST_F(ResidentWeightsTest, BindsEveryWeightByName) {
  auto bound = ResidentWeights::bind(*m_.view, m_.weights);
  ASSERT_TRUE(bound.ok()) << bound.status().message();
  const ResidentWeights& source = **bound;
  EXPECT_TRUE(source.resident());
  EXPECT_EQ(&source.set(), m_.weights.get());
  EXPECT_EQ(source.set_ptr(), m_.weights);
  ASSERT_GT(num_weights(m_), 10u);
  std::set<int32_t> slots;
  for (WeightId id = 0; id < WeightId(num_weights(m_)); ++id) {
    const std::string name = weight_name(m_, id);
    SCOPED_TRACE(name);
    auto t = (*bound)->acquire(id);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(*t, m_.weights->find(name));
    (*bound)->release(id);
    const WeightKey key = source.key(id);
    EXPECT_TRUE(key.valid());
    EXPECT_EQ(key.slot, m_.weights->slot(name));
    EXPECT_EQ(key.generation, m_.weights->generation(size_t(key.slot)));
    EXPECT_EQ(&m_.weights->tensor(size_t(key.slot)), *t);
    slots.insert(key.slot);
  }
  EXPECT_EQ(slots.size(), num_weights(m_)) << "two weights bound to one slot";
}

TEST_F(ResidentWeightsTest, OverlayChangesOnlyTheReplacedWeightsGeneration) {
  const WeightId replaced = 1;
  const std::string name = weight_name(m_, replaced);
  const Tensor* original = m_.weights->find(name);
  ASSERT_NE(original, nullptr);
  ASSERT_EQ(original->dtype, DType::kFloat32);
  HostTensor changed = HostTensor::copy_of(*original);
  for (int64_t i = 0; i < changed.view().numel(); ++i) changed.data<float>()[i] += 1.0f;
  const auto delta = safetensors_set({{name, &changed.view()}}, "delta.safetensors");
  ASSERT_NE(delta, nullptr);
  auto overlay = WeightSet::overlay(m_.weights, {&delta, 1});
  ASSERT_TRUE(overlay.ok()) << overlay.status().message();

  auto base = ResidentWeights::bind(*m_.view, m_.weights);
  auto over = ResidentWeights::bind(*m_.view, *overlay);
  ASSERT_TRUE(base.ok() && over.ok());
  for (WeightId id = 0; id < WeightId(num_weights(m_)); ++id) {
    SCOPED_TRACE(weight_name(m_, id));
    const WeightKey a = (*base)->key(id), b = (*over)->key(id);
    const Tensor* ta = *(*base)->acquire(id);
    const Tensor* tb = *(*over)->acquire(id);
    EXPECT_EQ(a.slot, b.slot);  // an overlay shares its base's slots
    EXPECT_EQ(tb, (*overlay)->find(weight_name(m_, id)));
    if (id == replaced) {
      EXPECT_NE(a.generation, b.generation);
      EXPECT_NE(tb->data, ta->data);
      EXPECT_EQ(std::memcmp(tb->data, changed.view().data, tb->nbytes()), 0);
    } else {
      EXPECT_EQ(a, b);
      EXPECT_EQ(tb->data, ta->data);
    }
  }
}

TEST_F(ResidentWeightsTest, MissingWeightIsAnErrorNamingIt) {
  const WeightId dropped = WeightId(num_weights(m_)) - 1;
  const std::string name = weight_name(m_, dropped);
  ASSERT_FALSE(m_.view->model().weights()->Get(dropped)->aliases() &&
               m_.view->model().weights()->Get(dropped)->aliases()->size() > 0);
  std::vector<std::pair<std::string, const Tensor*>> others;
  const int32_t dropped_slot = m_.weights->slot(name);
  for (size_t s = 0; s < m_.weights->size(); ++s)
    if (int32_t(s) != dropped_slot)
      others.emplace_back(m_.weights->names()[s], &m_.weights->tensor(s));
  const auto partial = safetensors_set(others, "partial.safetensors");
  ASSERT_NE(partial, nullptr);
  auto bound = ResidentWeights::bind(*m_.view, partial);
  ASSERT_FALSE(bound.ok());
  EXPECT_EQ(bound.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(bound.status().message(),
            "weight '" + name + "' is missing from 'partial.safetensors'");

  // With every tensor it binds, to the new set's tensors.
  others.emplace_back(name, &m_.weights->tensor(size_t(dropped_slot)));
  const auto full = safetensors_set(others, "full.safetensors");
  ASSERT_NE(full, nullptr);
  auto ok = ResidentWeights::bind(*m_.view, full);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(*(*ok)->acquire(dropped), full->find(name));
}

// ---------------------------------------------------------------- packed copies

/// A `make` that counts its calls and returns a fresh int holding `value`.
struct Maker {
  int calls = 0;
  std::function<Result<std::shared_ptr<void>>()> operator()(int value) {
    return [this, value]() -> Result<std::shared_ptr<void>> {
      ++calls;
      return std::shared_ptr<void>(std::make_shared<int>(value));
    };
  }
};

TEST(PackedCache, OneEntryPerKeyAndLayout) {
  PackedCache cache;
  Maker make;
  auto a = cache.get({3, 10}, "L", make(1));
  ASSERT_TRUE(a.ok());
  auto again = cache.get({3, 10}, "L", make(2));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(a->get(), again->get());
  EXPECT_EQ(make.calls, 1);
  EXPECT_EQ(*static_cast<int*>(again->get()), 1);
  // Another layout or another slot is another entry.
  ASSERT_TRUE(cache.get({3, 10}, "M", make(3)).ok());
  ASSERT_TRUE(cache.get({4, 10}, "L", make(4)).ok());
  EXPECT_EQ(make.calls, 3);
  EXPECT_EQ(cache.size(), 3u);
}

TEST(PackedCache, NewerGenerationDropsOlderOnesNobodyHolds) {
  PackedCache cache;
  Maker make;
  std::weak_ptr<void> gen1;
  {
    auto a = cache.get({3, 1}, "L", make(1));
    ASSERT_TRUE(a.ok());
    gen1 = *a;
  }  // only the cache holds generation 1 now
  auto other_layout = cache.get({3, 1}, "M", make(5));
  auto other_slot = cache.get({4, 1}, "L", make(6));
  ASSERT_TRUE(other_layout.ok() && other_slot.ok());
  EXPECT_EQ(cache.size(), 3u);

  auto gen2 = cache.get({3, 2}, "L", make(2));  // drops slot 3 / "L" generation 1
  ASSERT_TRUE(gen2.ok());
  EXPECT_TRUE(gen1.expired());
  EXPECT_EQ(cache.size(), 3u);

  // A held generation stays when a newer one comes, and the cache still serves it.
  auto gen3 = cache.get({3, 3}, "L", make(3));
  ASSERT_TRUE(gen3.ok());
  EXPECT_EQ(cache.size(), 4u);
  const int calls = make.calls;
  auto held = cache.get({3, 2}, "L", make(7));
  ASSERT_TRUE(held.ok());
  EXPECT_EQ(held->get(), gen2->get());
  EXPECT_EQ(make.calls, calls);
  // Entries of other layouts and slots were never dropped.
  other_layout->reset();
  other_slot->reset();
  auto m = cache.get({3, 1}, "M", make(8));
  auto s = cache.get({4, 1}, "L", make(9));
  ASSERT_TRUE(m.ok() && s.ok());
  EXPECT_EQ(*static_cast<int*>(m->get()), 5);
  EXPECT_EQ(*static_cast<int*>(s->get()), 6);
  EXPECT_EQ(make.calls, calls);

  // Released generations 2 and 3 go when generation 4 comes.
  gen2->reset();
  held->reset();
  gen3->reset();
  ASSERT_TRUE(cache.get({3, 4}, "L", make(4)).ok());
  EXPECT_EQ(cache.size(), 3u);  // slot 3 "L" gen 4, slot 3 "M", slot 4 "L"
}

TEST(PackedCache, FailedMakeLeavesNoEntry) {
  PackedCache cache;
  auto r = cache.get({1, 1}, "L", []() -> Result<std::shared_ptr<void>> {
    return make_error(StatusCode::kInternal, "cannot pack");
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "cannot pack");
  EXPECT_EQ(cache.size(), 0u);
  Maker make;
  ASSERT_TRUE(cache.get({1, 1}, "L", make(1)).ok());
  EXPECT_EQ(make.calls, 1);
}

}  // namespace
}  // namespace tir
