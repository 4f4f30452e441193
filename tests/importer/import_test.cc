// Imports every fixture of tests/data/fixtures/manifest.json and the malformed archives in
// fixtures/bad/, checking the .tir and weight file with the ir/ readers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>

#include "../common/test_util.h"
#include "importer/graph_builder.h"
#include "importer/import_pt2.h"
#include "importer/program_json.h"
#include "importer/pt2_archive.h"
#include "ir/model.h"
#include "ir/sym_expr.h"
#include "ir/weight_file.h"

namespace tir::importer {
namespace {

using tir::testing::file_bytes;
using tir::testing::fixture_dir;
using tir::testing::TempDir;

Result<ImportSummary> import_into(const TempDir& dir, const std::string& pt2, bool check = false) {
  ImportOptions o;
  o.input = pt2;
  o.model_path = dir.file("model.tir");
  o.weights_path = dir.file("model.bin");
  o.check_kernels = check;
  return import_pt2(o);
}

const fb::Node* find_node(const fb::Method& m, std::string_view op) {
  for (const fb::Node* n : *m.nodes())
    if (ir::str(n->op()) == op) return n;
  return nullptr;
}

const fb::Argument* find_arg(const fb::Node& n, std::string_view name) {
  for (const fb::Argument* a : *n.args())
    if (ir::str(a->name()) == name) return a;
  return nullptr;
}

TEST(ImportFixtures, EveryFixtureImportsAndVerifies) {
  const nlohmann::json manifest = tir::testing::manifest();
  ASSERT_FALSE(manifest["fixtures"].empty());
  for (const auto& fx : manifest["fixtures"]) {
    const std::string pt2 = fixture_dir() + "/" + fx["dir"].get<std::string>() + "/program.pt2";
    SCOPED_TRACE(pt2);
    TempDir dir;
    auto sum = import_into(dir, pt2);
    ASSERT_TRUE(sum.ok()) << sum.status().message();

    const std::vector<uint8_t> tir = file_bytes(sum->model_path);
    auto view = ir::ModelView::open(tir, sum->model_path);
    ASSERT_TRUE(view.ok()) << view.status().message();
    const std::vector<uint8_t> bin = file_bytes(sum->weights_path);
    auto wf = ir::WeightFileView::open(bin, sum->weights_path);
    ASSERT_TRUE(wf.ok()) << wf.status().message();
    EXPECT_EQ(view->model().weight_signature(), wf->signature());
    ASSERT_EQ(view->model().weights()->size(), wf->index().entries()->size());
    for (const fb::WeightEntry* e : *wf->index().entries()) {
      EXPECT_TRUE(ir::verify_entry_checksum(*wf, *e, sum->weights_path).ok());
      EXPECT_EQ(e->offset() % 64, 0u);
    }

    const fb::Method* m = view->method("forward");
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->nodes()->size(), sum->nodes);
    std::map<std::string, int> ops;
    for (const fb::Node* n : *m->nodes()) ops[std::string(ir::str(n->op()))]++;
    std::map<std::string, int> expect_ops;
    for (const auto& [op, count] : fx["ops"].items()) expect_ops[op] = count.get<int>();
    bool inlined_hop = false;  // manifest counts only top-level nodes; subgraphs get spliced in
    if (fx.contains("other_targets"))
      for (const auto& [target, count] : fx["other_targets"].items()) {
        inlined_hop = inlined_hop || target.find("higher_order.wrap_with_") != std::string::npos;
        if (target == "torch.ops.higher_order.cond")  // stays a node; its branches are subgraphs
          expect_ops["higher_order::cond"] += count.get<int>();
      }
    if (!inlined_hop) {
      EXPECT_EQ(ops, expect_ops);
    } else {
      for (const auto& [op, count] : expect_ops) EXPECT_GE(ops[op], count) << op;
      for (const auto& [op, count] : ops) EXPECT_FALSE(op.starts_with("higher_order::")) << op;
    }

    ASSERT_EQ(m->inputs()->size(), fx["inputs"].size());
    for (size_t i = 0; i < fx["inputs"].size(); ++i) {
      const fb::Value* v = m->values()->Get(m->inputs()->Get(i));
      EXPECT_EQ(ir::str(v->name()), fx["inputs"][i]["name"].get<std::string>());
      std::vector<int64_t> shape;
      for (const fb::Dim* d : *v->sizes()) shape.push_back(d->value());
      EXPECT_EQ(shape, fx["inputs"][i]["shape"].get<std::vector<int64_t>>());
    }
    EXPECT_EQ(m->outputs()->size(), fx["outputs"].size());

    // Every weight's bytes equal its blob in the archive (all fixture weights are whole).
    auto archive = Pt2Archive::open(pt2);
    ASSERT_TRUE(archive.ok());
    auto program = read_program(**archive, "model");
    ASSERT_TRUE(program.ok());
    const auto& config = program->weights_config["config"];
    for (const fb::WeightEntry* e : *wf->index().entries()) {
      const std::string member =
          "data/weights/" + config[std::string(ir::str(e->name()))]["path_name"].get<std::string>();
      auto blob = (*archive)->read(member, 1 << 30);
      ASSERT_TRUE(blob.ok());
      ASSERT_EQ(blob->size(), e->byte_size());
      EXPECT_EQ(std::memcmp(blob->data(), wf->stored_bytes(*e).data(), blob->size()), 0);
    }
  }
}

TEST(ImportFixtures, Conv2dDefaultsAreFilled) {
  TempDir dir;
  auto sum = import_into(dir, fixture_dir() + "/conv_constant/training/program.pt2");
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  const std::vector<uint8_t> tir = file_bytes(sum->model_path);
  auto view = ir::ModelView::open(tir, sum->model_path);
  ASSERT_TRUE(view.ok());
  const fb::Node* conv = find_node(*view->method("forward"), "aten::conv2d");
  ASSERT_NE(conv, nullptr);
  ASSERT_EQ(conv->args()->size(), 7u);  // input weight bias stride padding dilation groups
  const fb::Argument* dilation = find_arg(*conv, "dilation");
  ASSERT_NE(dilation, nullptr);
  ASSERT_EQ(dilation->value_type(), fb::ArgValue::IntsArg);
  const auto* d = dilation->value_as_IntsArg()->values();
  EXPECT_EQ(std::vector<int64_t>(d->begin(), d->end()), (std::vector<int64_t>{1, 1}));
  const fb::Argument* groups = find_arg(*conv, "groups");
  ASSERT_NE(groups, nullptr);
  ASSERT_EQ(groups->value_type(), fb::ArgValue::IntArg);
  EXPECT_EQ(groups->value_as_IntArg()->value(), 1);
  EXPECT_EQ(ir::str(conv->module_type()), "torch.nn.modules.conv.Conv2d");
  EXPECT_FALSE(ir::str(conv->module_path()).empty());
}

// An int user input (SymInt) keeps its expression over the symbols, which binding solves.
TEST(ImportFixtures, SymIntUserInputRecordsItsSymbol) {
  TempDir dir;
  auto sum = import_into(dir, fixture_dir() + "/dynamic/symint_input/training/program.pt2");
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  const std::vector<uint8_t> tir = file_bytes(sum->model_path);
  auto view = ir::ModelView::open(tir, sum->model_path);
  ASSERT_TRUE(view.ok()) << view.status().message();
  const fb::Method& m = *view->method("forward");
  ASSERT_EQ(m.inputs()->size(), 2u);
  const fb::Value& x = *m.values()->Get(m.inputs()->Get(0));
  const fb::Value& n = *m.values()->Get(m.inputs()->Get(1));
  EXPECT_EQ(ir::str(n.name()), "n");
  EXPECT_EQ(n.kind(), fb::ValueKind::SymInt);
  EXPECT_EQ(n.dtype(), fb::DType::Int64);
  ASSERT_NE(n.expr(), nullptr);
  EXPECT_EQ(x.expr(), nullptr);  // tensors have dims, not an expression
  const std::string n_sym = ir::format_sym_expr(*n.expr(), m.symbols());
  const std::string batch = ir::format_sym_expr(*x.sizes()->Get(0)->expr(), m.symbols());
  EXPECT_THAT(n_sym, ::testing::MatchesRegex("s[0-9]+"));
  EXPECT_NE(n_sym, batch);
}

TEST(ImportFixtures, CoreMultiOutputOpsKeepEveryOutput) {
  TempDir dir;
  auto sum = import_into(dir, fixture_dir() + "/resnet_small/core/program.pt2");
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  const std::vector<uint8_t> tir = file_bytes(sum->model_path);
  auto view = ir::ModelView::open(tir, sum->model_path);
  ASSERT_TRUE(view.ok());
  const fb::Method& m = *view->method("forward");
  const fb::Node* bn = find_node(m, "aten::_native_batch_norm_legit_no_training");
  ASSERT_NE(bn, nullptr);
  EXPECT_EQ(bn->outputs()->size(), 3u);
  const fb::Node* pool = find_node(m, "aten::max_pool2d_with_indices");
  ASSERT_NE(pool, nullptr);
  ASSERT_EQ(pool->outputs()->size(), 2u);
  EXPECT_EQ(m.values()->Get(pool->outputs()->Get(1))->dtype(), fb::DType::Int64);
  // Buffers are weights too, flagged as such.
  size_t buffers = 0;
  for (const fb::WeightRef* w : *view->model().weights()) buffers += w->is_buffer();
  EXPECT_GT(buffers, 0u);
}

struct BadCase {
  const char* file;
  StatusCode code;
};

TEST(ImportBad, EachIsRejectedAndLeavesNoFiles) {
  const nlohmann::json manifest = tir::testing::manifest();
  const std::map<std::string, StatusCode> codes = {
      {"bad/not_a_zip.pt2", StatusCode::kCorrupt},
      {"bad/no_model.pt2", StatusCode::kNotFound},
      {"bad/schema_major_9.pt2", StatusCode::kUnsupported},
      {"bad/short_weight.pt2", StatusCode::kCorrupt},
  };
  ASSERT_EQ(manifest["bad"].size(), codes.size());
  for (const auto& b : manifest["bad"]) {
    const std::string file = b["file"].get<std::string>();
    SCOPED_TRACE(file);
    TempDir dir;
    auto sum = import_into(dir, fixture_dir() + "/" + file);
    ASSERT_FALSE(sum.ok());
    EXPECT_EQ(sum.status().code(), codes.at(file)) << sum.status().message();
    EXPECT_NE(sum.status().message().find(b["expect"].get<std::string>()), std::string::npos)
        << sum.status().message();
    EXPECT_NE(sum.status().message().find(file), std::string::npos) << sum.status().message();
    EXPECT_EQ(dir.num_entries(), 0u);
  }
}

TEST(ImportBad, EntryNamesTwoReadersCouldResolveDifferentlyAreRefused) {
  // tests/data/gen_zip_names.py: the real mlp archive rewritten by Python's zipfile with a
  // second entry for weight_0 (other bytes) under the same name or one that a lenient reader
  // folds onto it, and one whose local header names another entry than the central directory.
  const std::map<std::string, std::string> expect = {
      {"duplicate_weight",
       "zip entry 'program/data/weights/weight_0' duplicates entry "
       "'program/data/weights/weight_0'"},
      {"case_twin",
       "zip entry 'program/data/Weights/weight_0' duplicates entry "
       "'program/data/weights/weight_0'"},
      {"dot_segment", "zip entry 'program/data/./weights/weight_0' duplicates"},
      {"double_slash", "zip entry 'program/data//weights/weight_0' duplicates"},
      {"trailing_slash", "zip entry 'program/data/weights/weight_0/' duplicates"},
      {"backslash", "zip entry 'program/data\\weights/weight_0' duplicates"},
      {"local_header_name", "a local header disagrees with the central directory"},
  };
  for (const auto& [name, needle] : expect) {
    SCOPED_TRACE(name);
    const std::string file = fixture_dir() + "/zip_names/" + name + ".pt2";
    TempDir dir;
    auto sum = import_into(dir, file);
    ASSERT_FALSE(sum.ok());
    EXPECT_EQ(sum.status().code(), StatusCode::kCorrupt) << sum.status().message();
    EXPECT_NE(sum.status().message().find(needle), std::string::npos) << sum.status().message();
    EXPECT_NE(sum.status().message().find(file), std::string::npos) << sum.status().message();
    EXPECT_EQ(dir.num_entries(), 0u);
  }
}

TEST(ImportBad, ShortWeightNamesBlobTensorAndSizes) {
  TempDir dir;
  auto sum = import_into(dir, fixture_dir() + "/bad/short_weight.pt2");
  ASSERT_FALSE(sum.ok());
  EXPECT_THAT(sum.status().message(),
              ::testing::MatchesRegex(".*weight blob 'data/weights/weight_0' for '.*' has [0-9]+ "
                                      "bytes, its metadata needs [0-9]+.*"));
}

TEST(ImportBad, UnsupportedOpsAreListedWithCounts) {
  const nlohmann::json manifest = tir::testing::manifest();
  for (const auto& fx : manifest["fixtures"]) {
    if (!fx.contains("unsupported_ops")) continue;
    const std::string pt2 = fixture_dir() + "/" + fx["dir"].get<std::string>() + "/program.pt2";
    SCOPED_TRACE(pt2);
    TempDir dir;
    auto sum = import_into(dir, pt2, /*check=*/true);
    ASSERT_FALSE(sum.ok());
    EXPECT_EQ(sum.status().code(), StatusCode::kUnsupported);
    const std::string& msg = sum.status().message();
    EXPECT_NE(msg.find("have no kernel"), std::string::npos) << msg;
    for (const auto& [op, count] : fx["unsupported_ops"].items())
      EXPECT_NE(msg.find(op + " (x" + std::to_string(count.get<int>()) + ", first at node '"),
                std::string::npos)
          << msg;
    EXPECT_EQ(dir.num_entries(), 0u);
  }
}

// An in-place write through a view tir cannot write back into the tensor it views
// (importer/view_write_back.cc): one line naming the node, the view and its op, no files,
// never an in-place kernel on the view's copy (fixtures/arch_recurrent, gen_arch_recurrent.py).
TEST(ImportBad, WriteThroughAViewTirCannotWriteBackIsRefused) {
  TempDir dir;
  auto sum =
      import_into(dir, fixture_dir() + "/arch_recurrent/diagonal_write/training/program.pt2");
  ASSERT_FALSE(sum.ok());
  EXPECT_EQ(sum.status().code(), StatusCode::kUnsupported);
  const std::string& msg = sum.status().message();
  EXPECT_NE(msg.find("node 'mul_' (aten::mul_.Tensor) writes in place through 'diagonal', a view "
                     "made by aten::diagonal"),
            std::string::npos)
      << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_EQ(dir.num_entries(), 0u);
}

}  // namespace
}  // namespace tir::importer
