// Shared by the benchmarks that run whole programs: the fixture folder, and a Session over a
// fixture's program imported into a temp folder (outside the timed loop).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "importer/import_pt2.h"
#include "runtime/exec/session.h"

namespace tir::bench {

/// tests/data/fixtures/ (or $TIR_TEST_DATA/fixtures/), with a trailing slash.
inline std::string fixture_root() {
  const char* d = std::getenv("TIR_TEST_DATA");
  return std::string(d ? d : TIR_SOURCE_ROOT "/tests/data") + "/fixtures/";
}

/// Imports `dir`/program.pt2 into a temp folder named after `tag` and opens a session.
inline Result<std::unique_ptr<Session>> import_and_open(const std::string& dir,
                                                        const std::string& tag,
                                                        const SessionOptions& options = {}) {
  const std::string tmp = std::filesystem::temp_directory_path() / ("tir_bench_" + tag);
  std::filesystem::create_directories(tmp);
  importer::ImportOptions o;
  o.input = dir + "/program.pt2";
  o.model_path = tmp + "/m.tir";
  o.weights_path = tmp + "/m.bin";
  TIR_RETURN_IF_ERROR(importer::import_pt2(o).status());
  return Session::open(o.model_path, o.weights_path, options);
}

}  // namespace tir::bench
