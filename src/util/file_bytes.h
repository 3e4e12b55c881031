// The bytes a file reader parses: a read-only mmap of a path, or an owned in-memory copy (tests, fuzzers).
// Copies share the storage, which lives as long as any copy (readers keep views into it).
// Errors: FormatError naming the path if it cannot be opened or mapped (see mapped_file.h).
// check_unchanged(): FormatError if a mapped file changed or shrank since open() (MappedFile::check_unchanged);
// never for in-memory bytes.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace wgrt {

class MappedFile;

class FileBytes {
 public:
  static FileBytes open(const std::string& path);
  static FileBytes from_bytes(std::vector<uint8_t> bytes, std::string name);

  std::span<const uint8_t> bytes() const { return bytes_; }
  const std::string& name() const { return name_; }  // the path, or the given name
  void check_unchanged() const;
  // Runs parse(); if the file changed while it was read, that is the error reported (also when parse()
  // failed on the bytes the change left, which are not the file's).
  template <class F>
  void parse_checked(F&& parse) const {
    try {
      parse();
    } catch (...) {
      check_unchanged();
      throw;
    }
    check_unchanged();
  }

 private:
  std::shared_ptr<const void> storage_;
  std::shared_ptr<const MappedFile> map_;  // set for open(): the mapping inside storage_
  std::span<const uint8_t> bytes_;
  std::string name_;
};

}  // namespace wgrt
