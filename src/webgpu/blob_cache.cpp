#include "webgpu/blob_cache.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <system_error>
#include <vector>

namespace wgrt::webgpu {
namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'W', 'G', 'R', 'T', 'B', 'L', 'B', '1'};

uint64_t fnv1a(const void* data, size_t n, uint64_t h = 0xcbf29ce484222325ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}

uint64_t get_u64(const std::string& in, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(uint8_t(in[at + i])) << (8 * i);
  return v;
}

bool read_all(const fs::path& p, std::string& out) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return !f.bad();
}

// The value bytes of a well-formed blob file for exactly this key, or false.
bool parse_blob(const std::string& file, const void* key, size_t key_size, size_t& value_at, size_t& value_size) {
  const size_t head = sizeof kMagic + 8;
  if (file.size() < head || std::memcmp(file.data(), kMagic, sizeof kMagic) != 0) return false;
  const uint64_t ks = get_u64(file, sizeof kMagic);
  if (ks != key_size || file.size() - head < ks + 16) return false;
  if (std::memcmp(file.data() + head, key, key_size) != 0) return false;  // a hash collision: not ours
  const uint64_t vs = get_u64(file, head + ks);
  if (vs != file.size() - head - ks - 16) return false;  // truncated or padded
  const uint64_t sum = get_u64(file, file.size() - 8);
  if (sum != fnv1a(file.data() + head + ks + 8, vs, fnv1a(key, key_size))) return false;
  value_at = head + ks + 8;
  value_size = vs;
  return true;
}

}  // namespace

BlobCache::BlobCache(fs::path dir, const std::string& isolation, uint64_t max_bytes)
    : folder_(std::move(dir) / fmt::format("{:016x}", fnv1a(isolation.data(), isolation.size()))) {
  std::error_code ec;
  fs::create_directories(folder_, ec);
  if (ec || !fs::is_directory(folder_, ec)) {
    usable_ = false;
    ++stats_.write_failures;
    return;
  }
  trim(max_bytes);
}

fs::path BlobCache::default_dir() {
  if (const char* e = std::getenv("WGRT_CACHE_DIR")) {
    std::string v(e);
    if (v.empty() || v == "off") return {};
    return fs::path(v);
  }
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "wgrt";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "wgrt";
  return {};
}

fs::path BlobCache::file_for(const void* key, size_t key_size) const {
  return folder_ / fmt::format("{:016x}.blob", fnv1a(key, key_size));
}

size_t BlobCache::load(const void* key, size_t key_size, void* value, size_t value_size) {
  std::lock_guard lock(mu_);
  if (!usable_) return 0;
  const fs::path p = file_for(key, key_size);
  std::string file;
  size_t at = 0, size = 0;
  if (!read_all(p, file)) {
    ++stats_.misses;
    return 0;
  }
  if (!parse_blob(file, key, key_size, at, size)) {
    ++stats_.rejected;
    std::error_code ec;
    fs::remove(p, ec);  // corrupt or colliding: Dawn stores a fresh one after compiling
    return 0;
  }
  if (value && value_size >= size) {
    std::memcpy(value, file.data() + at, size);
    ++stats_.hits;
  }
  return size;
}

void BlobCache::store(const void* key, size_t key_size, const void* value, size_t value_size) {
  std::lock_guard lock(mu_);
  if (!usable_) return;
  std::string out(kMagic, sizeof kMagic);
  out.reserve(sizeof kMagic + 24 + key_size + value_size);
  put_u64(out, key_size);
  out.append(static_cast<const char*>(key), key_size);
  put_u64(out, value_size);
  out.append(static_cast<const char*>(value), value_size);
  put_u64(out, fnv1a(value, value_size, fnv1a(key, key_size)));

  const fs::path p = file_for(key, key_size);
  const fs::path tmp = p.string() + fmt::format(".tmp{}", getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(out.data(), std::streamsize(out.size()));
    if (!f.flush()) {
      ++stats_.write_failures;
      std::error_code ec;
      fs::remove(tmp, ec);
      return;
    }
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) {
    ++stats_.write_failures;
    fs::remove(tmp, ec);
    return;
  }
  ++stats_.stores;
}

BlobCacheStats BlobCache::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void BlobCache::trim(uint64_t max_bytes) {
  struct Entry {
    fs::path path;
    fs::file_time_type time;
    uint64_t size;
  };
  std::vector<Entry> files;
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder_, ec)) {
    std::error_code e2;
    if (!e.is_regular_file(e2)) continue;
    const uint64_t size = e.file_size(e2);
    if (e2) continue;
    files.push_back({e.path(), e.last_write_time(e2), size});
    total += size;
  }
  if (total <= max_bytes) return;
  std::sort(files.begin(), files.end(), [](const Entry& a, const Entry& b) { return a.time < b.time; });
  for (const Entry& f : files) {
    if (total <= max_bytes / 2) break;
    if (fs::remove(f.path, ec)) total -= f.size;
  }
}

}  // namespace wgrt::webgpu
