// The one version of tir, for every tool's --version, tir_version() in the C ABI and the
// Python module's __version__.
#pragma once

namespace tir {

/// The project version from meson.build ("0.1.0"), followed by "+g<revision>" when the build
/// was configured from a git checkout ("0.1.0+g783b056ab"; PEP 440 local-version form). A
/// static string: never freed. [any thread]
const char* version_string();

}  // namespace tir
