// RAII read-only memory map of a whole file (POSIX mmap, PROT_READ, MAP_PRIVATE).
// The mapping lives as long as the MappedFile; data() / bytes() point into it. An empty file maps to
// size() == 0 and data() == nullptr. Move-only.
// Errors: FormatError naming the path if the file is missing, not a regular file, or cannot be mapped.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace wgrt {

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

 private:
  void release() noexcept;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::string path_;
};

}  // namespace wgrt
