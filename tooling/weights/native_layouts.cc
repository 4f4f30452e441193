#include "tooling/weights/native_layouts.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

extern char** environ;

namespace tir::tools {
namespace {

/// `tirrun` in the folder of this executable, or empty.
std::string tirrun_beside_me() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const std::filesystem::path tirrun = self.parent_path() / "tirrun";
  return std::filesystem::exists(tirrun, ec) ? tirrun.string() : std::string();
}

}  // namespace

Status pack_native_layouts(const NativeLayoutOptions& o) {
  const std::string tirrun = tirrun_beside_me();
  if (tirrun.empty())
    return Status(StatusCode::kNotFound,
                  "--layout native runs `tirrun pack-layouts` (it has the kernels), and there is "
                  "no tirrun beside tirc");
  std::vector<std::string> args = {
      tirrun,      "pack-layouts",           o.model, "--weights", o.weights,
      "--threads", std::to_string(o.threads)};
  for (const std::string& d : o.dims) args.insert(args.end(), {"--dim", d});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout << std::flush;
  pid_t pid = 0;
  if (const int err = posix_spawn(&pid, tirrun.c_str(), nullptr, nullptr, argv.data(), environ))
    return Status(StatusCode::kIo, "cannot run '" + tirrun + "': " + std::strerror(err));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return Status(StatusCode::kIo, "waiting for tirrun pack-layouts failed");
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return ok_status();
  return Status(StatusCode::kInternal, "");  // tirrun printed the error line
}

}  // namespace tir::tools
