// The bytes a file reader parses: a read-only mmap of a path, or an owned in-memory copy (tests, fuzzers).
// Copies share the storage, which lives as long as any copy (readers keep views into it).
// Errors: FormatError naming the path if it cannot be opened or mapped (see mapped_file.h).
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace wgrt {

class FileBytes {
 public:
  static FileBytes open(const std::string& path);
  static FileBytes from_bytes(std::vector<uint8_t> bytes, std::string name);

  std::span<const uint8_t> bytes() const { return bytes_; }
  const std::string& name() const { return name_; }  // the path, or the given name

 private:
  std::shared_ptr<const void> storage_;
  std::span<const uint8_t> bytes_;
  std::string name_;
};

}  // namespace wgrt
