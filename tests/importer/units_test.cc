// Unit tests of the importer's small parsers: symbolic expressions, floats, op names,
// module stacks, source lines, the schema table.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>

#include "importer/aten_schema.h"
#include "importer/functionalize.h"
#include "importer/graph_builder.h"
#include "importer/program_json.h"
#include "importer/sym_parse.h"
#include "ir/sym_expr.h"

namespace tir::importer {
namespace {

// Parses `text` with symbols s0 = 0, s1 = 1 (by first use) and evaluates it at `values`.
Result<int64_t> eval(std::string_view text, std::vector<int64_t> values) {
  std::map<std::string, int64_t, std::less<>> names;
  auto terms = parse_sym_expr(text, [&](std::string_view n) {
    auto it = names.find(n);
    if (it != names.end()) return it->second;
    const int64_t idx = int64_t(names.size());
    names.emplace(std::string(n), idx);
    return idx;
  });
  if (!terms.ok()) return terms.status();
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<fb::ExprTerm> t;
  for (const SymTerm& s : *terms) t.emplace_back(s.op, s.value);
  fbb.Finish(fb::CreateSymExpr(fbb, fbb.CreateVectorOfStructs(t)));
  const auto* expr = flatbuffers::GetRoot<fb::SymExpr>(fbb.GetBufferPointer());
  TIR_RETURN_IF_ERROR(ir::check_sym_expr(*expr, names.size()));
  return ir::eval_sym_expr(*expr, values);
}

TEST(SymParse, PlainSyntax) {
  EXPECT_EQ(*eval("s0", {7}), 7);
  EXPECT_EQ(*eval("2*s0", {7}), 14);
  EXPECT_EQ(*eval("s0 + 1", {7}), 8);
  EXPECT_EQ(*eval("s0 - 3*s1", {7, 2}), 1);
  EXPECT_EQ(*eval("((s0 + 1)//2)", {7}), 4);
  EXPECT_EQ(*eval("(s0 - 1)//2 + 1", {8}), 4);
  EXPECT_EQ(*eval("-s0 + 10", {3}), 7);
  EXPECT_EQ(*eval("s0**2", {3}), 9);
  EXPECT_EQ(*eval("Max(1, s0)", {0}), 1);
  EXPECT_EQ(*eval("s0 >= 2", {3}), 1);
  EXPECT_EQ(*eval("s0 % 4", {10}), 2);
}

TEST(SymParse, SreprSyntax) {
  EXPECT_EQ(*eval("Symbol('s77', positive=True, integer=True)", {5}), 5);
  EXPECT_EQ(*eval("Mul(Integer(2), Symbol('s0', integer=True, positive=True))", {5}), 10);
  EXPECT_EQ(*eval("Add(Symbol('s0'), Integer(-1))", {5}), 4);
  EXPECT_EQ(*eval("FloorDiv(Add(Symbol('s0'), Integer(1)), Integer(2))", {6}), 3);
  EXPECT_EQ(*eval("CeilDiv(Symbol('s0'), Integer(4))", {5}), 2);
  EXPECT_EQ(*eval("PythonMod(Symbol('s0'), Integer(4))", {6}), 2);
  EXPECT_EQ(*eval("Mul(Symbol('s0'), Symbol('s1'), Integer(3))", {2, 5}), 30);
  EXPECT_EQ(*eval("PowByNatural(Symbol('s0'), Integer(3))", {2}), 8);
  EXPECT_EQ(*eval("Eq(Mod(Symbol('s0'), Integer(2)), Integer(0))", {6}), 1);
  EXPECT_EQ(*eval("StrictLessThan(Symbol('s0'), Integer(4))", {6}), 0);
  EXPECT_EQ(*eval("And(GreaterThan(Symbol('s0'), Integer(2)), Ne(Symbol('s0'), Integer(3)))", {6}),
            1);
}

// torch.sym_ite and a bool `.item()` read as an int: the first value whose condition holds.
TEST(SymParse, PiecewiseTakesTheFirstValueWhoseConditionHolds) {
  const char* ite = "Piecewise((1, Eq(u0, 1)), (0, True))";
  EXPECT_EQ(*eval(ite, {1}), 1);
  EXPECT_EQ(*eval(ite, {0}), 0);
  const char* srepr =
      "Piecewise(ExprCondPair(Integer(3), Equality(Symbol('u2', integer=True), Integer(1))), "
      "ExprCondPair(Integer(-4), true))";
  EXPECT_EQ(*eval(srepr, {1}), 3);
  EXPECT_EQ(*eval(srepr, {0}), -4);
  const char* three = "Piecewise((10*s0, s0 < 2), (20, s0 < 5), (s0 - 30, True)) + 1";
  EXPECT_EQ(*eval(three, {1}), 11);
  EXPECT_EQ(*eval(three, {3}), 21);
  EXPECT_EQ(*eval(three, {7}), -22);
  EXPECT_EQ(*eval("LessThan(Piecewise((1, Eq(u0, 1)), (0, True)), Integer(1))", {1}), 1);
  for (const char* bad : {"Piecewise()", "Piecewise((1, s0)", "Piecewise((1))"}) {
    auto r = eval(bad, {1});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kUnsupported) << bad;
  }
}

TEST(SymParse, UnknownFormsAreUnsupportedAndNamed) {
  for (const char* bad : {"Rational(1, 2)", "s0/2", "sqrt(s0)", "s0 +", "Mul(", "'s0"}) {
    auto r = eval(bad, {1});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kUnsupported) << bad;
    EXPECT_NE(r.status().message().find(bad), std::string::npos) << r.status().message();
  }
  EXPECT_FALSE(eval(std::string(10000, '(') + "s0" + std::string(10000, ')'), {1}).ok());
}

// Found by the sym_parse fuzzer: powers of powers multiplied the program's length (3 GB for a
// 300-byte text) before anything was refused.
TEST(SymParse, NestedPowersAreBoundedNotExpandedWithoutLimit) {
  std::string nested = "s0";
  for (int i = 0; i < 5; ++i) nested = "(" + nested + ")**23";
  auto r = eval(nested, {1});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("more than 65536 terms"), std::string::npos)
      << r.status().message();
  EXPECT_EQ(*eval("((s0)**2)**3", {2}), 64);
}

TEST(ProgramJson, FloatsAcceptInfinityStrings) {
  EXPECT_EQ(*json_float(Json(1.5)), 1.5);
  EXPECT_EQ(*json_float(Json(2)), 2.0);
  EXPECT_EQ(*json_float(Json("Infinity")), std::numeric_limits<double>::infinity());
  EXPECT_EQ(*json_float(Json("-Infinity")), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(*json_float(Json("NaN"))));
  EXPECT_FALSE(json_float(Json("1.0")).ok());
  EXPECT_FALSE(json_float(Json(true)).ok());
}

// torch 2.5's serializer (Python json) writes a masked_fill's -inf as a bare -Infinity.
TEST(ProgramJson, BareNonFiniteFloatsAreQuotedOutsideStrings) {
  const std::string text =
      R"({"a": -Infinity, "b": [Infinity, NaN, 1.5], "s": "x -Infinity \" NaN", "t": true})";
  EXPECT_FALSE(Json::accept(text));
  const std::string quoted = quote_nonfinite_literals(text);
  EXPECT_EQ(quoted,
            R"({"a": "-Infinity", "b": ["Infinity", "NaN", 1.5], "s": "x -Infinity \" NaN", )"
            R"("t": true})");
  const Json doc = Json::parse(quoted);
  EXPECT_EQ(*json_float(doc["a"]), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(*json_float(doc["b"][0]), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(*json_float(doc["b"][1])));
  EXPECT_EQ(doc["s"], "x -Infinity \" NaN");
  EXPECT_EQ(quote_nonfinite_literals(R"({"a": [1, 2"})"), R"({"a": [1, 2"})");
}

TEST(ProgramJson, UnionsAndDtypes) {
  auto u = json_union(Json::parse(R"({"as_int": 3})"));
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->first, "as_int");
  EXPECT_FALSE(json_union(Json::parse(R"({"a": 1, "b": 2})")).ok());
  EXPECT_EQ(dtype_from_serde(7), DType::kFloat32);
  EXPECT_EQ(dtype_from_serde(13), DType::kBFloat16);
  EXPECT_EQ(dtype_from_serde(12), DType::kBool);
  EXPECT_EQ(dtype_from_serde(10), DType::kComplexFloat);  // complex64
  EXPECT_EQ(dtype_from_serde(9), DType::kUndefined);      // complex32 (ComplexHalf): refused
  EXPECT_EQ(dtype_from_torch_name("torch.int64"), DType::kInt64);
}

TEST(NodeNames, TargetsBecomeOpNames) {
  EXPECT_EQ(op_name_from_target("torch.ops.aten.add.Tensor"), "aten::add.Tensor");
  EXPECT_EQ(op_name_from_target("torch.ops.aten.linear.default"), "aten::linear");
  EXPECT_EQ(op_name_from_target("torch.ops.aten.sym_size.int"), "aten::sym_size.int");
  EXPECT_EQ(op_name_from_target("torch.ops.higher_order.cond"), "higher_order::cond");
  EXPECT_EQ(op_name_from_target("torch.ops.mylib.custom_relu.default"), "mylib::custom_relu");
  EXPECT_EQ(op_name_from_target("_operator.mul"), "_operator::mul");
  EXPECT_EQ(op_name_from_target("torch.sym_max"), "torch::sym_max");
}

TEST(NodeNames, ModuleStackAndSource) {
  auto [path, type] = parse_nn_module_stack(
      "L__self__,,m.Net;L__self___layer1_0,layer1.0,torchvision.models.resnet.BasicBlock;"
      "L__self___layer1_0_conv1,layer1.0.conv1,torch.nn.modules.conv.Conv2d");
  EXPECT_EQ(path, "layer1.0.conv1");
  EXPECT_EQ(type, "torch.nn.modules.conv.Conv2d");
  auto [p2, t2] = parse_nn_module_stack("getattr(L['self'].layers, '0'),layers.0,m.Layer");
  EXPECT_EQ(p2, "layers.0");
  EXPECT_EQ(parse_nn_module_stack("").first, "");
  EXPECT_EQ(short_source("File \"/x/a.py\", line 3, in f\n    y\n  File \"/y/linear.py\", "
                         "line 134, in forward\n    return F.linear(x)"),
            "linear.py:134");
  EXPECT_EQ(short_source("no frames"), "");
}

TEST(Functionalize, InPlaceOpsMapToTheirFunctionalForms) {
  EXPECT_EQ(functional_op_name("aten::silu_"), "aten::silu");
  EXPECT_EQ(functional_op_name("aten::fill_.Scalar"), "aten::fill.Scalar");
  EXPECT_EQ(functional_op_name("aten::detach_"), "aten::detach");
  EXPECT_EQ(functional_op_name("aten::pow_.Scalar"), "aten::pow.Tensor_Scalar");
  EXPECT_EQ(functional_op_name("aten::pow_.Tensor"), "aten::pow.Tensor_Tensor");
  EXPECT_EQ(functional_op_name("aten::floor_divide_.Tensor"), "aten::floor_divide");
  EXPECT_EQ(functional_op_name("aten::silu"), "");            // not in place
  EXPECT_EQ(functional_op_name("aten::__and__.Tensor"), "");  // dunder, not in place
  EXPECT_EQ(functional_op_name("higher_order::cond"), "");
  EXPECT_TRUE(is_view_op("aten::view"));
  EXPECT_TRUE(is_view_op("aten::numpy_T"));
  EXPECT_FALSE(is_view_op("aten::clone"));
}

TEST(AtenSchema, TableHasDefaults) {
  EXPECT_GT(aten_schema_count(), 1000u);
  const AtenSchema* conv = find_aten_schema("aten::conv2d");
  ASSERT_NE(conv, nullptr);
  ASSERT_EQ(conv->args.size(), 7u);
  EXPECT_EQ(conv->args[5].name, "dilation");
  EXPECT_EQ(conv->args[5].default_value, Json::parse("[1,1]"));
  EXPECT_EQ(find_aten_schema("aten::no_such_op"), nullptr);
  EXPECT_EQ(find_aten_schema("aten::conv2d"), conv);  // cached
}

}  // namespace
}  // namespace tir::importer
