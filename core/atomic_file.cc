#include "core/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/regular_file.h"

namespace tir {
namespace {

/// Removes `<path>.tmp.<pid>` (and `.tmp.<pid>.old`) files left by writers that were
/// killed (their pid is gone),
/// so interrupted imports do not pile up half-written files beside the target.
void remove_stale_temporaries(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const std::string prefix = target.filename().string() + ".tmp.";
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(prefix) || name.size() == prefix.size()) continue;
    // "<pid>" (a writer's temporary) or "<pid>.old" (a backup kept while a pair is replaced).
    std::string pid_text = name.substr(prefix.size());
    if (pid_text.ends_with(".old")) pid_text.resize(pid_text.size() - 4);
    if (pid_text.empty() || pid_text.size() > 9 ||
        !std::all_of(pid_text.begin(), pid_text.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    const long pid = std::stol(pid_text);
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) ::unlink(it->path().c_str());
  }
}

/// Where the file goes: `path` if nothing or a regular file is there, the file a symbolic
/// link there points to if that is a regular file. Anything else is refused: renaming over a
/// device node, FIFO, socket or directory would destroy it (as root, `-o /dev/null` would
/// replace the device), and writes into one could never be checked.
Result<std::string> replaceable_path(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return path;  // nothing there yet
  if (S_ISREG(st.st_mode)) return path;
  if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const auto target = std::filesystem::canonical(path, ec);
    if (ec)
      return make_error(StatusCode::kInvalidArgument, "'", path,
                        "' is a symbolic link to nothing; not replaced (remove it first)");
    if (::stat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return target.string();
    return make_error(StatusCode::kInvalidArgument, "'", path, "' links to ", file_kind(st.st_mode),
                      " ('", target.string(), "'); only a regular file is replaced");
  }
  return make_error(StatusCode::kInvalidArgument, "'", path, "' is ", file_kind(st.st_mode),
                    "; only a regular file is replaced (write to a file path)");
}

}  // namespace

Result<std::unique_ptr<AtomicFile>> AtomicFile::create(const std::string& destination) {
  TIR_ASSIGN_OR_RETURN(const std::string path, replaceable_path(destination));
  remove_stale_temporaries(path);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return make_error(StatusCode::kIo, "'", path, "': cannot create (", std::strerror(errno), ")");
  return std::unique_ptr<AtomicFile>(new AtomicFile(path, tmp, fd));
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(tmp_.c_str());
}

Status AtomicFile::io_error(const char* what) const {
  return make_error(StatusCode::kIo, "'", path_, "': ", what, " failed (", std::strerror(errno),
                    ")");
}

Status AtomicFile::write(std::span<const uint8_t> bytes) {
  TIR_RETURN_IF_ERROR(write_at(size_, bytes));
  size_ += bytes.size();
  return ok_status();
}

Status AtomicFile::write_zeros(uint64_t n) {
  static const std::vector<uint8_t> kZeros(4096, 0);
  while (n > 0) {
    const size_t k = n < kZeros.size() ? static_cast<size_t>(n) : kZeros.size();
    TIR_RETURN_IF_ERROR(write(std::span<const uint8_t>(kZeros.data(), k)));
    n -= k;
  }
  return ok_status();
}

Status AtomicFile::write_at(uint64_t offset, std::span<const uint8_t> bytes) {
  if (fd_ < 0) return make_error(StatusCode::kInternal, "'", path_, "': write after close");
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n =
        ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error("write");
    }
    done += static_cast<size_t>(n);
  }
  return ok_status();
}

Status AtomicFile::sync() {
  if (fd_ < 0) return ok_status();
  if (::fsync(fd_) != 0) return io_error("fsync");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return io_error("close");
  return ok_status();
}

Status AtomicFile::commit() {
  TIR_RETURN_IF_ERROR(sync());
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) return io_error("rename");
  committed_ = true;
  return ok_status();
}

}  // namespace tir
