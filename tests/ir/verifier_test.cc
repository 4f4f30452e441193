#include <gtest/gtest.h>

#include <string>

#include "ir/model.h"

namespace tir::ir {
namespace {

/// A one-node model: y = relu(x). `bad_use` makes the node read a value out of range;
/// `use_before_def` makes it read its own output.
std::vector<uint8_t> make_model(int bad_use = -1, bool use_before_def = false,
                                uint32_t version = kModelVersion) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::Dim>> dims = {fb::CreateDim(fbb, 2), fb::CreateDim(fbb, 3)};
  auto x = fb::CreateValueDirect(fbb, "x", fb::ValueKind::Tensor, fb::DType::Float32, &dims,
                                 fb::ValueSource::UserInput);
  std::vector<flatbuffers::Offset<fb::Dim>> dims2 = {fb::CreateDim(fbb, 2), fb::CreateDim(fbb, 3)};
  auto y = fb::CreateValueDirect(fbb, "y", fb::ValueKind::Tensor, fb::DType::Float32, &dims2,
                                 fb::ValueSource::Activation);
  std::vector<flatbuffers::Offset<fb::Value>> values = {x, y};
  const int use = bad_use >= 0 ? bad_use : (use_before_def ? 1 : 0);
  auto arg = fb::CreateArgumentDirect(fbb, "self", fb::ArgValue::TensorArg,
                                      fb::CreateTensorArg(fbb, use).Union());
  std::vector<flatbuffers::Offset<fb::Argument>> args = {arg};
  std::vector<int32_t> outs = {1};
  auto node = fb::CreateNodeDirect(fbb, "relu", "aten::relu", &args, &outs);
  std::vector<flatbuffers::Offset<fb::Node>> nodes = {node};
  std::vector<int32_t> inputs = {0}, outputs = {1};
  auto method = fb::CreateMethodDirect(fbb, "forward", &values, &nodes, &inputs, &outputs);
  std::vector<flatbuffers::Offset<fb::Method>> methods = {method};
  fbb.Finish(fb::CreateModelDirect(fbb, version, "test", &methods), "TIR1");
  return model_seal({fbb.GetBufferPointer(), fbb.GetSize()});
}

TEST(Verifier, AcceptsWellFormedModel) {
  const auto bytes = make_model();
  auto view = ModelView::open(bytes, "m.tir");
  ASSERT_TRUE(view.ok()) << view.status().message();
  EXPECT_NE(view->method("forward"), nullptr);
  EXPECT_EQ(view->method("decode"), nullptr);
}

TEST(Verifier, RejectsValueIndexOutOfRange) {
  const auto bytes = make_model(/*bad_use=*/7);
  auto view = ModelView::open(bytes, "m.tir");
  ASSERT_FALSE(view.ok());
  EXPECT_NE(view.status().message().find("node 'relu'"), std::string::npos)
      << view.status().message();
}

TEST(Verifier, RejectsUseBeforeDefinition) {
  const auto bytes = make_model(-1, /*use_before_def=*/true);
  auto view = ModelView::open(bytes, "m.tir");
  ASSERT_FALSE(view.ok());
  EXPECT_NE(view.status().message().find("before it is defined"), std::string::npos);
}

TEST(Verifier, RejectsNewerMajorVersion) {
  const auto bytes = make_model(-1, false, kModelVersion + 100);
  auto view = ModelView::open(bytes, "m.tir");
  ASSERT_FALSE(view.ok());
  EXPECT_EQ(view.status().code(), StatusCode::kUnsupported);
}

/// How make_cond_model breaks the model (kNone: well formed).
enum class CondFault { kNone, kBranchIndex, kOperandCount, kOutputDtype, kSubgraphSymbols };

std::vector<flatbuffers::Offset<fb::Dim>> dims_2x3(flatbuffers::FlatBufferBuilder& fbb) {
  return {fb::CreateDim(fbb, 2), fb::CreateDim(fbb, 3)};
}

/// A branch subgraph: b = op(a), a and b float32[2, 3] (b `out_dtype`).
flatbuffers::Offset<fb::Method> make_branch(flatbuffers::FlatBufferBuilder& fbb, const char* name,
                                            const char* op, fb::DType out_dtype, bool symbols) {
  auto d1 = dims_2x3(fbb), d2 = dims_2x3(fbb);
  std::vector<flatbuffers::Offset<fb::Value>> values = {
      fb::CreateValueDirect(fbb, "a", fb::ValueKind::Tensor, fb::DType::Float32, &d1,
                            fb::ValueSource::UserInput),
      fb::CreateValueDirect(fbb, "b", fb::ValueKind::Tensor, out_dtype, &d2,
                            fb::ValueSource::Activation)};
  std::vector<flatbuffers::Offset<fb::Argument>> args = {fb::CreateArgumentDirect(
      fbb, "self", fb::ArgValue::TensorArg, fb::CreateTensorArg(fbb, 0).Union())};
  std::vector<int32_t> outs = {1};
  std::vector<flatbuffers::Offset<fb::Node>> nodes = {
      fb::CreateNodeDirect(fbb, (std::string(name) + ".n").c_str(), op, &args, &outs)};
  std::vector<int32_t> inputs = {0}, outputs = {1};
  std::vector<flatbuffers::Offset<fb::Symbol>> syms;
  if (symbols) syms.push_back(fb::CreateSymbolDirect(fbb, "s0", 1, 8, 2));
  return fb::CreateMethodDirect(fbb, name, &values, &nodes, &inputs, &outputs, nullptr, &syms);
}

/// forward(p: bool[], x: float32[2, 3]) = cond(p, relu, neg, (x,)), broken as `fault` says.
std::vector<uint8_t> make_cond_model(CondFault fault) {
  flatbuffers::FlatBufferBuilder fbb;
  auto d1 = dims_2x3(fbb), d2 = dims_2x3(fbb);
  std::vector<flatbuffers::Offset<fb::Dim>> scalar;
  std::vector<flatbuffers::Offset<fb::Value>> values = {
      fb::CreateValueDirect(fbb, "p", fb::ValueKind::Tensor, fb::DType::Bool, &scalar,
                            fb::ValueSource::UserInput),
      fb::CreateValueDirect(fbb, "x", fb::ValueKind::Tensor, fb::DType::Float32, &d1,
                            fb::ValueSource::UserInput),
      fb::CreateValueDirect(fbb, "y", fb::ValueKind::Tensor, fb::DType::Float32, &d2,
                            fb::ValueSource::Activation)};
  std::vector<int32_t> operands = {1};
  if (fault == CondFault::kOperandCount) operands.push_back(1);
  std::vector<flatbuffers::Offset<fb::Argument>> args = {
      fb::CreateArgumentDirect(fbb, "pred", fb::ArgValue::TensorArg,
                               fb::CreateTensorArg(fbb, 0).Union()),
      fb::CreateArgumentDirect(fbb, "true_fn", fb::ArgValue::GraphArg,
                               fb::CreateGraphArg(fbb, 0).Union()),
      fb::CreateArgumentDirect(
          fbb, "false_fn", fb::ArgValue::GraphArg,
          fb::CreateGraphArg(fbb, fault == CondFault::kBranchIndex ? 5 : 1).Union()),
      fb::CreateArgumentDirect(fbb, "operands", fb::ArgValue::TensorsArg,
                               fb::CreateTensorsArgDirect(fbb, &operands).Union())};
  std::vector<int32_t> outs = {2};
  std::vector<flatbuffers::Offset<fb::Node>> nodes = {
      fb::CreateNodeDirect(fbb, "cond", "higher_order::cond", &args, &outs)};
  std::vector<flatbuffers::Offset<fb::Method>> subgraphs = {
      make_branch(fbb, "cond.true_graph_0", "aten::relu", fb::DType::Float32, false),
      make_branch(fbb, "cond.false_graph_0", "aten::neg",
                  fault == CondFault::kOutputDtype ? fb::DType::Int64 : fb::DType::Float32,
                  fault == CondFault::kSubgraphSymbols)};
  std::vector<int32_t> inputs = {0, 1}, outputs = {2};
  auto method = fb::CreateMethodDirect(fbb, "forward", &values, &nodes, &inputs, &outputs, nullptr,
                                       nullptr, &subgraphs);
  std::vector<flatbuffers::Offset<fb::Method>> methods = {method};
  fbb.Finish(fb::CreateModelDirect(fbb, kModelVersion, "test", &methods), "TIR1");
  return model_seal({fbb.GetBufferPointer(), fbb.GetSize()});
}

std::string cond_error(CondFault fault) {
  const auto bytes = make_cond_model(fault);
  auto view = ModelView::open(bytes, "m.tir");
  return view.ok() ? "" : view.status().message();
}

TEST(Verifier, AcceptsCondWithTwoBranchSubgraphs) { EXPECT_EQ(cond_error(CondFault::kNone), ""); }

TEST(Verifier, RejectsCondBranchIndexOutOfRange) {
  EXPECT_EQ(cond_error(CondFault::kBranchIndex),
            "'m.tir' method 'forward': node 'cond' arg 'false_fn' references subgraph 5 of 2");
}

TEST(Verifier, RejectsCondArityAndTypeMismatches) {
  EXPECT_EQ(cond_error(CondFault::kOperandCount),
            "'m.tir' method 'forward': node 'cond' passes 2 operands to subgraph "
            "'cond.true_graph_0', which has 1 inputs");
  EXPECT_EQ(cond_error(CondFault::kOutputDtype),
            "'m.tir' method 'forward': node 'cond' output 0: 'y' is float32 of rank 2, subgraph "
            "'cond.false_graph_0' has 'b' int64 of rank 2");
  EXPECT_EQ(cond_error(CondFault::kSubgraphSymbols),
            "'m.tir' method 'forward': subgraph 'cond.false_graph_0' has symbols or mutations of "
            "its own");
}

TEST(Verifier, RejectsGarbageAndTruncation) {
  auto bytes = make_model();
  std::vector<uint8_t> truncated(bytes.begin(), bytes.begin() + bytes.size() / 2);
  EXPECT_FALSE(ModelView::open(truncated, "m.tir").ok());
  std::vector<uint8_t> garbage(256, 0x5A);
  EXPECT_FALSE(ModelView::open(garbage, "m.tir").ok());
}

}  // namespace
}  // namespace tir::ir
