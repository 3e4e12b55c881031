// A disk cache for Dawn's compiled shaders and pipelines (Dawn's blob-cache hooks), so that a second run of
// the same model skips WGSL translation and driver pipeline compilation: the main cost of cold start.
//
// - Dawn hands opaque (key, value) byte strings to store() and asks for them with load(). Keys are Dawn's own
//   cache keys (they include the WGSL, entry point, constants, the adapter and Dawn's toggles); wgrt adds an
//   isolation folder per adapter and Dawn library (see cache_isolation_key in device.cpp), so a driver or
//   library update starts a fresh folder instead of reading stale blobs.
// - Layout: <dir>/<isolation hash>/<key hash>.blob, each file = magic "WGRTBLB1", u64 key size, key bytes,
//   u64 value size, value bytes, u64 FNV-1a of key+value (little-endian). A file whose magic, sizes, key or
//   checksum does not match is a miss and is removed: a corrupt, truncated or colliding file is never
//   handed to Dawn. Writes go to a temporary file and are renamed into place (atomic on POSIX), so
//   concurrent processes sharing the folder never read half a file.
// - Size cap: on construction, when the folder holds more than `max_bytes`, the least recently modified
//   files are removed until it holds at most half of it.
// - Failures to create the folder or write a file are not errors: the cache is then a no-op (counted in
//   stats().write_failures) and Dawn compiles as if no cache existed.
// - Threads: load/store may be called from any thread (Dawn may compile on worker threads); they lock.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>

namespace wgrt::webgpu {

struct BlobCacheStats {
  uint64_t hits = 0, misses = 0, stores = 0, rejected = 0, write_failures = 0;
};

class BlobCache {
 public:
  // dir: the cache root (created if missing). isolation: a string naming adapter + Dawn build; it picks the
  // sub-folder. max_bytes: the folder's size cap (bytes).
  BlobCache(std::filesystem::path dir, const std::string& isolation, uint64_t max_bytes = 512ull << 20);

  // Dawn's load contract: with value == nullptr (or value_size too small) returns the stored size without
  // copying; otherwise copies the blob into value and returns its size. 0 = not cached.
  size_t load(const void* key, size_t key_size, void* value, size_t value_size);
  // Stores a blob (replaces an existing one for the same key).
  void store(const void* key, size_t key_size, const void* value, size_t value_size);

  const std::filesystem::path& folder() const { return folder_; }
  BlobCacheStats stats() const;

  // The folder wgrt uses when nothing is configured: $WGRT_CACHE_DIR, else $XDG_CACHE_HOME/wgrt, else
  // $HOME/.cache/wgrt; "" when WGRT_CACHE_DIR is "off" (or empty) or no home is known (the cache is off).
  static std::filesystem::path default_dir();

 private:
  std::filesystem::path file_for(const void* key, size_t key_size) const;
  void trim(uint64_t max_bytes);

  std::filesystem::path folder_;
  mutable std::mutex mu_;
  BlobCacheStats stats_;
  bool usable_ = true;
};

}  // namespace wgrt::webgpu
