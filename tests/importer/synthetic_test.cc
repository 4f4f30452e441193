// Hand-written archives for what the torch fixtures do not cover: tied weights, symbolic
// shapes in both expression syntaxes, "Infinity" floats, constant inputs, malformed nodes.
#include <gtest/gtest.h>
#include <zip.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>

#include "../common/test_util.h"
#include "importer/import_pt2.h"
#include "ir/model.h"
#include "ir/sym_expr.h"
#include "ir/weight_file.h"

namespace tir::importer {
namespace {

using tir::testing::file_bytes;
using tir::testing::TempDir;

void write_zip(const std::string& path, const std::map<std::string, std::string>& members) {
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  ASSERT_NE(z, nullptr);
  for (const auto& [name, data] : members) {
    zip_source_t* s = zip_source_buffer(z, data.data(), data.size(), 0);
    ASSERT_NE(s, nullptr);
    ASSERT_GE(zip_file_add(z, ("archive/" + name).c_str(), s, ZIP_FL_OVERWRITE), 0);
  }
  ASSERT_EQ(zip_close(z), 0);
}

std::string meta(const std::string& sizes, int dtype = 7) {
  return R"({"dtype": )" + std::to_string(dtype) + R"(, "sizes": )" + sizes +
         R"(, "requires_grad": false, "device": {"type": "cpu", "index": null},
           "strides": [{"as_int": 1}], "storage_offset": {"as_int": 0}, "layout": 7})";
}

const std::string kX = R"([{"as_expr": {"expr_str": "Symbol('s0', positive=True, integer=True) ",
                            "hint": {"as_int": 2}}}, {"as_int": 4}])";
const std::string kFlat = R"([{"as_expr": {"expr_str": "4*s0", "hint": {"as_int": 8}}}])";

std::string model_json(const std::string& extra_node = "") {
  return R"js({"graph_module": {"graph": {
    "inputs": [{"as_tensor": {"name": "p_a"}}, {"as_tensor": {"name": "p_b"}},
               {"as_tensor": {"name": "x"}}, {"as_int": 3}, {"as_tensor": {"name": "c_k"}}],
    "outputs": [{"as_tensor": {"name": "view"}}],
    "nodes": [
     {"target": "torch.ops.aten.add.Tensor", "name": "add",
      "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1},
                 {"name": "other", "arg": {"as_tensor": {"name": "p_a"}}, "kind": 1}],
      "outputs": [{"as_tensor": {"name": "add"}}],
      "metadata": {"nn_module_stack": "L__self__,,m.M;L__self__blk,blk[0],m.Block(a, b)",
                   "stack_trace": "File \"/a/m.py\", line 7, in forward\n    y = x + a"}},
     {"target": "torch.ops.aten.mul.Tensor", "name": "mul",
      "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "add"}}, "kind": 1},
                 {"name": "other", "arg": {"as_tensor": {"name": "p_b"}}, "kind": 1}],
      "outputs": [{"as_tensor": {"name": "mul"}}], "metadata": {}},
     {"target": "torch.ops.aten.clamp.default", "name": "clamp",
      "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "mul"}}, "kind": 1},
                 {"name": "min", "arg": {"as_float": "-Infinity"}, "kind": 1}],
      "outputs": [{"as_tensor": {"name": "clamp"}}], "metadata": {}},
     {"target": "torch.ops.aten.sym_size.int", "name": "sym_size_int",
      "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1},
                 {"name": "dim", "arg": {"as_int": 0}, "kind": 1}],
      "outputs": [{"as_sym_int": {"as_name": "sym_size_int"}}], "metadata": {}},
     {"target": "torch.ops.aten.view.default", "name": "view",
      "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "clamp"}}, "kind": 1},
                 {"name": "size", "arg": {"as_sym_ints": [{"as_name": "flat"}]}, "kind": 1}],
      "outputs": [{"as_tensor": {"name": "view"}}], "metadata": {}})js" +
         extra_node + R"(],
    "tensor_values": {"p_a": )" +
         meta(R"([{"as_int": 4}])") + R"(, "p_b": )" + meta(R"([{"as_int": 4}])") + R"(, "x": )" +
         meta(kX) + R"(, "add": )" + meta(kX) + R"(, "mul": )" + meta(kX) + R"(, "clamp": )" +
         meta(kX) + R"(, "view": )" + meta(kFlat) + R"(, "c_k": )" + meta(R"([{"as_int": 2}])", 4) +
         R"(},
    "sym_int_values": {"sym_size_int": {"as_expr": {"expr_str": "s0", "hint": {"as_int": 2}}},
                       "flat": {"as_expr": {"expr_str": "Mul(Integer(4), Symbol('s0', integer=True)) ",
                                            "hint": {"as_int": 8}}}},
    "sym_bool_values": {}, "custom_obj_values": {}, "is_single_tensor_return": false},
   "signature": {
    "input_specs": [
     {"parameter": {"arg": {"name": "p_a"}, "parameter_name": "a.weight"}},
     {"parameter": {"arg": {"name": "p_b"}, "parameter_name": "b.weight"}},
     {"user_input": {"arg": {"as_tensor": {"name": "x"}}}},
     {"constant_input": {"name": "k", "value": {"as_int": 3}}},
     {"tensor_constant": {"arg": {"name": "c_k"}, "tensor_constant_name": "k_const"}}],
    "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": "view"}}}}]},
   "module_call_graph": [], "metadata": {}},
  "opset_version": {"aten": 10},
  "range_constraints": {"s0": {"min_val": 2, "max_val": "Infinity"}},
  "schema_version": {"major": 8, "minor": 20}, "verifiers": ["TRAINING"],
  "torch_version": "2.15.0"})";
}

std::map<std::string, std::string> archive_members(const std::string& json) {
  const std::string tied_meta = meta(R"([{"as_int": 4}])");
  std::string blob(16, '\0');
  const float w[4] = {1, 2, 3, 4};
  std::memcpy(blob.data(), w, 16);
  return {
      {"archive_format", "pt2"},
      {"archive_version", "0"},
      {"models/model.json", json},
      {"data/weights/weight_0", blob},
      {"data/weights/model_weights_config.json",
       R"({"config": {"a.weight": {"path_name": "weight_0", "is_param": true, "use_pickle": false,
               "tensor_meta": )" +
           tied_meta + R"(}, "b.weight": {"path_name": "weight_0",
               "is_param": true, "use_pickle": false, "tensor_meta": )" +
           tied_meta + "}}}"},
      {"data/constants/tensor_0", std::string("\x01\x00\x00\x00\x02\x00\x00\x00", 8)},
      {"data/constants/model_constants_config.json",
       R"({"config": {"k_const": {"path_name": "tensor_0", "is_param": false, "use_pickle": false,
               "tensor_meta": )" +
           meta(R"([{"as_int": 2}])", 4) + "}}}"}};
}

Result<ImportSummary> run(const TempDir& dir, const std::string& pt2) {
  ImportOptions o;
  o.input = pt2;
  o.model_path = dir.file("m.tir");
  o.weights_path = dir.file("m.bin");
  o.check_kernels = false;
  return import_pt2(o);
}

TEST(ImportSynthetic, TiedWeightsSymbolsAndInfinity) {
  TempDir src, out;
  const std::string pt2 = src.file("t.pt2");
  write_zip(pt2, archive_members(model_json()));
  auto sum = run(out, pt2);
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  EXPECT_EQ(sum->weights, 1u);
  EXPECT_EQ(sum->weight_aliases, 1u);

  const std::vector<uint8_t> tir = file_bytes(sum->model_path), bin = file_bytes(sum->weights_path);
  auto view = ir::ModelView::open(tir, "m.tir");
  ASSERT_TRUE(view.ok()) << view.status().message();
  auto wf = ir::WeightFileView::open(bin, "m.bin");
  ASSERT_TRUE(wf.ok()) << wf.status().message();
  EXPECT_EQ(wf->find("b.weight"), wf->find("a.weight"));
  ASSERT_NE(wf->find("b.weight"), nullptr);
  const fb::WeightRef* ref = view->model().weights()->Get(0);
  EXPECT_EQ(ir::str(ref->name()), "a.weight");
  ASSERT_EQ(ref->aliases()->size(), 1u);
  EXPECT_EQ(ir::str(ref->aliases()->Get(0)), "b.weight");

  const fb::Method& m = *view->method("forward");
  std::map<std::string, const fb::Value*> values;
  for (const fb::Value* v : *m.values()) values[std::string(ir::str(v->name()))] = v;
  EXPECT_EQ(values["p_a"]->source(), fb::ValueSource::Weight);
  EXPECT_EQ(values["p_b"]->source(), fb::ValueSource::Weight);
  EXPECT_EQ(values["p_a"]->index(), values["p_b"]->index());
  ASSERT_EQ(m.inputs()->size(), 1u);  // the constant input k is not a runtime input
  EXPECT_EQ(ir::str(m.values()->Get(m.inputs()->Get(0))->name()), "x");
  // Pure shape arithmetic (sym_size.int) is folded into expressions, not emitted.
  EXPECT_EQ(values.count("sym_size_int"), 0u);
  ASSERT_EQ(m.nodes()->size(), 4u);

  ASSERT_EQ(m.symbols()->size(), 1u);
  const fb::Symbol* s0 = m.symbols()->Get(0);
  EXPECT_EQ(ir::str(s0->name()), "s0");
  EXPECT_EQ(s0->min(), 2);
  EXPECT_EQ(s0->max(), INT64_MAX);
  EXPECT_EQ(s0->hint(), 2);
  const fb::Dim* d0 = values["x"]->sizes()->Get(0);
  ASSERT_NE(d0->expr(), nullptr);
  const int64_t five = 5;
  EXPECT_EQ(*ir::eval_dim(*values["view"]->sizes()->Get(0), {&five, 1}), 20);

  ASSERT_EQ(view->model().constants()->size(), 1u);
  const fb::Constant* k = view->model().constants()->Get(0);
  EXPECT_EQ(ir::str(k->name()), "k_const");
  EXPECT_EQ(k->dtype(), fb::DType::Int32);
  ASSERT_EQ(k->data()->size(), 8u);
  EXPECT_EQ((k->data()->data() - tir.data()) % 64, 0);
  EXPECT_EQ(values["c_k"]->source(), fb::ValueSource::Constant);
  EXPECT_EQ(values["c_k"]->index(), 0);

  const fb::Node* clamp = m.nodes()->Get(2);
  ASSERT_EQ(clamp->args()->size(), 3u);  // self, min, max (default None)
  EXPECT_EQ(clamp->args()->Get(1)->value_as_FloatArg()->value(),
            -std::numeric_limits<double>::infinity());
  EXPECT_EQ(clamp->args()->Get(2)->value_type(), fb::ArgValue::NoneArg);
  const fb::Node* add = m.nodes()->Get(0);
  EXPECT_EQ(add->args()->Get(2)->value_as_IntArg()->value(), 1);  // alpha default
  EXPECT_EQ(ir::str(add->module_path()), "blk[0]");
  EXPECT_EQ(ir::str(add->module_type()), "m.Block(a, b)");
  EXPECT_EQ(ir::str(add->source()), "m.py:7");
  const fb::Node* v = m.nodes()->Get(3);
  ASSERT_EQ(v->args()->Get(1)->value_type(), fb::ArgValue::SymIntsArg);
  EXPECT_EQ(
      *ir::eval_sym_expr(*v->args()->Get(1)->value_as_SymIntsArg()->values()->Get(0), {&five, 1}),
      20);
}

// torch <= 2.7 wrote non-finite floats bare (Python json): -Infinity, not "-Infinity".
TEST(ImportSynthetic, BareInfinityLiteralsImport) {
  TempDir src, out;
  const std::string pt2 = src.file("t.pt2");
  std::string json = model_json();
  for (const std::string quoted : {"\"-Infinity\"", "\"Infinity\""})
    json.replace(json.find(quoted), quoted.size(), quoted.substr(1, quoted.size() - 2));
  ASSERT_FALSE(nlohmann::json::accept(json));
  write_zip(pt2, archive_members(json));
  auto sum = run(out, pt2);
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  const std::vector<uint8_t> tir = file_bytes(sum->model_path);
  auto view = ir::ModelView::open(tir, "m.tir");
  ASSERT_TRUE(view.ok()) << view.status().message();
  const fb::Method& m = *view->method("forward");
  EXPECT_EQ(m.nodes()->Get(2)->args()->Get(1)->value_as_FloatArg()->value(),
            -std::numeric_limits<double>::infinity());
  EXPECT_EQ(m.symbols()->Get(0)->max(), INT64_MAX);
}

// torch 2.3 writes schema 5.x without a torch_version; older schemas are refused by name.
TEST(ImportSynthetic, OldestSchemaVersions) {
  TempDir src;
  const std::string pt2 = src.file("t.pt2");
  for (const int major : {5, 4}) {
    std::string json = model_json();
    const std::string v8 = R"("major": 8, "minor": 20})";
    json.replace(json.find(v8), v8.size(),
                 R"("major": )" + std::to_string(major) + R"(, "minor": 1})");
    const std::string tv = R"("torch_version": "2.15.0")";
    json.replace(json.find(tv), tv.size(), R"("dialect": "ATEN")");
    write_zip(pt2, archive_members(json));
    TempDir out;
    auto sum = run(out, pt2);
    if (major == 5) {
      ASSERT_TRUE(sum.ok()) << sum.status().message();
      EXPECT_EQ(sum->torch_version, "unknown");
    } else {
      ASSERT_FALSE(sum.ok());
      EXPECT_EQ(sum.status().code(), StatusCode::kUnsupported);
      EXPECT_NE(sum.status().message().find("schema version 4.1"), std::string::npos)
          << sum.status().message();
      EXPECT_EQ(out.num_entries(), 0u);
    }
  }
}

TEST(ImportSynthetic, UnknownArgumentIsCorruptAndNamesTheNode) {
  TempDir src, out;
  const std::string pt2 = src.file("t.pt2");
  write_zip(pt2, archive_members(model_json(R"(,
     {"target": "torch.ops.aten.relu.default", "name": "bad_relu",
      "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1},
                 {"name": "bogus", "arg": {"as_int": 1}, "kind": 1}],
      "outputs": [{"as_tensor": {"name": "r"}}], "metadata": {}})")));
  auto sum = run(out, pt2);
  ASSERT_FALSE(sum.ok());
  EXPECT_EQ(sum.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(sum.status().message().find("bad_relu"), std::string::npos) << sum.status().message();
  EXPECT_NE(sum.status().message().find("bogus"), std::string::npos);
  EXPECT_EQ(out.num_entries(), 0u);
}

TEST(ImportSynthetic, MissingRequiredArgumentIsCorrupt) {
  TempDir src, out;
  const std::string pt2 = src.file("t.pt2");
  write_zip(pt2, archive_members(model_json(R"(,
     {"target": "torch.ops.aten.add.Tensor", "name": "half_add",
      "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1}],
      "outputs": [{"as_tensor": {"name": "r"}}], "metadata": {}})")));
  auto sum = run(out, pt2);
  ASSERT_FALSE(sum.ok());
  EXPECT_NE(sum.status().message().find("half_add"), std::string::npos);
  EXPECT_NE(sum.status().message().find("'other'"), std::string::npos);
  EXPECT_EQ(out.num_entries(), 0u);
}

TEST(ImportSynthetic, LegacyLayoutWithoutSchemaVersionIsCorrupt) {
  TempDir src, out;
  const std::string pt2 = src.file("legacy.pt2");
  write_zip(pt2, {{"serialized_exported_program.json", "{}"}, {"version", "8.2"}});
  auto sum = run(out, pt2);
  ASSERT_FALSE(sum.ok());
  EXPECT_EQ(sum.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(sum.status().message().find("serialized_exported_program.json"), std::string::npos);
  EXPECT_EQ(out.num_entries(), 0u);
}

TEST(ImportSynthetic, LegacyLayoutWithoutStateDictIsCorrupt) {
  TempDir src, out;
  const std::string pt2 = src.file("legacy.pt2");
  write_zip(pt2, {{"serialized_exported_program.json",
                   R"({"schema_version": {"major": 8, "minor": 2}, "graph_module": {}})"},
                  {"version", "8.2"}});
  auto sum = run(out, pt2);
  ASSERT_FALSE(sum.ok());
  EXPECT_EQ(sum.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(sum.status().message().find("serialized_state_dict.pt"), std::string::npos);
}

TEST(ImportSynthetic, MalformedJsonIsCorruptAndNamesTheMember) {
  TempDir src, out;
  const std::string pt2 = src.file("t.pt2");
  write_zip(pt2, archive_members("{\"graph_module\": [1, 2"));
  auto sum = run(out, pt2);
  ASSERT_FALSE(sum.ok());
  EXPECT_EQ(sum.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(sum.status().message().find("models/model.json"), std::string::npos);
  // Quoting bare Infinity does not rescue otherwise malformed JSON.
  write_zip(pt2, archive_members("{\"graph_module\": [Infinity, 2"));
  sum = run(out, pt2);
  ASSERT_FALSE(sum.ok());
  EXPECT_EQ(sum.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(sum.status().message().find("not valid JSON"), std::string::npos);
}

}  // namespace
}  // namespace tir::importer
