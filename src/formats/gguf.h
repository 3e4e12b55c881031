// GGUF v2/v3 reader (spec: ggml docs/gguf.md). The file is memory-mapped; metadata is parsed into GgufValues,
// tensor infos are validated, tensor data stays in the mapping.
//
// Layout: "GGUF", u32 version (2 or 3), u64 tensor_count, u64 kv_count, kv pairs (string key, u32 value type,
// value), tensor infos (string name, u32 n_dims, u64 ne[n_dims] with ne0 fastest, u32 ggml type, u64 offset
// relative to the data section), padding to general.alignment (u32, default 32), data section.
//
// Validation (FormatError naming the file and the field, never an out-of-bounds read or huge allocation):
// truncation anywhere; magic; version (Unsupported for anything but 2 and 3); kv/tensor/array counts and
// string lengths larger than the remaining bytes could hold; unknown value types; array nesting deeper than 8;
// bool bytes other than 0/1; duplicate keys and tensor names; general.alignment not a u32 power of two;
// n_dims outside 1..4; zero dims; element-count overflow (> 2^62); ne0 not a multiple of the type's block size;
// unknown ggml type ids; offsets not aligned; tensor data past the end of the file or overlapping another.
// Strings are not checked for UTF-8 validity.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/ggml_quant.h"
#include "formats/ggml_type.h"
#include "formats/gguf_value.h"

namespace wgrt {

class FileBytes;

struct GgufTensorInfo {
  std::string name;
  std::vector<uint64_t> dims;  // ne0 (fastest, = row length K for matrices) first; 1..4 entries, each >= 1
  GgmlType type = GgmlType::F32;
  uint64_t offset = 0;         // relative to the data section, a multiple of the alignment
  uint64_t n_elements = 0;
  uint64_t n_bytes = 0;
};

class GgufFile {
 public:
  static GgufFile open(const std::string& path);
  // Parses an in-memory copy (tests, fuzzers); `name` stands in for the path in messages.
  static GgufFile from_bytes(std::vector<uint8_t> bytes, std::string name = "<memory>");

  const std::string& path() const { return path_; }
  // FormatError if the file changed or was truncated since it was opened (see mapped_file.h): call after
  // reading tensor data. Never for from_bytes().
  void check_unchanged() const;
  uint32_t version() const { return version_; }
  uint32_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }  // absolute file offset of the data section

  // ---- metadata (gguf_meta.cpp) ----
  const std::vector<std::pair<std::string, GgufValue>>& metadata() const { return kv_; }
  const GgufValue* find(const std::string& key) const;  // nullptr if absent
  bool has(const std::string& key) const { return find(key) != nullptr; }
  // get_*: FormatError if the key is missing or has the wrong type ("key 'k' has type string, expected u32").
  // Integer getters accept any integer value type whose value fits the target; f32 getters accept f32/f64;
  // array getters accept arrays whose elements convert the same way.
  std::string get_string(const std::string& key) const;
  uint32_t get_u32(const std::string& key) const;
  int32_t get_i32(const std::string& key) const;
  uint64_t get_u64(const std::string& key) const;
  float get_f32(const std::string& key) const;
  bool get_bool(const std::string& key) const;
  std::vector<std::string> get_array_strings(const std::string& key) const;
  std::vector<float> get_array_f32(const std::string& key) const;
  std::vector<int32_t> get_array_i32(const std::string& key) const;
  // opt_*: nullopt if the key is absent; same type errors as get_* if present.
  std::optional<std::string> opt_string(const std::string& key) const;
  std::optional<uint32_t> opt_u32(const std::string& key) const;
  std::optional<int32_t> opt_i32(const std::string& key) const;
  std::optional<uint64_t> opt_u64(const std::string& key) const;
  std::optional<float> opt_f32(const std::string& key) const;
  std::optional<bool> opt_bool(const std::string& key) const;
  std::optional<std::vector<std::string>> opt_array_strings(const std::string& key) const;
  std::optional<std::vector<float>> opt_array_f32(const std::string& key) const;
  std::optional<std::vector<int32_t>> opt_array_i32(const std::string& key) const;

  // ---- tensors ----
  const std::vector<GgufTensorInfo>& tensors() const { return tensors_; }
  const GgufTensorInfo* find_tensor(const std::string& name) const;  // nullptr if absent
  const GgufTensorInfo& tensor(const std::string& name) const;       // InvalidArgument if absent
  std::span<const uint8_t> tensor_data(const GgufTensorInfo& t) const;  // exactly t.n_bytes bytes
  // Dequantized values in file order (ne0 fastest). Unsupported for types other than F32/F16/BF16/Q4_0/Q8_0.
  std::vector<float> to_f32(const GgufTensorInfo& t) const;
  // Q4_0 tensor as q4gsw with rows = product of dims[1..], cols = dims[0]; Unsupported for other types.
  Q4gsw repack_q4_0_to_q4gsw(const GgufTensorInfo& t) const;

 private:
  void parse();
  std::shared_ptr<const FileBytes> storage_;  // keeps the FileBytes storage alive
  static GgufFile from_file(const FileBytes& fb);
  std::span<const uint8_t> bytes_;
  std::string path_;
  uint32_t version_ = 0;
  uint32_t alignment_ = 32;
  uint64_t data_offset_ = 0;
  std::vector<std::pair<std::string, GgufValue>> kv_;
  std::unordered_map<std::string, size_t> kv_index_;
  std::vector<GgufTensorInfo> tensors_;
  std::unordered_map<std::string, size_t> tensor_index_;
};

}  // namespace wgrt
