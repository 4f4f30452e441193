// Plans (runtime/exec/plan.h) built directly from a real fixture's graph, lowered and placed on
// two devices as the executor does it (lower, place, fuse, drop dead nodes, insert copies,
// choose layouts): one arena per device used, every activation and scratch buffer inside the
// arena of its own device, no two buffers live at once sharing bytes, weights bound in place,
// steps wired to their devices; a plan per shape binding; and the error of a cond whose
// branches' subgraphs were not given.
#include "runtime/exec/plan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/exec/shape_binding.h"
#include "runtime/passes/fusion.h"
#include "runtime/passes/layout.h"
#include "runtime/passes/placement.h"
#include "runtime/weights/weight_source.h"
#include "tests/runtime/exec_fixture.h"

namespace tir {
namespace {

namespace fb = ir::fb;
using testing::LoadedModel;

/// A fixture's forward method through the executor's load-time passes, with what
/// plan_build reads besides the graph.
struct Prepared {
  LoadedModel model;
  ExecGraph graph;
  std::vector<std::shared_ptr<Device>> devices;
  std::shared_ptr<ResidentWeights> weights;
  std::vector<void*> fixed_data;
  std::vector<kernels::WeightKey> keys;

  PlanInputs inputs() const {
    PlanInputs in;
    in.graph = &graph;
    in.devices = devices;
    in.fixed_data = fixed_data;
    in.keys = keys;
    in.packed_cache = &model.weights->packed_cache();
    return in;
  }
};

void prepare(const std::string& rel, std::vector<std::shared_ptr<Device>> devices,
             const PlacementPolicy& policy, Prepared* p) {
  ASSERT_NO_FATAL_FAILURE(testing::load_model(rel, &p->model));
  auto g = exec_graph_lower(*p->model.view, *p->model.forward);
  ASSERT_TRUE(g.ok()) << g.status().message();
  p->graph = std::move(g).value();
  p->devices = std::move(devices);
  ASSERT_TRUE(place_nodes(p->graph, p->devices, policy).ok());
  fuse_graph(p->graph);
  exec_graph_remove_dead(p->graph);
  insert_copies(p->graph, p->devices);
  choose_channels_last(p->graph);
  auto bound = ResidentWeights::bind(*p->model.view, p->model.weights);
  ASSERT_TRUE(bound.ok()) << bound.status().message();
  p->weights = *bound;
  const fb::Model& m = p->model.view->model();
  p->fixed_data.assign(p->graph.values.size(), nullptr);
  p->keys.assign(p->graph.values.size(), {});
  for (size_t v = 0; v < p->graph.values.size(); ++v) {
    const ExecValue& val = p->graph.values[v];
    if (val.weight >= 0) {
      auto t = p->weights->acquire(val.weight);
      ASSERT_TRUE(t.ok());
      p->fixed_data[v] = (*t)->data;
      p->keys[v] = p->weights->key(val.weight);
    } else if (val.constant >= 0) {
      const fb::Constant* c = m.constants()->Get(val.constant);
      p->fixed_data[v] = const_cast<uint8_t*>(c->data() ? c->data()->data() : nullptr);
    }
  }
}

PlacementPolicy alternating_policy() {
  return [](const ExecNode&, size_t i) { return DeviceId(i % 2); };
}

/// Builds the plan for `inputs` (their shapes bind the method's symbols).
Result<std::unique_ptr<Plan>> build(const Prepared& p, const std::vector<HostTensor>& inputs) {
  const std::vector<Tensor> views = testing::views(inputs);
  TIR_ASSIGN_OR_RETURN(auto symbols, bind_symbols(*p.model.forward, views));
  return plan_build(p.inputs(), std::move(symbols), views);
}

/// The arena of `device` in `plan`, or nullptr.
const Arena* arena_of(const Plan& plan, const Device* device) {
  for (const auto& a : plan.arenas)
    if (a->device == device) return a.get();
  return nullptr;
}

bool inside(const Arena& a, const void* p, size_t bytes) {
  const auto* base = static_cast<const uint8_t*>(a.data);
  const auto* q = static_cast<const uint8_t*>(p);
  return q >= base && q + bytes <= base + a.bytes;
}

/// Checks the memory of `plan` over `p.graph`: arenas, buffers inside their device's arena,
/// no overlap of buffers alive at once on one device. Returns the buffers on device 1.
size_t expect_memory_planned(const Prepared& p, const Plan& plan) {
  const ExecGraph& g = p.graph;
  // One arena per device that holds a value or scratch.
  std::vector<bool> used(p.devices.size(), false);
  for (const ExecNode& n : g.nodes)
    for (int32_t v : n.outputs) used[g.values[v].device] = true;
  size_t total = 0;
  EXPECT_EQ(plan.arenas.size(), size_t(std::count(used.begin(), used.end(), true)));
  for (size_t d = 0; d < p.devices.size(); ++d) {
    const Arena* a = arena_of(plan, p.devices[d].get());
    EXPECT_EQ(a != nullptr, bool(used[d])) << "device " << d;
    if (!a) continue;
    EXPECT_NE(a->data, nullptr);
    EXPECT_GT(a->bytes, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a->data) % 64, 0u);
    total += a->bytes;
  }
  EXPECT_EQ(plan.arena_bytes, total);

  // Buffers with memory of their own: (device, first step, last step, bytes, pointer).
  struct Buffer {
    DeviceId device;
    int32_t first, last;
    size_t bytes;
    const uint8_t* data;
    std::string what;
  };
  std::vector<Buffer> buffers;
  const int32_t end = int32_t(plan.steps.size());
  std::vector<int32_t> root(g.values.size()), last(g.values.size(), -1);
  for (size_t v = 0; v < g.values.size(); ++v) root[v] = int32_t(v);
  for (int32_t i = 0; i < end; ++i) {
    const PlanStep& s = plan.steps[i];
    for (int32_t v : s.in_values) last[root[v]] = std::max(last[root[v]], i);
    for (size_t k = 0; k < s.out_values.size(); ++k)
      if (s.info.output_alias[k] >= 0)
        root[s.out_values[k]] = root[s.in_values[s.info.output_alias[k]]];
  }
  for (int32_t v : g.outputs) last[root[v]] = end;
  for (const auto& mu : g.mutations) last[root[mu.first]] = end;
  for (int32_t i = 0; i < end; ++i) {
    const PlanStep& s = plan.steps[i];
    for (size_t k = 0; k < s.out_values.size(); ++k) {
      const int32_t v = s.out_values[k];
      if (s.info.output_alias[k] >= 0 || !g.values[v].is_tensor) continue;
      const void* data = plan.value_data[v];
      EXPECT_NE(data, nullptr) << node_context(*s.node) << " output " << k;
      if (!data) continue;
      buffers.push_back({g.values[v].device, i, std::max(i, last[v]), plan.values[v].nbytes(),
                         static_cast<const uint8_t*>(data), node_context(*s.node)});
    }
    if (s.info.scratch_bytes > 0) {
      EXPECT_NE(s.scratch, nullptr);
      buffers.push_back({s.node->device, i, i, s.info.scratch_bytes, s.scratch,
                         node_context(*s.node) + " scratch"});
    }
  }
  size_t on_1 = 0;
  for (const Buffer& b : buffers) {
    const Arena* a = arena_of(plan, p.devices[b.device].get());
    EXPECT_NE(a, nullptr) << b.what;
    if (!a) continue;
    EXPECT_TRUE(inside(*a, b.data, b.bytes))
        << b.what << " is outside device " << int(b.device) << "'s arena";
    on_1 += b.device == 1;
  }
  for (size_t x = 0; x < buffers.size(); ++x)
    for (size_t y = x + 1; y < buffers.size(); ++y) {
      const Buffer &a = buffers[x], &b = buffers[y];
      if (a.device != b.device || a.last < b.first || b.last < a.first) continue;
      if (a.bytes == 0 || b.bytes == 0) continue;
      EXPECT_TRUE(a.data + a.bytes <= b.data || b.data + b.bytes <= a.data)
          << a.what << " and " << b.what << " share bytes while both live";
    }
  return on_1;
}

TEST(Plan, TwoDevicesGetOneArenaEach) {
  Prepared p;
  ASSERT_NO_FATAL_FAILURE(
      prepare("gpt2/core", {cpu_device(), make_reference_device()}, alternating_policy(), &p));
  const nlohmann::json f = testing::fixture_entry("gpt2/core");
  const auto inputs = testing::read_all(p.model.dir, f["inputs"]);
  auto plan = build(p, inputs);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const Plan& built = **plan;
  ASSERT_EQ(built.arenas.size(), 2u);
  EXPECT_EQ(built.arenas[0]->device, p.devices[0].get());
  EXPECT_EQ(built.arenas[1]->device, p.devices[1].get());
  EXPECT_GT(expect_memory_planned(p, built), 0u) << "nothing planned on device 1";

  // Steps: one per node, on the node's device, with its context; copies from the source's.
  ASSERT_EQ(built.steps.size(), p.graph.nodes.size());
  size_t copies = 0;
  for (size_t i = 0; i < built.steps.size(); ++i) {
    const PlanStep& s = built.steps[i];
    const ExecNode& n = p.graph.nodes[i];
    SCOPED_TRACE(node_context(n));
    EXPECT_EQ(s.node, &n);
    EXPECT_EQ(s.kind, n.kind);
    EXPECT_EQ(s.device, p.devices[n.device].get());
    EXPECT_EQ(s.in_values, n.inputs);
    EXPECT_EQ(s.out_values, n.outputs);
    EXPECT_EQ(s.call.context, p.devices[n.device]->context());
    if (n.kind == StepKind::kCopy) {
      ++copies;
      EXPECT_EQ(s.copy_from, p.devices[p.graph.values[n.inputs[0]].device].get());
      EXPECT_NE(s.copy_from, s.device);
      EXPECT_EQ(s.outputs[0].nbytes(), s.inputs[0].nbytes());
    } else {
      EXPECT_NE(s.kernel, nullptr);
    }
  }
  EXPECT_GT(copies, 0u);
  // Weights are read where they are; inputs keep the caller's shapes.
  for (size_t v = 0; v < p.graph.values.size(); ++v)
    if (p.graph.values[v].weight >= 0) {
      EXPECT_EQ(built.value_data[v], p.fixed_data[v]);
    }
  for (size_t k = 0; k < inputs.size(); ++k)
    EXPECT_TRUE(built.values[p.graph.inputs[k]].same_shape(inputs[k].view()));
  // The scratch of a step lies in its own device's arena at its planned offset.
  for (const PlanStep& s : built.steps)
    if (s.scratch) {
      const Arena* a = arena_of(built, s.device);
      ASSERT_NE(a, nullptr);
      EXPECT_EQ(s.scratch, static_cast<uint8_t*>(a->data) + s.scratch_offset);
    }
}

TEST(Plan, EveryFamilyOnTwoDevicesKeepsBuffersApart) {
  for (const char* rel : {"gpt2/training", "bert/core", "llama/core", "vit/training",
                          "mobilenet_v3_small/core", "resnet_small/training"}) {
    SCOPED_TRACE(rel);
    Prepared p;
    ASSERT_NO_FATAL_FAILURE(
        prepare(rel, {cpu_device(), make_reference_device()}, alternating_policy(), &p));
    const auto inputs = testing::read_all(p.model.dir, testing::fixture_entry(rel)["inputs"]);
    auto plan = build(p, inputs);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_EQ((*plan)->arenas.size(), 2u);
    EXPECT_GT(expect_memory_planned(p, **plan), 0u);
  }
}

TEST(Plan, OneDeviceOneArena) {
  Prepared p;
  ASSERT_NO_FATAL_FAILURE(prepare("gpt2/core", {cpu_device(), make_reference_device()},
                                  PlacementPolicy{}, &p));  // every node on device 0
  const auto inputs = testing::read_all(p.model.dir, testing::fixture_entry("gpt2/core")["inputs"]);
  auto plan = build(p, inputs);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ((*plan)->arenas.size(), 1u);
  EXPECT_EQ((*plan)->arenas[0]->device, cpu_device().get());
  EXPECT_EQ(expect_memory_planned(p, **plan), 0u);
}

TEST(Plan, OnePlanPerBinding) {
  Prepared p;
  ASSERT_NO_FATAL_FAILURE(prepare("dynamic/gpt2_dyn/core", {cpu_device(), make_reference_device()},
                                  alternating_policy(), &p));
  const nlohmann::json f = testing::fixture_entry("gpt2_dyn/core", "dynamic/manifest.json");
  std::vector<size_t> bytes;
  std::vector<std::vector<int64_t>> symbols;
  for (const auto& c : f["cases"]) {
    const auto inputs = testing::read_all(p.model.dir, c["inputs"]);
    auto plan = build(p, inputs);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    expect_memory_planned(p, **plan);
    // Values take the binding's shapes: the first input's as given.
    EXPECT_TRUE((*plan)->values[p.graph.inputs[0]].same_shape(inputs[0].view()));
    bytes.push_back((*plan)->arena_bytes);
    symbols.push_back((*plan)->symbols);
  }
  ASSERT_EQ(bytes.size(), 4u);
  // Cases (1, 32), (4, 1), (2, 7), (3, 17): the largest token count needs the most memory.
  EXPECT_GT(bytes[0], bytes[1]);
  EXPECT_GT(bytes[3], bytes[2]);
  for (size_t a = 0; a < symbols.size(); ++a)
    for (size_t b = a + 1; b < symbols.size(); ++b) EXPECT_NE(symbols[a], symbols[b]);
}

TEST(Plan, CondWithoutItsBranchesIsAnError) {
  Prepared p;
  ASSERT_NO_FATAL_FAILURE(prepare("cond_true/training", {cpu_device()}, PlacementPolicy{}, &p));
  const auto cond = std::find_if(p.graph.nodes.begin(), p.graph.nodes.end(),
                                 [](const ExecNode& n) { return n.kind == StepKind::kCond; });
  ASSERT_NE(cond, p.graph.nodes.end());
  const auto inputs =
      testing::read_all(p.model.dir, testing::fixture_entry("cond_true/training")["inputs"]);
  auto plan = build(p, inputs);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kInternal);
  EXPECT_EQ(plan.status().message().rfind(node_context(*cond) + ": the method has no subgraph ", 0),
            0u)
      << plan.status().message();
}

}  // namespace
}  // namespace tir
