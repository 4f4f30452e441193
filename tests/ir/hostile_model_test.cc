// Regression cases for hostile .tir files (issue 17): each was a crash or a silent wrong
// answer before the fix.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/read_limits.h"
#include "ir/model.h"
#include "ir/sym_expr.h"

namespace tir::ir {
namespace {

/// y = relu(x) whose argument is broken as `fault` says; `weight_bytes` >= 0 adds one
/// float32[2, 3] weight declaring that byte_size.
/// kInts / kFloats: a well-formed extra arg 'v' (int64[] / float64[]), for misalign_arg_values.
enum class ArgFault { kNone, kUnionWithoutTable, kSymIntWithoutExpr, kInts, kFloats };

std::vector<uint8_t> make_flatbuffer(ArgFault fault, int64_t weight_bytes = -1,
                                     uint32_t version = kModelVersion) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::Dim>> d1 = {fb::CreateDim(fbb, 2), fb::CreateDim(fbb, 3)};
  std::vector<flatbuffers::Offset<fb::Dim>> d2 = {fb::CreateDim(fbb, 2), fb::CreateDim(fbb, 3)};
  std::vector<flatbuffers::Offset<fb::Value>> values = {
      fb::CreateValueDirect(fbb, "x", fb::ValueKind::Tensor, fb::DType::Float32, &d1,
                            fb::ValueSource::UserInput),
      fb::CreateValueDirect(fbb, "y", fb::ValueKind::Tensor, fb::DType::Float32, &d2,
                            fb::ValueSource::Activation)};
  flatbuffers::Offset<fb::Argument> arg;
  if (fault == ArgFault::kUnionWithoutTable)  // the type says Tensor[], the table is absent
    arg = fb::CreateArgumentDirect(fbb, "self", fb::ArgValue::TensorsArg, 0);
  else if (fault == ArgFault::kSymIntWithoutExpr)
    arg = fb::CreateArgumentDirect(
        fbb, "self", fb::ArgValue::SymIntArg,
        fb::CreateSymIntArg(fbb, flatbuffers::Offset<fb::SymExpr>()).Union());
  else
    arg = fb::CreateArgumentDirect(fbb, "self", fb::ArgValue::TensorArg,
                                   fb::CreateTensorArg(fbb, 0).Union());
  std::vector<flatbuffers::Offset<fb::Argument>> args = {arg};
  const std::vector<int64_t> ints = {1, 2, 3};
  const std::vector<double> floats = {0.5, 1.5};
  if (fault == ArgFault::kInts)
    args.push_back(fb::CreateArgumentDirect(fbb, "v", fb::ArgValue::IntsArg,
                                            fb::CreateIntsArgDirect(fbb, &ints).Union()));
  if (fault == ArgFault::kFloats)
    args.push_back(fb::CreateArgumentDirect(fbb, "v", fb::ArgValue::FloatsArg,
                                            fb::CreateFloatsArgDirect(fbb, &floats).Union()));
  std::vector<int32_t> outs = {1};
  std::vector<flatbuffers::Offset<fb::Node>> nodes = {
      fb::CreateNodeDirect(fbb, "relu", "aten::relu", &args, &outs)};
  std::vector<int32_t> inputs = {0}, outputs = {1};
  auto method = fb::CreateMethodDirect(fbb, "forward", &values, &nodes, &inputs, &outputs);
  std::vector<flatbuffers::Offset<fb::Method>> methods = {method};
  std::vector<flatbuffers::Offset<fb::WeightRef>> weights;
  const std::vector<int64_t> shape = {2, 3};
  if (weight_bytes >= 0)
    weights.push_back(fb::CreateWeightRefDirect(fbb, "w", nullptr, fb::DType::Float32, &shape,
                                                uint64_t(weight_bytes)));
  fbb.Finish(fb::CreateModelDirect(fbb, version, "test", &methods, &weights), "TIR1");
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

/// Moves the values of node 0's second arg (an IntsArg or FloatsArg) to the end of the buffer
/// so that its 8-byte elements start 4 bytes off their alignment. The FlatBuffers verifier
/// (2.0.8) checks only the 4-byte length prefix, so the result still verifies.
std::vector<uint8_t> misalign_arg_values(std::vector<uint8_t> buf) {
  const fb::Argument* a =
      fb::GetModel(buf.data())->methods()->Get(0)->nodes()->Get(0)->args()->Get(1);
  const auto* table = static_cast<const flatbuffers::Table*>(a->value());
  const size_t field = reinterpret_cast<const uint8_t*>(table) + table->GetOptionalFieldOffset(4) -
                       buf.data();  // `values`, the first field of both tables
  const size_t vec = field + flatbuffers::ReadScalar<uint32_t>(buf.data() + field);
  const uint32_t n = flatbuffers::ReadScalar<uint32_t>(buf.data() + vec);
  const std::vector<uint8_t> copy(buf.begin() + vec, buf.begin() + vec + 4 + n * 8);
  buf.resize((buf.size() + 7) / 8 * 8);  // the prefix 8-aligned: the elements are not
  const size_t at = buf.size();
  buf.insert(buf.end(), copy.begin(), copy.end());
  flatbuffers::WriteScalar<uint32_t>(buf.data() + field, uint32_t(at - field));
  return buf;
}

std::string open_error(const std::vector<uint8_t>& bytes) {
  auto view = ModelView::open(bytes, "m.tir");
  return view.ok() ? "" : view.status().message();
}

TEST(HostileModel, UnionTypeWithoutTableIsAnErrorNotACrash) {
  EXPECT_EQ(open_error(model_seal(make_flatbuffer(ArgFault::kUnionWithoutTable))),
            "'m.tir' method 'forward': node 'relu' arg 'self' has no value");
  EXPECT_EQ(open_error(model_seal(make_flatbuffer(ArgFault::kSymIntWithoutExpr))),
            "'m.tir' method 'forward': node 'relu' arg 'self' has no expression");
}

TEST(HostileModel, MisalignedIntsAndFloatsArgsAreRejected) {
  for (ArgFault f : {ArgFault::kInts, ArgFault::kFloats}) {
    const std::vector<uint8_t> good = make_flatbuffer(f);
    ASSERT_EQ(open_error(model_seal(good)), "");
    const std::vector<uint8_t> bad = model_seal(misalign_arg_values(good));
    ASSERT_EQ(reinterpret_cast<uintptr_t>(bad.data()) % 8, 0u);
    EXPECT_EQ(open_error(bad),
              "'m.tir' method 'forward': node 'relu' arg 'v' has misaligned values");
  }
}

TEST(HostileModel, WeightByteSizeMustMatchDtypeAndShape) {
  EXPECT_EQ(open_error(model_seal(make_flatbuffer(ArgFault::kNone, 24))), "");
  EXPECT_EQ(open_error(model_seal(make_flatbuffer(ArgFault::kNone, 12))),
            "'m.tir': weight 'w' has byte_size 12, its dtype and shape need 24");
}

TEST(HostileModel, EveryFlippedByteIsCaughtByTheChecksum) {
  const std::vector<uint8_t> sealed = model_seal(make_flatbuffer(ArgFault::kNone));
  ASSERT_EQ(open_error(sealed), "");
  for (size_t i = 0; i < sealed.size(); ++i) {
    std::vector<uint8_t> bad = sealed;
    bad[i] ^= 0x01;
    EXPECT_NE(open_error(bad), "") << "byte " << i;
  }
}

TEST(HostileModel, UnsealedFilesLoadOnlyBeforeVersion102) {
  EXPECT_EQ(open_error(make_flatbuffer(ArgFault::kNone, -1, 101)), "");
  EXPECT_EQ(open_error(make_flatbuffer(ArgFault::kNone)),
            "'m.tir': model has no checksum trailer (the file is truncated or damaged)");
}

const fb::SymExpr* build_sym_expr(flatbuffers::FlatBufferBuilder& fbb,
                                  std::vector<fb::ExprTerm> terms) {
  fbb.Finish(fb::CreateSymExprDirect(fbb, &terms, "e"));
  return flatbuffers::GetRoot<fb::SymExpr>(fbb.GetBufferPointer());
}

TEST(HostileModel, SymExprOverflowIsAnError) {
  const std::vector<int64_t> syms = {INT64_MIN};
  const std::vector<std::vector<fb::ExprTerm>> cases = {
      {{fb::ExprOp::Sym, 0}, {fb::ExprOp::Const, -1}, {fb::ExprOp::FloorDiv, 0}},  // SIGFPE
      {{fb::ExprOp::Sym, 0}, {fb::ExprOp::Const, -1}, {fb::ExprOp::CeilDiv, 0}},
      {{fb::ExprOp::Sym, 0}, {fb::ExprOp::Neg, 0}},
      {{fb::ExprOp::Sym, 0}, {fb::ExprOp::Const, 2}, {fb::ExprOp::Mul, 0}},
      {{fb::ExprOp::Sym, 0}, {fb::ExprOp::Const, 1}, {fb::ExprOp::Sub, 0}},
      {{fb::ExprOp::Const, INT64_MAX}, {fb::ExprOp::Const, 1}, {fb::ExprOp::Add, 0}},
  };
  for (const auto& terms : cases) {
    flatbuffers::FlatBufferBuilder fbb;
    auto r = eval_sym_expr(*build_sym_expr(fbb, terms), syms);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(), "integer overflow in e");
  }
  flatbuffers::FlatBufferBuilder fbb;
  auto mod = eval_sym_expr(
      *build_sym_expr(fbb, {{fb::ExprOp::Sym, 0}, {fb::ExprOp::Const, 3}, {fb::ExprOp::Mod, 0}}),
      syms);
  ASSERT_TRUE(mod.ok());
  EXPECT_EQ(*mod, 1);  // Python: -2**63 % 3 == 1
}

TEST(HostileModel, DeepExpressionsAreRejectedByTheVerifier) {
  std::vector<fb::ExprTerm> terms(65, fb::ExprTerm(fb::ExprOp::Const, 1));
  for (int i = 0; i < 64; ++i) terms.emplace_back(fb::ExprOp::Add, 0);
  flatbuffers::FlatBufferBuilder fbb;
  const fb::SymExpr* e = build_sym_expr(fbb, terms);
  EXPECT_EQ(check_sym_expr(*e, 0).message(), "symbolic expression nests deeper than 64");
  EXPECT_FALSE(eval_sym_expr(*e, {}).ok());
}

TEST(HostileModel, FormatSurvivesAnUnnamedSymbol) {
  flatbuffers::FlatBufferBuilder sfbb;
  std::vector<flatbuffers::Offset<fb::Symbol>> syms = {fb::CreateSymbol(sfbb)};  // no name
  sfbb.Finish(sfbb.CreateVector(syms));
  const auto* symbols = flatbuffers::GetRoot<flatbuffers::Vector<flatbuffers::Offset<fb::Symbol>>>(
      sfbb.GetBufferPointer());
  flatbuffers::FlatBufferBuilder fbb;
  const fb::SymExpr* e =
      build_sym_expr(fbb, {{fb::ExprOp::Sym, 0}, {fb::ExprOp::Const, 2}, {fb::ExprOp::Mul, 0}});
  EXPECT_EQ(format_sym_expr(*e, symbols), "s?0*2");
}

/// A sealed model whose one method has `n` empty nodes (a FlatBuffers table each).
std::vector<uint8_t> model_with_nodes(size_t n) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::Node>> nodes;
  nodes.reserve(n);
  for (size_t i = 0; i < n; ++i) nodes.push_back(fb::CreateNode(fbb));
  const auto method =
      fb::CreateMethod(fbb, fbb.CreateString("forward"), 0, fbb.CreateVector(nodes));
  fbb.Finish(fb::CreateModel(fbb, kModelVersion, 0, fbb.CreateVector(&method, 1)),
             fb::ModelIdentifier());
  return model_seal({fbb.GetBufferPointer(), fbb.GetSize()});
}

// FlatBuffers' own table limit (1,000,000) used to refuse such a file first, naming nothing.
TEST(HostileModel, AMillionNodesAreRefusedByTheNodeLimitNamingTheMethod) {
  const std::vector<uint8_t> file = model_with_nodes(1'000'000);
  auto view = ModelView::open(file, "many.tir");
  ASSERT_FALSE(view.ok());
  EXPECT_EQ(view.status().message(),
            "'many.tir' method 'forward': has 1000000 nodes, more than the limit of 524288 "
            "(--max-nodes)");
}

TEST(HostileModel, MoreTablesThanTheNodeLimitAllowsAreRefusedSayingSo) {
  const ReadLimits saved = read_limits();
  set_read_limits({.max_bytes = saved.max_bytes, .max_nodes = 10});
  auto view = ModelView::open(model_with_nodes(2000), "many.tir");
  set_read_limits(saved);
  ASSERT_FALSE(view.ok());
  EXPECT_EQ(view.status().message(),
            "'many.tir': model has more than 704 tables, more than 64 per node within the "
            "limit of 10 nodes (--max-nodes)");
}

}  // namespace
}  // namespace tir::ir
