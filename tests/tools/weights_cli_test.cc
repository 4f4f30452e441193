// `tirc weights pack|diff|extract` and `tirrun --weights A --weights B` on the fixtures of
// tests/data/gen_weights.py (GPT-2: A seed 0, B seed 1, C = A with layer h.1 of B).
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/common/cli_util.h"

namespace tir::tools {
namespace {

using testing::expect_one_error_line;
using testing::Proc;
using testing::q;
using testing::slurp;
using testing::TempDir;
using testing::tirc;
using testing::tirrun;

std::string wfile(const std::string& name) { return testing::fixture_dir() + "/weights/" + name; }

/// tirc import <name>.pt2 -> tmp/<name>.tir + tmp/<name>.bin
void import_program(const std::string& name, const TempDir& tmp) {
  const Proc p = tirc("import " + q(wfile(name + ".pt2")) + " -o " + q(tmp.file(name + ".tir")) +
                      " --weights " + q(tmp.file(name + ".bin")));
  ASSERT_EQ(p.code, 0) << p.err;
}

size_t count_lines(const std::string& text, const std::string& prefix) {
  size_t n = 0;
  for (size_t at = 0; at < text.size();) {
    const size_t end = text.find('\n', at);
    if (text.compare(at, prefix.size(), prefix) == 0) ++n;
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return n;
}

TEST(WeightsCli, OverlayRunEqualsFreshImportBitwise) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  ASSERT_NO_FATAL_FAILURE(import_program("C", tmp));
  const std::string in = q(wfile("input_0.npy"));
  const Proc over =
      tirrun(q(tmp.file("A.tir")) + " --weights " + q(tmp.file("A.bin")) + " --weights " +
             q(wfile("partial.safetensors")) + " " + in + " -o " + q(tmp.file("over")));
  ASSERT_EQ(over.code, 0) << over.err;
  EXPECT_NE(over.out.find("weights " + tmp.file("A.bin") + " + " + wfile("partial.safetensors")),
            std::string::npos)
      << over.out;
  const Proc fresh = tirrun(q(tmp.file("C.tir")) + " --weights " + q(tmp.file("C.bin")) + " " + in +
                            " -o " + q(tmp.file("fresh")));
  ASSERT_EQ(fresh.code, 0) << fresh.err;
  const std::string got = slurp(tmp.file("over/output_0.npy"));
  EXPECT_FALSE(got.empty());
  EXPECT_EQ(got, slurp(tmp.file("fresh/output_0.npy")));
  // Without the overlay the output is A's, not C's.
  const Proc plain = tirrun(q(tmp.file("A.tir")) + " --weights " + q(tmp.file("A.bin")) + " " + in +
                            " -o " + q(tmp.file("plain")));
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_NE(slurp(tmp.file("plain/output_0.npy")), got);
}

TEST(WeightsCli, BadOverlayIsOneErrorLine) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  // The bf16 copy of A has every tensor under the right name but another dtype.
  const Proc p = tirrun(q(tmp.file("A.tir")) + " --weights " + q(tmp.file("A.bin")) +
                        " --weights " + q(wfile("A_bf16.safetensors")) + " " +
                        q(wfile("input_0.npy")) + " -o " + q(tmp.file("out")));
  expect_one_error_line(p, "overlay '" + wfile("A_bf16.safetensors") + "': tensor '");
  EXPECT_NE(p.err.find("is bfloat16["), std::string::npos) << p.err;
  EXPECT_FALSE(std::filesystem::exists(tmp.file("out/output_0.npy")));
}

TEST(WeightsCli, DiffListsChangesAndSummary) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  ASSERT_NO_FATAL_FAILURE(import_program("C", tmp));
  // Exit status as diff and cmp: 0 equal, 1 different, 2 error.
  Proc p = tirc("weights diff " + q(tmp.file("A.bin")) + " " + q(tmp.file("C.bin")));
  ASSERT_EQ(p.code, 1) << p.err;
  EXPECT_EQ(count_lines(p.out, "differs    model.transformer.h.1."), 12u) << p.out;
  EXPECT_EQ(count_lines(p.out, "differs    "), 12u) << p.out;
  EXPECT_NE(p.out.find("summary: 28 common (16 equal, 12 differ, 0 changed dtype/shape), 0 only "
                       "in A, 0 only in B; largest max abs diff "),
            std::string::npos)
      << p.out;

  p = tirc("weights diff " + q(tmp.file("A.bin")) + " " + q(wfile("partial.safetensors")));
  ASSERT_EQ(p.code, 1) << p.err;
  EXPECT_EQ(count_lines(p.out, "only in A  "), 16u) << p.out;
  EXPECT_NE(p.out.find("summary: 12 common (0 equal, 12 differ, 0 changed dtype/shape), 16 only "
                       "in A, 0 only in B"),
            std::string::npos)
      << p.out;

  p = tirc("weights diff " + q(wfile("A_fp16.safetensors")) + " " + q(wfile("B.safetensors")));
  ASSERT_EQ(p.code, 1) << p.err;
  EXPECT_NE(p.out.find("changed    model.transformer.wte.weight  float16[64, 32] -> "
                       "float32[64, 32]\n"),
            std::string::npos)
      << p.out;
  EXPECT_NE(p.out.find("summary: 29 common (0 equal, 0 differ, 29 changed dtype/shape), 0 only "
                       "in A, 0 only in B\n"),
            std::string::npos)
      << p.out;
  p = tirc("weights diff " + q(tmp.file("A.bin")) + " " + q(tmp.file("no.bin")));
  expect_one_error_line(p, tmp.file("no.bin"));
  EXPECT_EQ(p.code, 2);
  // The same file: equal, exit 0.
  p = tirc("weights diff " + q(tmp.file("A.bin")) + " " + q(tmp.file("A.bin")));
  EXPECT_EQ(p.code, 0) << p.out << p.err;
  EXPECT_NE(p.out.find("summary: 28 common (28 equal, 0 differ"), std::string::npos) << p.out;
  p = tirc("weights diff " + q(tmp.file("A.bin")) + " " + q(tmp.file("A.bin")) + " --tolerance -1");
  EXPECT_EQ(p.code, 2) << p.err;
}

TEST(WeightsCli, DiffToleranceCountsRoundingAsEqual) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  Proc p = tirc("weights pack " + q(tmp.file("A.bin")) + " -o " + q(tmp.file("a16.bin")) +
                " --dtype bf16");
  ASSERT_EQ(p.code, 0) << p.err;
  // bf16 rounding of these weights moves each by well under 0.1 and more than 1e-9.
  p = tirc("weights diff " + q(tmp.file("A.bin")) + " " + q(tmp.file("a16.bin")) +
           " --tolerance 0.1");
  EXPECT_EQ(p.code, 0) << p.out << p.err;
  EXPECT_NE(p.out.find("summary: 28 common (0 equal, 28 within 0.1, 0 differ"), std::string::npos)
      << p.out;
  p = tirc("weights diff " + q(tmp.file("A.bin")) + " " + q(tmp.file("a16.bin")) +
           " --tolerance 1e-9");
  EXPECT_EQ(p.code, 1) << p.out << p.err;
  EXPECT_NE(p.out.find("0 within 1e-09, 28 differ"), std::string::npos) << p.out;
}

TEST(WeightsCli, ExtractWritesWhatImportWrites) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("B", tmp));
  const Proc p = tirc("weights extract " + q(wfile("B.pt2")) + " -o " + q(tmp.file("x.bin")));
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.out.find("extracted 28 tensors"), std::string::npos) << p.out;
  EXPECT_EQ(slurp(tmp.file("x.bin")), slurp(tmp.file("B.bin")));
  // A fresh export of the same model swaps straight in: A's graph, B's extracted weights.
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  const Proc run = tirrun(q(tmp.file("A.tir")) + " --weights " + q(tmp.file("x.bin")) + " " +
                          q(wfile("input_0.npy")) + " -o " + q(tmp.file("out")));
  ASSERT_EQ(run.code, 0) << run.err;
  const Proc fresh = tirrun(q(tmp.file("B.tir")) + " --weights " + q(tmp.file("B.bin")) + " " +
                            q(wfile("input_0.npy")) + " -o " + q(tmp.file("fresh")));
  ASSERT_EQ(fresh.code, 0) << fresh.err;
  EXPECT_EQ(slurp(tmp.file("out/output_0.npy")), slurp(tmp.file("fresh/output_0.npy")));
  // A file that is not an archive: one error line, no output file.
  expect_one_error_line(
      tirc("weights extract " + q(wfile("B.safetensors")) + " -o " + q(tmp.file("y.bin"))),
      "B.safetensors");
  EXPECT_FALSE(std::filesystem::exists(tmp.file("y.bin")));
}

TEST(WeightsCli, PackCompressedNarrowRunsAndDiffShowsRounding) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  Proc p = tirc("weights pack " + q(wfile("B.safetensors")) + " -o " + q(tmp.file("bz.bin")) +
                " --compress zstd");
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.out.find("packed 29 tensors"), std::string::npos) << p.out;
  p = tirc("weights diff " + q(wfile("B.safetensors")) + " " + q(tmp.file("bz.bin")));
  EXPECT_NE(p.out.find("summary: 29 common (29 equal, 0 differ"), std::string::npos) << p.out;

  p = tirc("weights pack " + q(tmp.file("A.bin")) + " -o " + q(tmp.file("a16.bin")) +
           " --dtype bf16 --compress zstd");
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.out.find("28 float32 stored as bfloat16"), std::string::npos) << p.out;
  p = tirc("weights diff " + q(tmp.file("A.bin")) + " " + q(tmp.file("a16.bin")));
  EXPECT_NE(p.out.find("summary: 28 common (0 equal, 28 differ"), std::string::npos) << p.out;
  const Proc run = tirrun(q(tmp.file("A.tir")) + " --weights " + q(tmp.file("a16.bin")) + " " +
                          q(wfile("input_0.npy")));
  EXPECT_EQ(run.code, 0) << run.err;

  expect_one_error_line(tirc("weights pack " + q(tmp.file("A.bin")) + " -o " +
                             q(tmp.file("x.bin")) + " --dtype int8"),
                        "--dtype");
  expect_one_error_line(
      tirc("weights pack " + q(wfile("input_0.npy")) + " -o " + q(tmp.file("x.bin"))),
      "neither a tir weight file nor safetensors");
  EXPECT_FALSE(std::filesystem::exists(tmp.file("x.bin")));
}

TEST(WeightsCli, PackToSafetensorsRoundTripsAndRuns) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_program("A", tmp));
  // tir weight file -> safetensors: same tensors bit for bit (the tied lm_head written under
  // its own name, as torch's writer does), and the model runs on it with torch's output.
  Proc p = tirc("weights pack " + q(tmp.file("A.bin")) + " -o " + q(tmp.file("a.safetensors")));
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.out.find("(1 aliases copied)"), std::string::npos) << p.out;
  p = tirc("weights diff " + q(tmp.file("A.bin")) + " " + q(tmp.file("a.safetensors")));
  EXPECT_NE(p.out.find("summary: 28 common (28 equal, 0 differ"), std::string::npos) << p.out;
  Proc run = tirrun(q(tmp.file("A.tir")) + " --weights " + q(tmp.file("a.safetensors")) + " " +
                    q(wfile("input_0.npy")) + " -o " + q(tmp.file("out_a")));
  ASSERT_EQ(run.code, 0) << run.err;
  // The file torch's safetensors wrote, re-written by tir: the same tensors, and the model
  // on it prints the same output as on torch's file.
  p = tirc("weights pack " + q(wfile("B.safetensors")) + " -o " + q(tmp.file("b.safetensors")));
  ASSERT_EQ(p.code, 0) << p.err;
  p = tirc("weights diff " + q(wfile("B.safetensors")) + " " + q(tmp.file("b.safetensors")));
  EXPECT_NE(p.out.find("summary: 29 common (29 equal, 0 differ"), std::string::npos) << p.out;
  run = tirrun(q(tmp.file("A.tir")) + " --weights " + q(tmp.file("b.safetensors")) + " " +
               q(wfile("input_0.npy")) + " -o " + q(tmp.file("out_b")));
  ASSERT_EQ(run.code, 0) << run.err;
  const Proc torch_file = tirrun(q(tmp.file("A.tir")) + " --weights " + q(wfile("B.safetensors")) +
                                 " " + q(wfile("input_0.npy")) + " -o " + q(tmp.file("out_t")));
  ASSERT_EQ(torch_file.code, 0) << torch_file.err;
  EXPECT_FALSE(slurp(tmp.file("out_b/output_0.npy")).empty());
  EXPECT_EQ(slurp(tmp.file("out_b/output_0.npy")), slurp(tmp.file("out_t/output_0.npy")));
  // Narrowing and compression are tir weight file features.
  expect_one_error_line(tirc("weights pack " + q(tmp.file("A.bin")) + " -o " +
                             q(tmp.file("x.safetensors")) + " --compress zstd"),
                        "safetensors");
  EXPECT_FALSE(std::filesystem::exists(tmp.file("x.safetensors")));
}

TEST(WeightsCli, EverySubcommandHasHelp) {
  for (const char* sub : {"weights", "weights pack", "weights diff", "weights extract"}) {
    const Proc p = tirc(std::string(sub) + " --help");
    EXPECT_EQ(p.code, 0) << sub;
    EXPECT_NE(p.out.find("Usage:"), std::string::npos) << p.out;
  }
  const Proc p = tirrun("--help");
  EXPECT_NE(p.out.find("partial set laid over"), std::string::npos) << p.out;
}

}  // namespace
}  // namespace tir::tools
