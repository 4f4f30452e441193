// Lowering into the execution graph (runtime/passes/exec_graph.h) on real torch exports: one
// ExecNode per FlatBuffer node, in order, with every argument decoded (tensor references are slots
// of ExecNode::inputs holding the right values, symbolic ints keep their expressions), and the
// method's values, inputs, outputs and buffer mutations carried over; a cond node names its
// branches; the weights a method writes are found. Also exec_graph_remove_dead, op_is_inplace,
// the graph helpers, and the errors of a method the runtime cannot lower.
#include "runtime/passes/exec_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <set>

#include "importer/import_pt2.h"
#include "tests/runtime/exec_fixture.h"

namespace tir {
namespace {

namespace fb = ir::fb;
using kernels::ArgKind;
using testing::LoadedModel;

/// Compares the decoded argument `a` of a node whose inputs are `inputs` with `want`.
void expect_arg(const fb::Argument& want, const ExecArg& a, const std::vector<int32_t>& inputs) {
  SCOPED_TRACE("argument '" + std::string(ir::str(want.name())) + "'");
  const bool symbolic =
      want.value_type() == fb::ArgValue::SymIntArg || want.value_type() == fb::ArgValue::SymIntsArg;
  EXPECT_EQ(a.symbolic(), symbolic);
  switch (want.value_type()) {
    case fb::ArgValue::IntArg:
      EXPECT_EQ(a.kind, ArgKind::kInt);
      EXPECT_EQ(a.i, want.value_as_IntArg()->value());
      break;
    case fb::ArgValue::FloatArg:
      EXPECT_EQ(a.kind, ArgKind::kFloat);
      // bit for bit: a NaN argument (torch.where(c, nan, x)) decodes to the same NaN
      EXPECT_EQ(std::bit_cast<uint64_t>(a.f),
                std::bit_cast<uint64_t>(want.value_as_FloatArg()->value()));
      break;
    case fb::ArgValue::BoolArg:
      EXPECT_EQ(a.kind, ArgKind::kBool);
      EXPECT_EQ(a.i, want.value_as_BoolArg()->value() ? 1 : 0);
      break;
    case fb::ArgValue::IntsArg: {
      EXPECT_EQ(a.kind, ArgKind::kInts);
      const auto* v = want.value_as_IntsArg()->values();
      EXPECT_EQ(a.ints, v ? std::vector<int64_t>(v->begin(), v->end()) : std::vector<int64_t>{});
      break;
    }
    case fb::ArgValue::FloatsArg: {
      EXPECT_EQ(a.kind, ArgKind::kFloats);
      const auto* v = want.value_as_FloatsArg()->values();
      EXPECT_EQ(a.floats, v ? std::vector<double>(v->begin(), v->end()) : std::vector<double>{});
      break;
    }
    case fb::ArgValue::BoolsArg: {
      EXPECT_EQ(a.kind, ArgKind::kBools);
      std::vector<int64_t> bools;
      if (const auto* v = want.value_as_BoolsArg()->values())
        for (auto b : *v) bools.push_back(b ? 1 : 0);
      EXPECT_EQ(a.ints, bools);
      break;
    }
    case fb::ArgValue::StringArg:
      EXPECT_EQ(a.kind, ArgKind::kString);
      EXPECT_EQ(a.s, ir::str(want.value_as_StringArg()->value()));
      break;
    case fb::ArgValue::TensorArg:
      EXPECT_EQ(a.kind, ArgKind::kTensor);
      ASSERT_GE(a.i, 0);
      ASSERT_LT(size_t(a.i), inputs.size());
      EXPECT_EQ(inputs[a.i], want.value_as_TensorArg()->value());
      break;
    case fb::ArgValue::TensorsArg: {
      EXPECT_EQ(a.kind, ArgKind::kTensors);
      const auto* v = want.value_as_TensorsArg()->values();
      ASSERT_EQ(a.ints.size(), v ? v->size() : 0u);
      for (size_t k = 0; k < a.ints.size(); ++k) {
        if (v->Get(k) < 0) {
          EXPECT_EQ(a.ints[k], -1);  // None
          continue;
        }
        ASSERT_GE(a.ints[k], 0);
        ASSERT_LT(size_t(a.ints[k]), inputs.size());
        EXPECT_EQ(inputs[a.ints[k]], v->Get(k));
      }
      break;
    }
    case fb::ArgValue::DTypeArg:
      EXPECT_EQ(a.kind, ArgKind::kDType);
      EXPECT_EQ(a.i, int64_t(want.value_as_DTypeArg()->value()));
      break;
    case fb::ArgValue::SymIntArg:
      EXPECT_EQ(a.kind, ArgKind::kInt);
      EXPECT_EQ(a.sym, want.value_as_SymIntArg()->value());
      EXPECT_NE(a.sym, nullptr);
      break;
    case fb::ArgValue::SymIntsArg: {
      EXPECT_EQ(a.kind, ArgKind::kInts);
      const auto* v = want.value_as_SymIntsArg()->values();
      ASSERT_NE(v, nullptr);
      ASSERT_EQ(a.syms.size(), v->size());
      for (size_t k = 0; k < v->size(); ++k) EXPECT_EQ(a.syms[k], v->Get(k));
      break;
    }
    case fb::ArgValue::MemoryFormatArg:
      EXPECT_EQ(a.kind, ArgKind::kMemoryFormat);
      EXPECT_EQ(a.i, want.value_as_MemoryFormatArg()->value());
      break;
    case fb::ArgValue::LayoutArg:
      EXPECT_EQ(a.kind, ArgKind::kLayout);
      EXPECT_EQ(a.i, want.value_as_LayoutArg()->value());
      break;
    case fb::ArgValue::DeviceArg:
      EXPECT_EQ(a.kind, ArgKind::kDevice);
      EXPECT_EQ(a.s, ir::str(want.value_as_DeviceArg()->type()));
      EXPECT_EQ(a.i, want.value_as_DeviceArg()->index());
      break;
    case fb::ArgValue::GraphArg:
      EXPECT_EQ(a.kind, ArgKind::kNone);
      EXPECT_EQ(a.i, want.value_as_GraphArg()->index());
      break;
    default:
      EXPECT_EQ(a.kind, ArgKind::kNone);
      break;
  }
}

/// `g` is `method` lowered: values, nodes (in order, arguments decoded), inputs, outputs,
/// mutations. Adds the argument kinds seen to `kinds`.
void expect_lowered(const fb::Method& method, const ExecGraph& g, std::set<fb::ArgValue>* kinds) {
  EXPECT_EQ(g.method, &method);
  ASSERT_EQ(g.values.size(), method.values() ? method.values()->size() : 0u);
  for (size_t v = 0; v < g.values.size(); ++v) {
    const fb::Value* want = method.values()->Get(v);
    const ExecValue& val = g.values[v];
    SCOPED_TRACE("value " + std::string(ir::str(want->name())));
    EXPECT_EQ(val.ir, want);
    EXPECT_EQ(val.source, want->source());
    EXPECT_EQ(val.dtype, ir::to_dtype(want->dtype()));
    EXPECT_EQ(val.is_tensor, want->kind() == fb::ValueKind::Tensor);
    EXPECT_EQ(val.weight, want->source() == fb::ValueSource::Weight ? want->index() : -1);
    EXPECT_EQ(val.constant, want->source() == fb::ValueSource::Constant ? want->index() : -1);
    EXPECT_EQ(val.device, 0);
    EXPECT_FALSE(val.channels_last);
  }
  ASSERT_EQ(g.nodes.size(), method.nodes() ? method.nodes()->size() : 0u);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const fb::Node& want = *method.nodes()->Get(i);
    const ExecNode& n = g.nodes[i];
    SCOPED_TRACE(node_context(n));
    EXPECT_EQ(n.op, ir::str(want.op()));
    EXPECT_EQ(n.name, ir::str(want.name()));
    EXPECT_EQ(n.module_path, ir::str(want.module_path()));
    EXPECT_EQ(n.index, int32_t(i));
    EXPECT_EQ(n.kind, n.op == ir::kCondOp ? StepKind::kCond : StepKind::kKernel);
    EXPECT_EQ(n.device, 0);
    EXPECT_EQ(n.kernel, nullptr);
    EXPECT_FALSE(n.fused || n.dead);
    // Inputs: the tensors the arguments reference, in argument order (Nones skipped).
    std::vector<int32_t> tensors;
    ir::for_each_tensor_arg(want, [&](int32_t v, size_t) { tensors.push_back(v); });
    EXPECT_EQ(n.inputs, tensors);
    const size_t nargs = want.args() ? want.args()->size() : 0;
    // An op whose output size comes from its input's values gets that size as one trailing
    // int argument (append_bound_size, exec_graph.cc).
    const size_t bound = data_dependent_dim(g, n).dim >= 0 && n.args.size() == nargs + 1 ? 1 : 0;
    if (bound) EXPECT_EQ(n.args.back().kind, ArgKind::kInt);
    ASSERT_EQ(n.args.size(), nargs + bound);
    for (size_t k = 0; k < nargs; ++k) {
      kinds->insert(want.args()->Get(k)->value_type());
      expect_arg(*want.args()->Get(k), n.args[k], n.inputs);
    }
    const std::vector<int32_t> outs =
        want.outputs() ? std::vector<int32_t>(want.outputs()->begin(), want.outputs()->end())
                       : std::vector<int32_t>{};
    EXPECT_EQ(n.outputs, outs);
    if (n.kind == StepKind::kCond) {
      EXPECT_EQ(n.branches[0], want.args()->Get(1)->value_as_GraphArg()->index());
      EXPECT_EQ(n.branches[1], want.args()->Get(2)->value_as_GraphArg()->index());
    }
  }
  const auto ints = [](const flatbuffers::Vector<int32_t>* v) {
    return v ? std::vector<int32_t>(v->begin(), v->end()) : std::vector<int32_t>{};
  };
  EXPECT_EQ(g.inputs, ints(method.inputs()));
  EXPECT_EQ(g.outputs, ints(method.outputs()));
  ASSERT_EQ(g.mutations.size(), method.mutations() ? method.mutations()->size() : 0u);
  for (size_t k = 0; k < g.mutations.size(); ++k) {
    EXPECT_EQ(g.mutations[k].first, method.mutations()->Get(k)->value());
    EXPECT_EQ(g.mutations[k].second, ir::str(method.mutations()->Get(k)->buffer()));
  }
}

/// Lowers `method` and its subgraphs, checking each.
void lower_and_check(const ir::ModelView& model, const fb::Method& method,
                     std::set<fb::ArgValue>* kinds) {
  auto g = exec_graph_lower(model, method);
  ASSERT_TRUE(g.ok()) << g.status().message();
  expect_lowered(method, *g, kinds);
  if (method.subgraphs())
    for (const fb::Method* sub : *method.subgraphs()) lower_and_check(model, *sub, kinds);
}

/// Every fixture that runs (legacy archives included) and every dynamic-shape one.
std::vector<std::string> all_fixture_dirs() {
  std::vector<std::string> out;
  for (const auto& f : testing::runnable_fixtures()) out.push_back(f["dir"].get<std::string>());
  std::ifstream in(testing::fixture_dir() + "/dynamic/manifest.json");
  const nlohmann::json dynamic = nlohmann::json::parse(in);
  for (const auto& f : dynamic["fixtures"]) out.push_back("dynamic/" + f["dir"].get<std::string>());
  return out;
}

class LowerFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(LowerFixture, OneExecNodePerNodeWithArgumentsDecoded) {
  LoadedModel m;
  ASSERT_NO_FATAL_FAILURE(testing::load_model(GetParam(), &m));
  std::set<fb::ArgValue> kinds;
  lower_and_check(*m.view, *m.forward, &kinds);
  EXPECT_TRUE(kinds.count(fb::ArgValue::TensorArg));
}

INSTANTIATE_TEST_SUITE_P(AllFixtures, LowerFixture, ::testing::ValuesIn(all_fixture_dirs()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(ExecGraph, Gpt2TrainingDecodesEveryArgumentKindItUses) {
  LoadedModel m;
  ASSERT_NO_FATAL_FAILURE(testing::load_model("gpt2/training", &m));
  std::set<fb::ArgValue> kinds;
  ASSERT_NO_FATAL_FAILURE(lower_and_check(*m.view, *m.forward, &kinds));
  for (fb::ArgValue k :
       {fb::ArgValue::NoneArg, fb::ArgValue::IntArg, fb::ArgValue::FloatArg, fb::ArgValue::BoolArg,
        fb::ArgValue::IntsArg, fb::ArgValue::TensorArg, fb::ArgValue::TensorsArg,
        fb::ArgValue::DTypeArg, fb::ArgValue::DeviceArg, fb::ArgValue::LayoutArg})
    EXPECT_TRUE(kinds.count(k)) << fb::EnumNameArgValue(k);

  // The first layer norm, read by hand: layer_norm(x, [32], ln_1.weight, ln_1.bias, 1e-5, ...).
  auto g = exec_graph_lower(*m.view, *m.forward);
  ASSERT_TRUE(g.ok());
  const auto ln = std::find_if(g->nodes.begin(), g->nodes.end(),
                               [](const ExecNode& n) { return n.op == "aten::layer_norm"; });
  ASSERT_NE(ln, g->nodes.end());
  ASSERT_GE(ln->args.size(), 5u);
  EXPECT_EQ(ln->args[1].kind, ArgKind::kInts);
  ASSERT_EQ(ln->args[1].ints.size(), 1u);
  const int64_t hidden = ln->args[1].ints[0];
  EXPECT_GT(hidden, 0);
  EXPECT_EQ(ln->args[4].kind, ArgKind::kFloat);
  EXPECT_DOUBLE_EQ(ln->args[4].f, 1e-5);  // GPT2Config.layer_norm_epsilon
  const fb::Model& model = m.view->model();
  for (size_t k : {2u, 3u}) {
    ASSERT_EQ(ln->args[k].kind, ArgKind::kTensor);
    const ExecValue& w = g->values[ln->inputs[ln->args[k].i]];
    EXPECT_EQ(w.source, fb::ValueSource::Weight);
    ASSERT_GE(w.weight, 0);
    const std::string name(ir::str(model.weights()->Get(w.weight)->name()));
    EXPECT_EQ(name,
              k == 2 ? "model.transformer.h.0.ln_1.weight" : "model.transformer.h.0.ln_1.bias");
    EXPECT_EQ(w.ir->sizes()->Get(0)->value(), hidden);
  }
  // Its input is an activation computed earlier (the embeddings' sum, through dropout).
  const int32_t x = ln->inputs[ln->args[0].i];
  EXPECT_EQ(g->values[x].source, fb::ValueSource::Activation);
  EXPECT_TRUE(std::any_of(g->nodes.begin(), ln, [&](const ExecNode& n) {
    return std::find(n.outputs.begin(), n.outputs.end(), x) != n.outputs.end();
  }));
}

TEST(ExecGraph, StringArgumentViewsTheModelBytes) {
  LoadedModel m;
  ASSERT_NO_FATAL_FAILURE(testing::load_model("bert/training", &m));
  auto g = exec_graph_lower(*m.view, *m.forward);
  ASSERT_TRUE(g.ok());
  size_t gelus = 0;
  for (const ExecNode& n : g->nodes) {
    if (n.op != "aten::gelu") continue;
    ++gelus;
    ASSERT_EQ(n.args.size(), 2u);
    EXPECT_EQ(n.args[1].kind, ArgKind::kString);
    EXPECT_EQ(n.args[1].s, "none");  // BERT's exact (erf) GELU
    const auto* bytes = m.bytes->bytes().data();
    EXPECT_GE(reinterpret_cast<const uint8_t*>(n.args[1].s.data()), bytes);
    EXPECT_LT(reinterpret_cast<const uint8_t*>(n.args[1].s.data()),
              bytes + m.bytes->bytes().size());
  }
  EXPECT_EQ(gelus, 2u);
}

TEST(ExecGraph, SymbolicArgumentsKeepTheirExpressions) {
  for (const char* dir : {"dynamic/gpt2_dyn/training", "dynamic/gpt2_dyn/core"}) {
    SCOPED_TRACE(dir);
    LoadedModel m;
    ASSERT_NO_FATAL_FAILURE(testing::load_model(dir, &m));
    auto g = exec_graph_lower(*m.view, *m.forward);
    ASSERT_TRUE(g.ok()) << g.status().message();
    size_t sym = 0, syms = 0, named = 0;
    for (size_t i = 0; i < g->nodes.size(); ++i)
      for (size_t k = 0; k < g->nodes[i].args.size(); ++k) {
        const ExecArg& a = g->nodes[i].args[k];
        const fb::Argument& want = *m.forward->nodes()->Get(i)->args()->Get(k);
        if (want.value_type() == fb::ArgValue::SymIntArg) {
          ++sym;
          EXPECT_TRUE(a.symbolic());
          EXPECT_EQ(a.sym, want.value_as_SymIntArg()->value());
        } else if (want.value_type() == fb::ArgValue::SymIntsArg) {
          ++syms;
          EXPECT_TRUE(a.symbolic());
          for (const fb::SymExpr* e : a.syms) {
            ASSERT_NE(e, nullptr);
            // A symbol of the method appears in at least one entry (others are constants).
            if (e->terms())
              for (const fb::ExprTerm* t : *e->terms()) named += t->op() == fb::ExprOp::Sym;
          }
        } else {
          EXPECT_FALSE(a.symbolic());
        }
      }
    EXPECT_GT(sym + syms, 0u) << "no symbolic argument";
    EXPECT_GT(named, 0u) << "no argument depends on a symbol";
  }
}

TEST(ExecGraph, CondNodeNamesItsBranches) {
  LoadedModel m;
  ASSERT_NO_FATAL_FAILURE(testing::load_model("cond_true/training", &m));
  auto g = exec_graph_lower(*m.view, *m.forward);
  ASSERT_TRUE(g.ok()) << g.status().message();
  size_t conds = 0;
  for (const ExecNode& n : g->nodes) {
    if (n.kind != StepKind::kCond) continue;
    ++conds;
    EXPECT_EQ(n.op, ir::kCondOp);
    ASSERT_EQ(n.args.size(), 4u);
    const int32_t subgraphs = int32_t(m.forward->subgraphs()->size());
    for (size_t b = 0; b < 2; ++b) {
      EXPECT_EQ(n.branches[b], n.args[1 + b].i);
      EXPECT_GE(n.branches[b], 0);
      EXPECT_LT(n.branches[b], subgraphs);
    }
    EXPECT_NE(n.branches[0], n.branches[1]);
    EXPECT_EQ(n.args[3].kind, ArgKind::kTensors);
  }
  EXPECT_EQ(conds, 1u);
}

TEST(ExecGraph, FindsTheBuffersAMethodWrites) {
  // The KV cache's decode step writes its cache buffers (tests/data/gen_kv_cache.py).
  testing::TempDir tmp;
  importer::ImportOptions o;
  const std::string d = testing::fixture_dir() + "/kv_cache/core/";
  o.methods = {{"prefill", d + "prefill.pt2"}, {"decode", d + "decode.pt2"}};
  o.model_path = tmp.file("m.tir");
  o.weights_path = tmp.file("m.bin");
  auto imported = importer::import_pt2(o);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  auto bytes = data_source_mmap(o.model_path);
  ASSERT_TRUE(bytes.ok());
  auto view = ir::ModelView::open((*bytes)->bytes(), o.model_path);
  ASSERT_TRUE(view.ok());
  const fb::Method* decode = view->method("decode");
  ASSERT_NE(decode, nullptr);
  ASSERT_NE(decode->mutations(), nullptr);
  ASSERT_GT(decode->mutations()->size(), 0u);
  auto g = exec_graph_lower(*view, *decode);
  ASSERT_TRUE(g.ok()) << g.status().message();
  std::set<fb::ArgValue> kinds;
  expect_lowered(*decode, *g, &kinds);
  // Each mutated buffer is the state of exactly one weight value, marked mutated.
  std::set<std::string_view> buffers, state;
  for (const auto& [v, name] : g->mutations) {
    buffers.insert(name);
    EXPECT_TRUE(g->pinned(v));
  }
  for (const auto& [v, name] : g->state_values) {
    EXPECT_TRUE(state.insert(name).second) << name << " twice";
    const ExecValue& val = g->values[v];
    EXPECT_EQ(val.source, fb::ValueSource::Weight);
    EXPECT_TRUE(val.mutated);
    EXPECT_EQ(ir::str(view->model().weights()->Get(val.weight)->name()), name);
  }
  for (std::string_view b : buffers) EXPECT_TRUE(state.count(b)) << b;
  // Weights it only reads are not state.
  size_t frozen = 0;
  for (const ExecValue& val : g->values)
    frozen += val.source == fb::ValueSource::Weight && !val.mutated;
  EXPECT_GT(frozen, 0u);
}

TEST(ExecGraph, RemoveDeadKeepsTheOrderOfTheOthers) {
  LoadedModel m;
  ASSERT_NO_FATAL_FAILURE(testing::load_model("gpt2/training", &m));
  auto g = exec_graph_lower(*m.view, *m.forward);
  ASSERT_TRUE(g.ok());
  ASSERT_GT(g->nodes.size(), 10u);
  std::vector<std::string_view> kept;
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    g->nodes[i].dead = i % 3 == 1 || i == 0;  // the first node too
    if (!g->nodes[i].dead) kept.push_back(g->nodes[i].name);
  }
  exec_graph_remove_dead(*g);
  ASSERT_EQ(g->nodes.size(), kept.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    EXPECT_EQ(g->nodes[i].name, kept[i]);
    EXPECT_FALSE(g->nodes[i].dead);
    if (i > 0) {
      EXPECT_LT(g->nodes[i - 1].index, g->nodes[i].index);
    }
  }
  exec_graph_remove_dead(*g);  // nothing dead left: unchanged
  EXPECT_EQ(g->nodes.size(), kept.size());
}

TEST(ExecGraph, OpIsInplace) {
  for (const char* op : {"aten::add_.Tensor", "aten::relu_", "aten::hardswish_", "aten::copy_",
                         "aten::index_put_", "aten::dropout_", "relu_"})
    EXPECT_TRUE(op_is_inplace(op)) << op;
  for (const char* op :
       {"aten::add.Tensor", "aten::relu", "aten::__and__.Tensor", "aten::__or__", "aten::_softmax",
        "aten::_to_copy", "aten::_", "aten::", "", "higher_order::cond", "tir::copy"})
    EXPECT_FALSE(op_is_inplace(op)) << op;
}

TEST(ExecGraph, HelpersOverALoweredGraph) {
  LoadedModel m;
  ASSERT_NO_FATAL_FAILURE(testing::load_model("gpt2/core", &m));
  auto lowered = exec_graph_lower(*m.view, *m.forward);
  ASSERT_TRUE(lowered.ok());
  ExecGraph& g = *lowered;
  // The key dtype: the first tensor input's (embedding reads the int64 ids second, its
  // float32 table first).
  for (const ExecNode& n : g.nodes) {
    if (n.op == "aten::embedding") {
      EXPECT_EQ(exec_node_key_dtype(g, n), DType::kFloat32);
    }
    if (n.op == "aten::full") {  // no tensor input: its output's dtype
      ASSERT_FALSE(n.outputs.empty());
      EXPECT_EQ(exec_node_key_dtype(g, n), g.values[n.outputs[0]].dtype);
    }
  }
  EXPECT_EQ(node_context(g.nodes[0]),
            "node '" + std::string(g.nodes[0].name) + "' (" + std::string(g.nodes[0].op) + ")");

  // add_value_like: same declared value, an activation on the given device.
  ASSERT_FALSE(g.outputs.empty());
  const int32_t out = g.outputs[0];
  int32_t weight = -1;
  for (size_t v = 0; v < g.values.size() && weight < 0; ++v)
    if (g.values[v].source == fb::ValueSource::Weight) weight = int32_t(v);
  ASSERT_GE(weight, 0);
  const size_t before = g.values.size();
  const int32_t copy = g.add_value_like(weight, 1);
  EXPECT_EQ(size_t(copy), before);
  EXPECT_EQ(g.values[copy].ir, g.values[weight].ir);
  EXPECT_EQ(g.values[copy].dtype, g.values[weight].dtype);
  EXPECT_EQ(g.values[copy].source, fb::ValueSource::Activation);
  EXPECT_EQ(g.values[copy].weight, -1);
  EXPECT_EQ(g.values[copy].device, 1);
  EXPECT_TRUE(same_declared_sizes(*g.values[copy].ir, *g.values[weight].ir));
  EXPECT_TRUE(g.pinned(out));
  EXPECT_FALSE(g.pinned(weight));
  EXPECT_FALSE(g.pinned(copy));
  // Declared sizes: a value matches itself, not a value of another shape.
  EXPECT_TRUE(same_declared_sizes(*g.values[out].ir, *g.values[out].ir));
  EXPECT_FALSE(same_declared_sizes(*g.values[out].ir, *g.values[weight].ir));
}

/// A one-node method built by hand (the importer never writes such nodes).
struct HandMethod {
  flatbuffers::FlatBufferBuilder fbb;
  const fb::Method* method = nullptr;

  /// `op` named "n" with `args` (built by `make_args`) and `outputs` outputs, each a value.
  template <typename MakeArgs>
  HandMethod(const char* op, int outputs, MakeArgs make_args) {
    std::vector<flatbuffers::Offset<fb::Value>> values;
    for (int k = 0; k <= outputs; ++k) {
      const std::string name = std::to_string(k);
      values.push_back(fb::CreateValueDirect(fbb, name.c_str()));
    }
    std::vector<int32_t> outs;
    for (int k = 1; k <= outputs; ++k) outs.push_back(k);
    const std::vector<flatbuffers::Offset<fb::Argument>> args = make_args(fbb);
    const std::vector<flatbuffers::Offset<fb::Node>> nodes = {
        fb::CreateNodeDirect(fbb, "n", op, &args, &outs)};
    const std::vector<int32_t> inputs = {0};
    fbb.Finish(fb::CreateMethodDirect(fbb, "forward", &values, &nodes, &inputs, &outs));
    method = flatbuffers::GetRoot<fb::Method>(fbb.GetBufferPointer());
  }
};

TEST(ExecGraph, LoweringErrorsNameTheNode) {
  LoadedModel m;  // any model: the hand-made methods read no weights
  ASSERT_NO_FATAL_FAILURE(testing::load_model("sincos/core", &m));
  const auto tensor_arg = [](flatbuffers::FlatBufferBuilder& fbb) {
    return fb::CreateArgument(fbb, fbb.CreateString("self"), fb::ArgValue::TensorArg,
                              fb::CreateTensorArg(fbb, 0).Union());
  };

  HandMethod split("aten::split.Tensor", kernels::kMaxOutputs + 1, [&](auto& fbb) {
    return std::vector<flatbuffers::Offset<fb::Argument>>{tensor_arg(fbb)};
  });
  auto g = exec_graph_lower(*m.view, *split.method);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(g.status().message(), "node 'n' (aten::split.Tensor): more than 16 outputs");

  HandMethod at_most("aten::split.Tensor", kernels::kMaxOutputs, [&](auto& fbb) {
    return std::vector<flatbuffers::Offset<fb::Argument>>{tensor_arg(fbb)};
  });
  EXPECT_TRUE(exec_graph_lower(*m.view, *at_most.method).ok());

  // A cond whose false_fn is an int, not a subgraph.
  HandMethod cond(ir::kCondOp.data(), 1, [&](auto& fbb) {
    return std::vector<flatbuffers::Offset<fb::Argument>>{
        tensor_arg(fbb),
        fb::CreateArgument(fbb, fbb.CreateString("true_fn"), fb::ArgValue::GraphArg,
                           fb::CreateGraphArg(fbb, 0).Union()),
        fb::CreateArgument(fbb, fbb.CreateString("false_fn"), fb::ArgValue::IntArg,
                           fb::CreateIntArg(fbb, 1).Union())};
  });
  g = exec_graph_lower(*m.view, *cond.method);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(g.status().message(), "node 'n' (higher_order::cond): argument 2 is not a subgraph");

  // A cond with no branches at all.
  HandMethod bare(ir::kCondOp.data(), 1, [&](auto& fbb) {
    return std::vector<flatbuffers::Offset<fb::Argument>>{tensor_arg(fbb)};
  });
  g = exec_graph_lower(*m.view, *bare.method);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(), "node 'n' (higher_order::cond): argument 1 is not a subgraph");
}

}  // namespace
}  // namespace tir
