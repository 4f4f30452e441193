// Test helpers for the execution pipeline's units (runtime/passes/exec_graph.h, placement.h,
// plan.h, weight_source.h): a real torch fixture imported and opened as a ModelView with its
// weight set, the manifest entry of a fixture, and devices that lack ops or host access.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/model.h"
#include "runtime/devices/device.h"
#include "runtime/weights/data_loader.h"
#include "runtime/weights/weight_set.h"
#include "tests/runtime/fixture_session.h"

namespace tir::testing {

/// A fixture imported into a temp dir, its model verified and its weights opened.
struct LoadedModel {
  TempDir tmp;
  std::string dir;  // the fixture's directory
  std::shared_ptr<const DataSource> bytes;
  std::optional<ir::ModelView> view;
  const ir::fb::Method* forward = nullptr;
  std::shared_ptr<const WeightSet> weights;
};

/// Imports `<fixture root>/<rel>/program.pt2` and opens it; ASSERT-style failures.
inline void load_model(const std::string& rel, LoadedModel* out) {
  out->dir = fixture_dir() + "/" + rel;
  ASSERT_TRUE(import_fixture(out->dir, out->tmp));
  auto bytes = data_source_mmap(out->tmp.file("m.tir"));
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  out->bytes = *bytes;
  auto view = ir::ModelView::open(out->bytes->bytes(), out->tmp.file("m.tir"));
  ASSERT_TRUE(view.ok()) << view.status().message();
  out->view = *view;
  out->forward = out->view->method("forward");
  ASSERT_NE(out->forward, nullptr);
  auto weights = WeightSet::open(out->tmp.file("m.bin"));
  ASSERT_TRUE(weights.ok()) << weights.status().message();
  out->weights = *weights;
}

/// The entry of `rel` ("gpt2/core") in the manifest at `<fixture root>/<manifest>`.
inline nlohmann::json fixture_entry(const std::string& rel,
                                    const std::string& manifest = "manifest.json") {
  std::ifstream in(fixture_dir() + "/" + manifest);
  const nlohmann::json m = nlohmann::json::parse(in);
  for (const auto& f : m["fixtures"])
    if (f["dir"] == rel) return f;
  ADD_FAILURE() << "no fixture " << rel << " in " << manifest;
  return {};
}

/// A device that behaves like `inner` but has no kernel for `missing` ops and may claim its
/// memory is not host-addressable (as a GPU's is): what placement must cope with.
class RestrictedDevice final : public Device {
 public:
  RestrictedDevice(std::shared_ptr<Device> inner, std::set<std::string, std::less<>> missing,
                   bool host_accessible = true)
      : inner_(std::move(inner)), missing_(std::move(missing)), host_(host_accessible) {}
  std::string_view name() const override { return "restricted"; }
  DeviceType type() const override { return inner_->type(); }
  bool host_accessible() const override { return host_; }
  Result<void*> alloc(size_t bytes, size_t alignment) override {
    return inner_->alloc(bytes, alignment);
  }
  void free(void* ptr) override { inner_->free(ptr); }
  Status copy_from(void* dst, const Device& from, const void* src, size_t bytes) override {
    return inner_->copy_from(dst, from, src, bytes);
  }
  Status copy_to(void* dst, const Device& to, const void* src, size_t bytes) override {
    return inner_->copy_to(dst, to, src, bytes);
  }
  Status synchronize() override { return inner_->synchronize(); }
  const kernels::KernelEntry* find_kernel(std::string_view op, DType dtype) const override {
    return missing_.count(op) ? nullptr : inner_->find_kernel(op, dtype);
  }
  bool supports_op(std::string_view op) const override {
    return !missing_.count(op) && inner_->supports_op(op);
  }
  Precision precision(Precision asked) const override { return inner_->precision(asked); }
  kernels::DeviceContext* context() override { return inner_->context(); }

 private:
  std::shared_ptr<Device> inner_;
  std::set<std::string, std::less<>> missing_;
  bool host_;
};

}  // namespace tir::testing
