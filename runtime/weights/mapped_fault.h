// A file truncated by someone else while this process has it mapped: reading its lost pages
// raises SIGBUS (the kernel unmaps them from every mapping; MAP_POPULATE and mlock do not
// prevent it). Session::run checks each weight file's size before it starts
// (WeightSet::check_mapped), which leaves the window of a truncation during the run. There
// the process cannot go on: the fault may hit any thread (OpenMP workers, weight readers)
// while it holds locks, so jumping out of the run would leave the library in an unknown
// state. What a tool can do is end with one error line naming the file instead of dying by
// signal: report_truncated_mapped_files() installs a SIGBUS handler that does only that, for
// faults inside the files data_source_mmap mapped (any other SIGBUS keeps its default).
#pragma once

#include <cstddef>
#include <string_view>

namespace tir {

/// Installs the handler (once; later calls do nothing). A SIGBUS whose address lies inside a
/// file mapped by data_source_mmap writes
///   error: file '<path>': byte <N> cannot be read: the file was truncated while in use
///   (now <K> bytes, <M> mapped)
/// to stderr and ends the process with status 1 (_exit: no destructors or buffered output).
/// Only async-signal-safe calls are made (fstat, write, _exit). For command-line tools;
/// a library embedder decides its own signal handling.
void report_truncated_mapped_files();

/// The mappings the handler knows (data_source_mmap registers each file it maps, its
/// destructor unregisters it). A fixed table: a mapping made while it is full is not
/// reported (the default action applies). Returns the slot, or -1.
int register_mapped_file(const void* addr, size_t size, int fd, std::string_view path);
void unregister_mapped_file(int slot);

}  // namespace tir
