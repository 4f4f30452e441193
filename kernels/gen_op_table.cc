// gen_op_table OUT.cc: writes the kernel registry's entries as the C++ source of
// kernels::op_table() (kernels/op_table.h). The build runs it after linking the kernels, so
// the generated table always matches the registry it was built with.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "kernels/registry.h"

namespace {

using tir::DeviceType;
using tir::kernels::KernelEntry;
using tir::kernels::KernelImpl;

int fail(const std::string& message) {
  std::fprintf(stderr, "error: gen_op_table: %s\n", message.c_str());
  return 1;
}

std::string_view device_enumerator(DeviceType d) {
  switch (d) {
    case DeviceType::kCpu:
      return "DeviceType::kCpu";
    case DeviceType::kCuda:
      return "DeviceType::kCuda";
  }
  return "";
}

std::string_view impl_enumerator(KernelImpl impl) {
  switch (impl) {
    case KernelImpl::kReference:
      return "KernelImpl::kReference";
    case KernelImpl::kOptimized:
      return "KernelImpl::kOptimized";
  }
  return "";
}

/// `s` as a C++ string literal.
std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gen_op_table OUT.cc\n");
    return 2;
  }
  const auto& registry = tir::kernels::KernelRegistry::global();
  if (const tir::Status s = registry.registration_status(); !s.ok()) return fail(s.message());
  if (registry.entries().empty())
    return fail("the kernel registry is empty (is tir_kernels linked whole?)");

  std::ostringstream os;
  os << "// Generated at build time by kernels/gen_op_table from the kernel registry; do not "
        "edit.\n"
     << "#include \"kernels/op_table.h\"\n\n"
     << "namespace tir::kernels {\nnamespace {\n\n"
     << "constexpr OpTableEntry kEntries[] = {\n";
  for (const KernelEntry& e : registry.entries()) {
    const std::string_view device = device_enumerator(e.device);
    const std::string_view impl = impl_enumerator(e.impl);
    if (device.empty() || impl.empty()) return fail("entry " + e.op + " has an unknown enum value");
    os << "    {" << quoted(e.op) << ", " << device << ", DType{" << static_cast<int>(e.dtype)
       << "}, " << impl << "},  // "
       << (e.dtype == tir::DType::kUndefined ? "any dtype" : tir::dtype_name(e.dtype)) << "\n";
  }
  os << "};\n\n}  // namespace\n\n"
     << "std::span<const OpTableEntry> op_table() { return kEntries; }\n\n"
     << "}  // namespace tir::kernels\n";

  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  out << os.str();
  out.close();
  if (!out) return fail(std::string("cannot write ") + argv[1]);
  return 0;
}
