// Custom ops end to end (kernels/registry.h add_custom, importer --custom-op): a real
// torch.library op, mylib::scaled_add(x, y, alpha=1.0) = x + alpha * y, exported by torch in both
// dialects (tests/data/gen_custom_op.py), runs with the C++ kernel below to torch eager's
// outputs; without a registered kernel the session fails at open naming node and op, and
// without --custom-op the import fails naming the op and the flag.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>

#include "importer/import_pt2.h"
#include "kernels/kernel_util.h"
#include "kernels/registry.h"
#include "runtime/devices/device.h"
#include "runtime/exec/session.h"
#include "tests/common/test_util.h"
#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using kernels::KernelRegistry;
using testing::read_all;
using testing::TempDir;
using testing::views;

std::atomic<int> alpha_given{0}, alpha_defaulted{0};

/// The test's kernel for mylib::scaled_add: out = x + alpha * y (float32, equal shapes).
class ScaledAdd final : public kernels::Kernel {
 public:
  Status prepare(const kernels::KernelCall& call, kernels::PrepareInfo*) override {
    if (call.inputs.size() != 2 || call.outputs.size() != 1)
      return kernels::op_error(call, StatusCode::kInvalidArgument, "expected 2 inputs, 1 output");
    const Tensor& x = call.inputs[0];
    const Tensor& y = call.inputs[1];
    if (!std::ranges::equal(x.shape(), y.shape()) || y.dtype != x.dtype)
      return kernels::op_error(call, StatusCode::kInvalidArgument, "x and y differ");
    call.outputs[0] = make_tensor(x.dtype, x.shape(), nullptr);
    return ok_status();
  }
  Status run(const kernels::KernelCall& call, void*) override {
    const kernels::Arg* a = kernels::find_arg(call.args, "alpha");
    (a ? alpha_given : alpha_defaulted)++;
    const double alpha = a ? a->scalar() : 1.0;  // the schema's default
    const float* x = call.inputs[0].data_as<const float>();
    const float* y = call.inputs[1].data_as<const float>();
    float* out = call.outputs[0].data_as<float>();
    for (int64_t i = 0; i < call.outputs[0].numel(); ++i)
      out[i] = x[i] + static_cast<float>(alpha) * y[i];
    return ok_status();
  }
};

std::string custom_dir() { return testing::fixture_dir() + "/custom_op"; }

const nlohmann::json& custom_manifest() {
  static const nlohmann::json m = [] {
    std::ifstream f(custom_dir() + "/manifest.json");
    return nlohmann::json::parse(f);
  }();
  return m;
}

std::shared_ptr<KernelRegistry> registry_with(std::vector<DType> dtypes) {
  auto r = std::make_shared<KernelRegistry>(KernelRegistry::global());
  const Status st =
      r->add_custom({"mylib::scaled_add", std::move(dtypes), &kernels::make_kernel<ScaledAdd>});
  EXPECT_TRUE(st.ok()) << st.message();
  return r;
}

Result<importer::ImportSummary> import(const nlohmann::json& f, const TempDir& tmp,
                                       std::vector<std::string> custom_ops) {
  importer::ImportOptions o;
  o.input = custom_dir() + "/" + f["dir"].get<std::string>() + "/program.pt2";
  o.model_path = tmp.file("m.tir");
  o.weights_path = tmp.file("m.bin");
  o.custom_ops = std::move(custom_ops);
  return importer::import_pt2(o);
}

TEST(CustomOp, RegisteredKernelMatchesTorch) {
  ASSERT_EQ(custom_manifest()["fixtures"].size(), 2u);  // training and core
  for (const auto& f : custom_manifest()["fixtures"]) {
    for (const bool reference : {false, true}) {
      SCOPED_TRACE(f["dir"].get<std::string>() + (reference ? " reference" : " cpu"));
      TempDir tmp;
      auto imported = import(f, tmp, {"mylib::scaled_add"});
      ASSERT_TRUE(imported.ok()) << imported.status().message();
      SessionOptions o;
      auto registry = registry_with({DType::kFloat32});
      o.devices = {reference ? make_reference_device(registry) : make_cpu_device(registry)};
      auto session = Session::open(tmp.file("m.tir"), tmp.file("m.bin"), o);
      ASSERT_TRUE(session.ok()) << session.status().message();
      const std::string dir = custom_dir() + "/" + f["dir"].get<std::string>();
      const auto inputs = read_all(dir, f["inputs"]);
      const auto want = read_all(dir, f["outputs"]);
      alpha_given = alpha_defaulted = 0;
      auto got = (*session)->run(views(inputs));
      ASSERT_TRUE(got.ok()) << got.status().message();
      ASSERT_EQ(got->size(), want.size());
      for (size_t k = 0; k < want.size(); ++k)
        EXPECT_TRUE(testing::all_close((*got)[k], want[k].view(), f["rtol"], f["atol"]));
      // One call passes alpha = 0.5, the other leaves it to the default (omitted by export).
      EXPECT_EQ(alpha_given.load(), 1);
      EXPECT_EQ(alpha_defaulted.load(), 1);
    }
  }
}

TEST(CustomOp, UnregisteredKernelFailsAtOpen) {
  const auto& f = custom_manifest()["fixtures"][1];
  TempDir tmp;
  auto imported = import(f, tmp, {"mylib::scaled_add"});
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  auto session = Session::open(tmp.file("m.tir"), tmp.file("m.bin"));
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), StatusCode::kUnsupported);
  const std::string msg = session.status().message();
  EXPECT_NE(msg.find("node 'scaled_add' calls custom op mylib::scaled_add, which has no "
                     "registered kernel"),
            std::string::npos)
      << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;

  // Registered for another dtype only: the dtype is what is missing.
  SessionOptions o;
  o.devices = {make_cpu_device(registry_with({DType::kInt64}))};
  session = Session::open(tmp.file("m.tir"), tmp.file("m.bin"), o);
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.status().message().find("mylib::scaled_add has no CPU kernel for dtype "
                                            "float32"),
            std::string::npos)
      << session.status().message();
}

TEST(CustomOp, ImportWithoutFlagFails) {
  for (const auto& f : custom_manifest()["fixtures"]) {
    TempDir tmp;
    auto imported = import(f, tmp, {});
    ASSERT_FALSE(imported.ok());
    EXPECT_EQ(imported.status().code(), StatusCode::kUnsupported);
    const std::string msg = imported.status().message();
    EXPECT_NE(msg.find("mylib::scaled_add (x2, first at node 'scaled_add')"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("--custom-op mylib::scaled_add"), std::string::npos) << msg;
    // Another custom op named does not keep this one; an ATen name is no custom op.
    EXPECT_FALSE(import(f, tmp, {"mylib::other"}).ok());
    auto aten = import(f, tmp, {"aten::relu"});
    ASSERT_FALSE(aten.ok());
    EXPECT_NE(aten.status().message().find("--custom-op 'aten::relu': not a custom op name"),
              std::string::npos)
        << aten.status().message();
  }
}

TEST(CustomOp, ImportKeepsArgumentsByName) {
  const auto& f = custom_manifest()["fixtures"][0];
  TempDir tmp;
  ASSERT_TRUE(import(f, tmp, {"mylib::scaled_add"}).ok());
  auto model = read_file(tmp.file("m.tir"));
  ASSERT_TRUE(model.ok());
  auto view = ir::ModelView::open(*model, "m.tir");
  ASSERT_TRUE(view.ok()) << view.status().message();
  std::vector<std::vector<std::string>> arg_names;
  for (const ir::fb::Node* n : *view->model().methods()->Get(0)->nodes()) {
    if (ir::str(n->op()) != "mylib::scaled_add") continue;
    arg_names.emplace_back();
    for (const ir::fb::Argument* a : *n->args()) arg_names.back().emplace_back(ir::str(a->name()));
  }
  using Names = std::vector<std::string>;
  EXPECT_EQ(arg_names, (std::vector<Names>{{"x", "y", "alpha"}, {"x", "y"}}));
}

TEST(CustomOp, RegistryRules) {
  EXPECT_TRUE(kernels::is_custom_op("mylib::scaled_add"));
  EXPECT_TRUE(kernels::is_custom_op("torchvision::nms"));
  EXPECT_TRUE(kernels::is_custom_op("mylib::op.overload"));
  for (const char* op : {"aten::relu", "prims::add", "higher_order::cond", "tir::copy",
                         "quantized_decomposed::quantize_per_tensor", "_operator::getitem", "relu",
                         "::relu", "mylib::"})
    EXPECT_FALSE(kernels::is_custom_op(op)) << op;

  KernelRegistry r;
  const auto make = &kernels::make_kernel<ScaledAdd>;
  EXPECT_FALSE(r.add_custom({"aten::add.Tensor", {}, make}).ok());
  EXPECT_FALSE(r.add_custom({"mylib::scaled_add", {}, nullptr}).ok());
  ASSERT_TRUE(r.add_custom({"mylib::scaled_add", {DType::kFloat32, DType::kFloat32}, make}).ok());
  const Status twice = r.add_custom({"mylib::scaled_add", {DType::kFloat32}, make});
  EXPECT_NE(twice.message().find("registered twice"), std::string::npos) << twice.message();
  EXPECT_TRUE(r.add_custom({"mylib::scaled_add", {DType::kFloat64}, make}).ok());
  EXPECT_TRUE(r.registration_status().ok());
  const kernels::KernelEntry* e = r.find("mylib::scaled_add", DeviceType::kCpu, DType::kFloat32);
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->make(), nullptr);
  EXPECT_EQ(r.find("mylib::scaled_add", DeviceType::kCpu, DType::kInt64), nullptr);
}

}  // namespace
}  // namespace tir
