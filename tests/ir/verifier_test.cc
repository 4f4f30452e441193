#include <gtest/gtest.h>

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
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
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

TEST(Verifier, RejectsGarbageAndTruncation) {
  auto bytes = make_model();
  std::vector<uint8_t> truncated(bytes.begin(), bytes.begin() + bytes.size() / 2);
  EXPECT_FALSE(ModelView::open(truncated, "m.tir").ok());
  std::vector<uint8_t> garbage(256, 0x5A);
  EXPECT_FALSE(ModelView::open(garbage, "m.tir").ok());
}

}  // namespace
}  // namespace tir::ir
