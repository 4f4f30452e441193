// Importing an archive held in memory (ImportOptions::input_bytes, used by the fuzz targets so
// that no input file is written per input) gives the very files an import from disk gives.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "../common/test_util.h"
#include "importer/import_pt2.h"

namespace tir::importer {
namespace {

using tir::testing::file_bytes;
using tir::testing::fixture_dir;
using tir::testing::TempDir;

TEST(ImportFromMemory, GivesTheSameFilesAsImportingTheFile) {
  for (const char* fx : {"mlp/core", "cond_true/core", "legacy/2.5.1/sincos/core"}) {
    SCOPED_TRACE(fx);
    const std::string pt2 = fixture_dir() + "/" + fx + "/program.pt2";
    const std::vector<uint8_t> bytes = file_bytes(pt2);
    ASSERT_FALSE(bytes.empty());
    TempDir disk, memory;
    ImportOptions o;
    o.input = pt2;
    o.model_path = disk.file("m.tir");
    o.weights_path = disk.file("m.bin");
    ASSERT_TRUE(import_pt2(o).ok());
    o.input = "in-memory.pt2";  // never opened
    o.input_bytes = bytes;
    o.model_path = memory.file("m.tir");
    o.weights_path = memory.file("m.bin");
    auto sum = import_pt2(o);
    ASSERT_TRUE(sum.ok()) << sum.status().message();
    EXPECT_EQ(file_bytes(disk.file("m.tir")), file_bytes(memory.file("m.tir")));
    EXPECT_EQ(file_bytes(disk.file("m.bin")), file_bytes(memory.file("m.bin")));
  }
}

TEST(ImportFromMemory, BadBytesAreAnErrorNamingTheLabel) {
  TempDir dir;
  const std::string junk = "PK\x03\x04 not really a zip";
  ImportOptions o;
  o.input = "hostile.pt2";
  o.input_bytes = {reinterpret_cast<const uint8_t*>(junk.data()), junk.size()};
  o.model_path = dir.file("m.tir");
  o.weights_path = dir.file("m.bin");
  auto sum = import_pt2(o);
  ASSERT_FALSE(sum.ok());
  EXPECT_NE(sum.status().message().find("'hostile.pt2': not a zip archive"), std::string::npos)
      << sum.status().message();
  EXPECT_FALSE(std::filesystem::exists(dir.file("m.tir")));
}

}  // namespace
}  // namespace tir::importer
