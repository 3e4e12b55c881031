// RAII read-only memory map of a whole file (POSIX mmap, PROT_READ, MAP_PRIVATE).
// The mapping lives as long as the MappedFile; data() / bytes() point into it. An empty file maps to
// size() == 0 and data() == nullptr. Move-only.
// Errors: FormatError naming the path if the file is missing, not a regular file (a FIFO, directory or
// device is refused before it is opened, so it can never block), or cannot be mapped.
//
// A file that changes while it is mapped (overwritten in place by `cp`, truncated) must not crash the
// process: a read of a mapped page that lies beyond the file's new end raises SIGBUS. open() installs (once
// per process) a SIGBUS handler that, for an address inside a live MappedFile, maps a zero page there and
// marks the mapping faulted, so the read completes (with zeros) and the reader can report the change.
// Faults outside wgrt's mappings go to the previously installed handler (or the default action: the
// process is killed as before). Callers check check_unchanged() after reading what they need.
#pragma once
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <span>
#include <string>

namespace wgrt {

// Throws FormatError unless `path` names an existing regular file (following symlinks); `what` names it in
// the message ("model file", "tokenizer file"). Only stat()s the path: never opens it.
void require_regular_file(const std::string& path, const char* what);

class MappedFile {
 public:
  MappedFile() = default;
  static MappedFile open(const std::string& path);
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

  // True once a read of this mapping hit a page past the file's end (that read saw zeros).
  bool faulted() const;
  // Throws FormatError ("... changed or was truncated while it was being read ...") if faulted(), or if the
  // file at path() is still the same file (device, inode) but its size or modification time differs from
  // when it was opened. A file replaced by rename or deleted leaves the mapping intact: no error.
  void check_unchanged() const;

 private:
  void release() noexcept;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  int slot_ = -1;  // index in the SIGBUS guard's table of live mappings (-1: not guarded)
  std::string path_;
  uint64_t dev_ = 0, ino_ = 0;
  timespec mtime_{};
};

}  // namespace wgrt
