// Placement across devices (runtime/passes/placement.h). End to end: every model-family fixture
// (both IRs, and the dynamic-shape families with all their cases) runs with its nodes
// alternating between the optimized CPU device and the reference device; copies are
// inserted where values cross, and the results match torch and a single-device run. Unit
// level, on a lowered GPT-2: a node whose op the chosen device lacks falls back to device 0,
// copies sit exactly where a value crosses devices (one per value and device, shared by the
// readers there, made again after an in-place write), and only a device the host cannot
// address needs copies of inputs and weights in and of outputs back.
#include "runtime/passes/placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "runtime/passes/fusion.h"
#include "tests/runtime/exec_fixture.h"

namespace tir {
namespace {

namespace fb = ir::fb;
using testing::LoadedModel;
using testing::RestrictedDevice;

// ---------------------------------------------------------------- end to end

struct FamilyCase {
  std::string manifest;  // relative to the fixture root
  std::string dir;       // relative to the manifest's directory
};

void PrintTo(const FamilyCase& c, std::ostream* os) { *os << c.manifest << ": " << c.dir; }

/// Model families (tests/data/models_families.py, resnet_small from models_small.py) in the
/// main manifest, and their dynamic-shape exports (plus cond_dim: control flow) in dynamic/.
std::vector<FamilyCase> family_cases() {
  const std::set<std::string> families = {
      "gpt2", "llama", "bert", "vit", "mobilenet_v3_small", "resnet_small"};
  const std::set<std::string> dynamic = {"gpt2_dyn", "llama_dyn", "resnet_dyn", "cond_dim"};
  std::vector<FamilyCase> out;
  for (const auto& [manifest, models] :
       {std::pair{std::string("manifest.json"), families},
        std::pair{std::string("dynamic/manifest.json"), dynamic}}) {
    std::ifstream in(testing::fixture_dir() + "/" + manifest);
    const nlohmann::json m = nlohmann::json::parse(in);
    for (const auto& f : m["fixtures"])
      if (models.count(f["model"].get<std::string>()))
        out.push_back({manifest, f["dir"].get<std::string>()});
  }
  return out;
}

SessionOptions alternating_options() {
  SessionOptions o;
  o.devices = {cpu_device(), make_reference_device()};
  o.placement = [](const ExecNode&, size_t i) { return DeviceId(i % 2); };
  return o;
}

class SplitAcrossDevices : public ::testing::TestWithParam<FamilyCase> {};

TEST_P(SplitAcrossDevices, MatchesTorchAndOneDevice) {
  const FamilyCase& c = GetParam();
  const nlohmann::json f = testing::fixture_entry(c.dir, c.manifest);
  const std::string root =
      testing::fixture_dir() + "/" + c.manifest.substr(0, c.manifest.rfind('/') + 1);
  const std::string dir = root + c.dir;
  testing::TempDir tmp;
  ASSERT_TRUE(testing::import_fixture(dir, tmp));
  auto split = Session::open(tmp.file("m.tir"), tmp.file("m.bin"), alternating_options());
  ASSERT_TRUE(split.ok()) << split.status().message();
  auto plain = Session::open(tmp.file("m.tir"), tmp.file("m.bin"));
  ASSERT_TRUE(plain.ok()) << plain.status().message();

  // A static fixture has one set of inputs; a dynamic one lists cases of different shapes.
  const nlohmann::json cases = f.contains("cases") ? f["cases"] : nlohmann::json::array({f});
  ASSERT_FALSE(cases.empty());
  for (size_t k = 0; k < cases.size(); ++k) {
    SCOPED_TRACE("case " + std::to_string(k));
    const auto inputs = testing::read_all(dir, cases[k]["inputs"]);
    const auto expected = testing::read_all(dir, cases[k]["outputs"]);
    auto one = (*plain)->run(testing::views(inputs));
    ASSERT_TRUE(one.ok()) << one.status().message();
    const auto one_device = testing::copies(*one);
    auto two = (*split)->run(testing::views(inputs));
    ASSERT_TRUE(two.ok()) << two.status().message();
    ASSERT_EQ(two->size(), expected.size());
    ASSERT_EQ(one_device.size(), expected.size());
    for (size_t o = 0; o < expected.size(); ++o) {
      EXPECT_TRUE(testing::all_close((*two)[o], expected[o].view(), f["rtol"], f["atol"]))
          << "output " << o << " vs torch";
      // Reference and optimized kernels round differently, nothing more.
      EXPECT_TRUE(testing::all_close((*two)[o], one_device[o].view(), 1e-5, 1e-5))
          << "output " << o << " vs one device";
    }
  }
  EXPECT_EQ((*plain)->num_copies(), 0u);
  EXPECT_GT((*split)->arena_bytes(), 0u);
  // Both sessions fuse alike, so the split one ran exactly its copies more (kernel_calls
  // counts every step, those of cond branches included).
  const uint64_t extra = (*split)->kernel_calls() - (*plain)->kernel_calls();
  EXPECT_GT(extra, 0u) << "no copy ran";
  EXPECT_GT((*split)->num_copies(), 0u);  // cond branches' copies included
  if (f["model"] == "cond_dim") return;   // its copies run only in the branch taken
  EXPECT_EQ(extra, (*split)->num_copies() * cases.size());
}

// A device whose memory the host cannot address (as a GPU's): inputs and weights are copied
// to it, outputs back: a copy between such a device and the host runs on the former
// (Device::copy_to / copy_from).
TEST(SplitAcrossDevicesUnit, DeviceTheHostCannotAddressRunsEndToEnd) {
  const std::string rel = "gpt2/core";
  const nlohmann::json f = testing::fixture_entry(rel);
  SessionOptions o = alternating_options();
  o.devices[1] = std::make_shared<RestrictedDevice>(
      make_reference_device(), std::set<std::string, std::less<>>{}, /*host_accessible=*/false);
  testing::TempDir tmp;
  const std::string dir = testing::fixture_dir() + "/" + rel;
  const testing::FixtureRun run = testing::run_fixture_once(dir, f, tmp, o);
  ASSERT_NE(run.session, nullptr);
  const auto expected = testing::read_all(dir, f["outputs"]);
  ASSERT_EQ(run.outputs.size(), expected.size());
  for (size_t k = 0; k < expected.size(); ++k)
    EXPECT_TRUE(
        testing::all_close(run.outputs[k].view(), expected[k].view(), f["rtol"], f["atol"]));
  EXPECT_GT(run.session->num_copies(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Families, SplitAcrossDevices, ::testing::ValuesIn(family_cases()),
                         [](const auto& info) {
                           std::string n = info.param.dir;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

// ---------------------------------------------------------------- unit level

/// GPT-2 (core IR: no in-place ops, so no copy is ever invalidated) lowered, not yet placed.
class PlacementUnit : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(testing::load_model("gpt2/core", &model_));
    auto g = exec_graph_lower(*model_.view, *model_.forward);
    ASSERT_TRUE(g.ok()) << g.status().message();
    graph_ = std::move(g).value();
    for (const ExecNode& n : graph_.nodes) ASSERT_FALSE(op_is_inplace(n.op)) << n.op;
  }
  bool is_output(int32_t v) const {
    return std::find(graph_.outputs.begin(), graph_.outputs.end(), v) != graph_.outputs.end();
  }
  /// Alternating by index, but the nodes computing method outputs go to device 1.
  PlacementPolicy alternate_outputs_on_1() const {
    return [this](const ExecNode& n, size_t i) {
      for (int32_t v : n.outputs)
        if (is_output(v)) return DeviceId(1);
      return DeviceId(i % 2);
    };
  }

  LoadedModel model_;
  ExecGraph graph_;
};

TEST_F(PlacementUnit, OpTheDeviceLacksFallsBackToDevice0) {
  const std::vector<std::shared_ptr<Device>> devices = {
      cpu_device(),
      std::make_shared<RestrictedDevice>(make_reference_device(),
                                         std::set<std::string, std::less<>>{"aten::addmm"})};
  // 7 is no device: the primary one runs such nodes.
  ASSERT_TRUE(place_nodes(graph_, devices, [](const ExecNode&, size_t i) {
                return DeviceId(i % 3 == 2 ? 7 : i % 3);
              }).ok());
  size_t fell_back = 0, on_1 = 0;
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    const ExecNode& n = graph_.nodes[i];
    SCOPED_TRACE(node_context(n));
    ASSERT_EQ(n.kind, StepKind::kKernel);
    const DeviceId want = i % 3 == 1 && n.op != "aten::addmm" ? 1 : 0;
    EXPECT_EQ(n.device, want);
    EXPECT_EQ(n.kernel, devices[want]->find_kernel(n.op, exec_node_key_dtype(graph_, n)));
    ASSERT_NE(n.kernel, nullptr);
    for (int32_t v : n.outputs) EXPECT_EQ(graph_.values[v].device, want);
    fell_back += i % 3 == 1 && n.op == "aten::addmm";
    on_1 += want == 1;
  }
  EXPECT_GT(fell_back, 0u) << "no addmm was asked to run on device 1";
  EXPECT_GT(on_1, 0u);
  // Device 1 runs reference kernels, device 0 optimized ones where it has them.
  for (const ExecNode& n : graph_.nodes)
    if (n.device == 1) {
      EXPECT_EQ(n.kernel->impl, kernels::KernelImpl::kReference) << n.op;
    }
}

TEST_F(PlacementUnit, OpNoDeviceRunsIsAnErrorNamingNodeAndOp) {
  const std::vector<std::shared_ptr<Device>> devices = {std::make_shared<RestrictedDevice>(
      cpu_device(), std::set<std::string, std::less<>>{"aten::addmm"})};
  const Status s = place_nodes(graph_, devices, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  const auto first = std::find_if(graph_.nodes.begin(), graph_.nodes.end(),
                                  [](const ExecNode& n) { return n.op == "aten::addmm"; });
  ASSERT_NE(first, graph_.nodes.end());
  // The device, not the registry, says it has no addmm for any dtype.
  EXPECT_EQ(s.message(), "node '" + std::string(first->name) + "': op aten::addmm has no kernel");
}

TEST_F(PlacementUnit, CopiesExactlyWhereValuesCrossDevices) {
  const std::vector<std::shared_ptr<Device>> devices = {cpu_device(), make_reference_device()};
  ASSERT_TRUE(place_nodes(graph_, devices, alternate_outputs_on_1()).ok());
  // What crosses: per activation, the devices other than its producer's that read it.
  const size_t original_values = graph_.values.size();
  std::map<std::pair<int32_t, DeviceId>, std::vector<size_t>> crossing;  // -> readers
  for (size_t i = 0; i < graph_.nodes.size(); ++i)
    for (int32_t v : graph_.nodes[i].inputs)
      if (graph_.values[v].source == fb::ValueSource::Activation &&
          graph_.values[v].device != graph_.nodes[i].device)
        crossing[{v, graph_.nodes[i].device}].push_back(i);
  ASSERT_FALSE(crossing.empty());
  const bool shared = std::any_of(crossing.begin(), crossing.end(),
                                  [](const auto& e) { return e.second.size() > 1; });
  ASSERT_TRUE(shared) << "no value has two readers on the other device";
  const std::vector<int32_t> outputs = graph_.outputs;
  const size_t original_nodes = graph_.nodes.size();

  EXPECT_EQ(insert_copies(graph_, devices), crossing.size());
  ASSERT_EQ(graph_.nodes.size(), original_nodes + crossing.size());
  // Both devices are host memory: outputs computed on device 1 are read where they are.
  EXPECT_EQ(graph_.outputs, outputs);
  for (int32_t v : graph_.outputs) EXPECT_EQ(graph_.values[v].device, 1);

  std::map<std::pair<int32_t, DeviceId>, int32_t> copy_of;  // (value, device) -> copy
  std::vector<int32_t> defined(graph_.values.size(), 0);    // computed before the current node
  for (int32_t v = 0; v < int32_t(original_values); ++v)
    defined[v] = graph_.values[v].source != fb::ValueSource::Activation;
  size_t next_original = 0;
  for (const ExecNode& n : graph_.nodes) {
    SCOPED_TRACE(node_context(n));
    for (int32_t v : n.inputs)
      EXPECT_TRUE(defined[v]) << "reads value " << v << " before it is made";
    if (n.kind == StepKind::kCopy) {
      ASSERT_EQ(n.inputs.size(), 1u);
      ASSERT_EQ(n.outputs.size(), 1u);
      const int32_t from = n.inputs[0], to = n.outputs[0];
      EXPECT_EQ(n.op, "tir::copy");
      EXPECT_EQ(n.index, -1);
      EXPECT_LT(from, int32_t(original_values));
      EXPECT_GE(to, int32_t(original_values));
      EXPECT_NE(graph_.values[from].device, n.device);
      EXPECT_EQ(graph_.values[to].device, n.device);
      EXPECT_EQ(graph_.values[to].ir, graph_.values[from].ir);
      EXPECT_EQ(graph_.values[to].dtype, graph_.values[from].dtype);
      EXPECT_EQ(graph_.values[to].source, fb::ValueSource::Activation);
      EXPECT_TRUE(crossing.count({from, n.device}));
      EXPECT_TRUE(copy_of.emplace(std::pair{from, n.device}, to).second) << "copied twice";
    } else {
      EXPECT_EQ(n.index, int32_t(next_original++)) << "nodes reordered";
      for (int32_t v : n.inputs) {
        const ExecValue& val = graph_.values[v];
        if (val.source != fb::ValueSource::Activation) continue;  // host memory, read in place
        EXPECT_EQ(val.device, n.device) << "value " << v << " read across devices";
      }
    }
    for (int32_t v : n.outputs) defined[v] = 1;
  }
  EXPECT_EQ(next_original, original_nodes);
  EXPECT_EQ(copy_of.size(), crossing.size());
  // Every reader on the other device reads the one copy made for it.
  for (const auto& [key, readers] : crossing)
    for (size_t r : readers) {
      const auto it = std::find_if(graph_.nodes.begin(), graph_.nodes.end(),
                                   [&](const ExecNode& n) { return n.index == int32_t(r); });
      ASSERT_NE(it, graph_.nodes.end());
      EXPECT_NE(std::find(it->inputs.begin(), it->inputs.end(), copy_of[key]), it->inputs.end())
          << node_context(*it) << " does not read the copy of value " << key.first;
    }
}

// A fused producer writes its group's last value, so that value lives on the producer's
// device, not on the one placement gave the group's last node.
TEST_F(PlacementUnit, FusedNodeWritesOnItsOwnDevice) {
  const std::vector<std::shared_ptr<Device>> devices = {cpu_device(), make_reference_device()};
  ASSERT_TRUE(
      place_nodes(graph_, devices, [](const ExecNode&, size_t i) { return DeviceId(i % 2); }).ok());
  ASSERT_GT(fuse_graph(graph_), 0u);
  exec_graph_remove_dead(graph_);
  for (const ExecNode& n : graph_.nodes)
    for (int32_t v : n.outputs)
      EXPECT_EQ(graph_.values[v].device, n.device) << node_context(n) << " label " << n.label;
}

/// A graph built by hand from (op, value read) pairs: value 0 is the input, node k reads its
/// value as its only argument and writes value k + 1; every value it writes is an output.
struct HandGraph {
  flatbuffers::FlatBufferBuilder fbb;
  const fb::Method* method = nullptr;

  explicit HandGraph(const std::vector<std::pair<const char*, int32_t>>& nodes) {
    std::vector<flatbuffers::Offset<fb::Value>> values;
    for (size_t k = 0; k <= nodes.size(); ++k) {
      const std::string name = std::to_string(k);
      values.push_back(fb::CreateValueDirect(
          fbb, name.c_str(), fb::ValueKind::Tensor, fb::DType::Float32, nullptr,
          k == 0 ? fb::ValueSource::UserInput : fb::ValueSource::Activation));
    }
    std::vector<flatbuffers::Offset<fb::Node>> made;
    std::vector<int32_t> outputs;
    for (size_t k = 0; k < nodes.size(); ++k) {
      const std::vector<flatbuffers::Offset<fb::Argument>> args = {
          fb::CreateArgument(fbb, fbb.CreateString("self"), fb::ArgValue::TensorArg,
                             fb::CreateTensorArg(fbb, nodes[k].second).Union())};
      const std::vector<int32_t> outs = {int32_t(k + 1)};
      const std::string name = "n" + std::to_string(k);
      made.push_back(fb::CreateNodeDirect(fbb, name.c_str(), nodes[k].first, &args, &outs));
      outputs.push_back(int32_t(k + 1));
    }
    const std::vector<int32_t> inputs = {0};
    fbb.Finish(fb::CreateMethodDirect(fbb, "forward", &values, &made, &inputs, &outputs));
    method = flatbuffers::GetRoot<fb::Method>(fbb.GetBufferPointer());
  }
};

TEST_F(PlacementUnit, InPlaceWriteMakesLaterReadersCopyAgain) {
  // v1 = relu(v0) on 0; neg(v1) on 1; relu_(v1) on 0 writes v1; neg(v1), neg(v1) on 1.
  HandGraph hand({{"aten::relu", 0},
                  {"aten::neg", 1},
                  {"aten::relu_", 1},
                  {"aten::neg", 1},
                  {"aten::neg", 1}});
  auto lowered = exec_graph_lower(*model_.view, *hand.method);
  ASSERT_TRUE(lowered.ok()) << lowered.status().message();
  ExecGraph& g = *lowered;
  const std::vector<std::shared_ptr<Device>> devices = {cpu_device(), make_reference_device()};
  const std::vector<DeviceId> where = {0, 1, 0, 1, 1};
  ASSERT_TRUE(place_nodes(g, devices, [&](const ExecNode&, size_t i) { return where[i]; }).ok());
  EXPECT_EQ(insert_copies(g, devices), 2u);
  // Readers by original node: n1 reads the first copy, n3 and n4 share the second.
  std::map<int32_t, int32_t> read;  // node index -> the value it reads
  std::vector<int32_t> copies;
  for (const ExecNode& n : g.nodes) {
    if (n.kind == StepKind::kCopy) {
      EXPECT_EQ(n.inputs, std::vector<int32_t>{1});
      EXPECT_EQ(n.device, 1);
      copies.push_back(n.outputs[0]);
    } else {
      read[n.index] = n.inputs[0];
    }
  }
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(read[0], 0);  // the user input, read in place
  EXPECT_EQ(read[1], copies[0]);
  EXPECT_EQ(read[2], 1);
  EXPECT_EQ(read[3], copies[1]);
  EXPECT_EQ(read[4], copies[1]);
  // The second copy is made after the in-place write.
  const auto at = [&](auto pred) {
    return std::find_if(g.nodes.begin(), g.nodes.end(), pred) - g.nodes.begin();
  };
  EXPECT_GT(at([&](const ExecNode& n) { return n.outputs[0] == copies[1]; }),
            at([](const ExecNode& n) { return n.index == 2; }));
}

TEST_F(PlacementUnit, OneDeviceNeedsNoCopies) {
  const std::vector<std::shared_ptr<Device>> devices = {cpu_device()};
  ASSERT_TRUE(place_nodes(graph_, devices, [](const ExecNode&, size_t i) {
                return DeviceId(i % 2);  // device 1 does not exist: all on device 0
              }).ok());
  for (const ExecNode& n : graph_.nodes) EXPECT_EQ(n.device, 0);
  const size_t nodes = graph_.nodes.size();
  EXPECT_EQ(insert_copies(graph_, devices), 0u);
  EXPECT_EQ(graph_.nodes.size(), nodes);
}

TEST_F(PlacementUnit, DeviceTheHostCannotAddressGetsInputsInAndOutputsBack) {
  const std::vector<std::shared_ptr<Device>> devices = {
      cpu_device(), std::make_shared<RestrictedDevice>(make_reference_device(),
                                                       std::set<std::string, std::less<>>{},
                                                       /*host_accessible=*/false)};
  ASSERT_TRUE(place_nodes(graph_, devices, alternate_outputs_on_1()).ok());
  const size_t original_values = graph_.values.size();
  // Host data (user inputs, weights, constants) read on device 1 and activations crossing.
  std::set<std::pair<int32_t, DeviceId>> want;
  for (const ExecNode& n : graph_.nodes)
    for (int32_t v : n.inputs) {
      const ExecValue& val = graph_.values[v];
      if (!val.is_tensor) continue;
      const DeviceId lives = val.source == fb::ValueSource::Activation ? val.device : 0;
      if (lives != n.device) want.insert({v, n.device});
    }
  const bool host_data_in = std::any_of(want.begin(), want.end(), [&](const auto& e) {
    return graph_.values[e.first].source == fb::ValueSource::Weight;
  });
  EXPECT_TRUE(host_data_in);
  const std::vector<int32_t> outputs = graph_.outputs;
  ASSERT_FALSE(outputs.empty());

  EXPECT_EQ(insert_copies(graph_, devices), want.size() + outputs.size());
  // Each output was computed on device 1 and is copied back to device 0 at the end.
  ASSERT_EQ(graph_.outputs.size(), outputs.size());
  const size_t n = graph_.nodes.size();
  for (size_t k = 0; k < outputs.size(); ++k) {
    const ExecNode& back = graph_.nodes[n - outputs.size() + k];
    EXPECT_EQ(back.kind, StepKind::kCopy);
    EXPECT_EQ(back.device, 0);
    EXPECT_EQ(back.inputs, std::vector<int32_t>{outputs[k]});
    EXPECT_EQ(back.outputs, std::vector<int32_t>{graph_.outputs[k]});
    EXPECT_GE(graph_.outputs[k], int32_t(original_values));
    EXPECT_EQ(graph_.values[graph_.outputs[k]].device, 0);
  }
  // Nothing on device 1 reads memory of another device.
  for (const ExecNode& node : graph_.nodes) {
    if (node.kind == StepKind::kCopy || node.device != 1) continue;
    for (int32_t v : node.inputs)
      if (graph_.values[v].is_tensor) {
        EXPECT_EQ(graph_.values[v].source, fb::ValueSource::Activation) << node_context(node);
        EXPECT_EQ(graph_.values[v].device, 1) << node_context(node);
      }
  }
}

}  // namespace
}  // namespace tir
