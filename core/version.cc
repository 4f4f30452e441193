#include "core/version.h"

#include "core/version_rev.h"  // TIR_GIT_REVISION, generated at build time (vcs_tag)

namespace tir {

const char* version_string() {
  static const char* const kVersion = sizeof(TIR_GIT_REVISION) > 1 ? TIR_PROJECT_VERSION
                                          "+g" TIR_GIT_REVISION
                                                                   : TIR_PROJECT_VERSION;
  return kVersion;
}

}  // namespace tir
