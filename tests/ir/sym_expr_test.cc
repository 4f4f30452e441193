#include "ir/sym_expr.h"

#include <gtest/gtest.h>

namespace tir::ir {
namespace {

/// Builds a SymExpr from postfix terms and returns a pointer into `fbb`'s finished buffer.
const fb::SymExpr* build(flatbuffers::FlatBufferBuilder& fbb, std::vector<fb::ExprTerm> terms) {
  auto e = fb::CreateSymExprDirect(fbb, &terms, "test");
  fbb.Finish(e);
  return flatbuffers::GetRoot<fb::SymExpr>(fbb.GetBufferPointer());
}

TEST(SymExpr, EvaluatesPostfixWithPythonFloorSemantics) {
  flatbuffers::FlatBufferBuilder fbb;
  // (s0 - 7) // 2 with s0 = 4 -> floor(-3 / 2) = -2, as Python computes it.
  const fb::SymExpr* e = build(fbb, {{fb::ExprOp::Sym, 0},
                                     {fb::ExprOp::Const, 7},
                                     {fb::ExprOp::Sub, 0},
                                     {fb::ExprOp::Const, 2},
                                     {fb::ExprOp::FloorDiv, 0}});
  ASSERT_TRUE(check_sym_expr(*e, 1).ok());
  const std::vector<int64_t> syms = {4};
  auto r = eval_sym_expr(*e, syms);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, -2);
}

TEST(SymExpr, ModuloAndMultiply) {
  flatbuffers::FlatBufferBuilder fbb;
  const fb::SymExpr* e = build(fbb, {{fb::ExprOp::Const, 8},
                                     {fb::ExprOp::Sym, 1},
                                     {fb::ExprOp::Mul, 0},
                                     {fb::ExprOp::Const, 5},
                                     {fb::ExprOp::Mod, 0}});
  const std::vector<int64_t> syms = {0, 3};
  EXPECT_EQ(*eval_sym_expr(*e, syms), 24 % 5);
}

TEST(SymExpr, RejectsMalformedPrograms) {
  flatbuffers::FlatBufferBuilder a;
  EXPECT_FALSE(check_sym_expr(*build(a, {{fb::ExprOp::Add, 0}}), 1).ok());
  flatbuffers::FlatBufferBuilder b;
  EXPECT_FALSE(check_sym_expr(*build(b, {{fb::ExprOp::Sym, 3}}), 1).ok());
  flatbuffers::FlatBufferBuilder c;
  EXPECT_FALSE(check_sym_expr(*build(c, {{fb::ExprOp::Const, 1}, {fb::ExprOp::Const, 2}}), 0).ok());
}

TEST(SymExpr, DivisionByZeroIsAnError) {
  flatbuffers::FlatBufferBuilder fbb;
  const fb::SymExpr* e =
      build(fbb, {{fb::ExprOp::Const, 1}, {fb::ExprOp::Sym, 0}, {fb::ExprOp::FloorDiv, 0}});
  const std::vector<int64_t> syms = {0};
  EXPECT_FALSE(eval_sym_expr(*e, syms).ok());
}

}  // namespace
}  // namespace tir::ir
