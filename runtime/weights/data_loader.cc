#include "runtime/weights/data_loader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/atomic_file.h"
#include "core/regular_file.h"
#include "runtime/weights/mapped_fault.h"

namespace tir {
namespace {

Status os_error(std::string_view what, const std::string& path) {
  return make_error(errno == ENOENT ? StatusCode::kNotFound : StatusCode::kIo, "cannot ", what,
                    " '", path, "': ", std::strerror(errno));
}

class MmapSource final : public DataSource {
 public:
  MmapSource(void* addr, size_t size, int fd, std::string name)
      : addr_(addr), size_(size), fd_(fd), name_(std::move(name)) {
    fault_slot_ = register_mapped_file(addr_, size_, fd_, name_);
  }
  ~MmapSource() override {
    unregister_mapped_file(fault_slot_);
    if (addr_) munmap(addr_, size_);
    if (fd_ >= 0) ::close(fd_);
  }
  uint64_t current_size() const override {
    struct stat st;
    if (fd_ < 0 || fstat(fd_, &st) != 0) return size_;
    return static_cast<uint64_t>(st.st_size);
  }
  std::span<const uint8_t> bytes() const override {
    return {static_cast<const uint8_t*>(addr_), size_};
  }
  const std::string& name() const override { return name_; }
  void prefetch(size_t offset, size_t size) const override {
#ifdef MADV_POPULATE_READ
    if (offset >= size_ || size == 0) return;
    size = std::min(size, size_ - offset);
    static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t start = offset / page * page;
    // Best effort: a kernel before 5.14 lacks MADV_POPULATE_READ (EINVAL); then the pages
    // simply fault in as they are read.
    madvise(static_cast<uint8_t*>(addr_) + start, offset + size - start, MADV_POPULATE_READ);
#else
    (void)offset, (void)size;
#endif
  }
  void drop_pages(size_t offset, size_t size) const override {
    if (offset >= size_ || size == 0) return;
    size = std::min(size, size_ - offset);
    static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    // Only pages wholly inside the range: the neighbours' bytes may still be in use.
    const size_t start = (offset + page - 1) / page * page, end = (offset + size) / page * page;
    // A read-only private mapping: nothing is lost, the pages come back from the file.
    if (end > start) madvise(static_cast<uint8_t*>(addr_) + start, end - start, MADV_DONTNEED);
  }

 private:
  void* addr_;
  size_t size_;
  int fd_;  // kept open so current_size() sees this file even after a rename over its path
  std::string name_;
  int fault_slot_ = -1;  // in the SIGBUS reporter's table (runtime/weights/mapped_fault.h)
};

class BufferSource final : public DataSource {
 public:
  BufferSource(std::vector<uint8_t> bytes, std::string name) : name_(std::move(name)) {
    size_ = bytes.size();
    data_.reset(static_cast<uint8_t*>(std::aligned_alloc(64, (size_ + 63) / 64 * 64 + 64)));
    if (size_) std::memcpy(data_.get(), bytes.data(), size_);
  }
  std::span<const uint8_t> bytes() const override { return {data_.get(), size_}; }
  const std::string& name() const override { return name_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t[], Free> data_;
  size_t size_ = 0;
  std::string name_;
};

}  // namespace

Result<std::shared_ptr<const DataSource>> data_source_mmap(const std::string& path) {
  // O_NONBLOCK: a FIFO where a file is expected fails below instead of blocking the open
  // until a writer comes; it changes nothing for a regular file.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return os_error("open", path);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    Status s = os_error("stat", path);
    ::close(fd);
    return s;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(StatusCode::kInvalidArgument, "'", path, "' is ", file_kind(st.st_mode),
                      ", not a regular file");
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* addr = nullptr;
  if (size > 0) {
    addr = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (addr == MAP_FAILED) {
      Status s = os_error("mmap", path);
      ::close(fd);
      return s;
    }
  }
  return std::shared_ptr<const DataSource>(std::make_shared<MmapSource>(addr, size, fd, path));
}

std::shared_ptr<const DataSource> data_source_from_buffer(std::vector<uint8_t> bytes,
                                                          std::string name) {
  return std::make_shared<BufferSource>(std::move(bytes), std::move(name));
}

Result<std::vector<uint8_t>> read_file(const std::string& path) {
  TIR_ASSIGN_OR_RETURN(auto src, data_source_mmap(path));
  const auto b = src->bytes();
  return std::vector<uint8_t>(b.begin(), b.end());
}

Status write_file_atomic(const std::string& path, std::span<const uint8_t> bytes) {
  TIR_ASSIGN_OR_RETURN(auto file, AtomicFile::create(path));
  TIR_RETURN_IF_ERROR(file->write(bytes));
  TIR_RETURN_IF_ERROR(file->sync());
  return file->commit();
}

}  // namespace tir
