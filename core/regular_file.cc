#include "core/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/read_limits.h"

namespace tir {

const char* file_kind(unsigned mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

Result<std::string> read_regular_file(const std::string& path, std::string_view what) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return make_error(errno == ENOENT ? StatusCode::kNotFound : StatusCode::kIo, what, " '", path,
                      "': cannot open (", std::strerror(errno), ")");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return make_error(StatusCode::kIo, what, " '", path, "': cannot stat (", std::strerror(errno),
                      ")");
  if (!S_ISREG(st.st_mode))
    return make_error(StatusCode::kInvalidArgument, what, " '", path, "' is ",
                      file_kind(st.st_mode), ", not a regular file");
  const uint64_t size = uint64_t(st.st_size);
  if (size > read_limits().max_bytes)
    return make_error(StatusCode::kInvalidArgument, what, " '", path, "': ", size,
                      " bytes, above the read limit of ", read_limits().max_bytes,
                      " (--max-bytes)");
  std::string bytes(size_t(size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return make_error(StatusCode::kIo, what, " '", path, "': read failed (", std::strerror(errno),
                        ")");
    if (n == 0) break;  // shrank while read: what is there
    done += size_t(n);
  }
  bytes.resize(done);
  return bytes;
}

}  // namespace tir
