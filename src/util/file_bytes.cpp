#include "util/file_bytes.h"

#include "util/mapped_file.h"

namespace wgrt {

FileBytes FileBytes::open(const std::string& path) {
  auto map = std::make_shared<MappedFile>(MappedFile::open(path));
  FileBytes f;
  f.bytes_ = map->bytes();
  f.map_ = map;
  f.storage_ = std::move(map);
  f.name_ = path;
  return f;
}

void FileBytes::check_unchanged() const {
  if (map_) map_->check_unchanged();
}

FileBytes FileBytes::from_bytes(std::vector<uint8_t> bytes, std::string name) {
  auto owned = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  FileBytes f;
  f.bytes_ = *owned;
  f.storage_ = std::move(owned);
  f.name_ = std::move(name);
  return f;
}

}  // namespace wgrt
