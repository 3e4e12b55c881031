// GGUF writer (spec: ggml docs/gguf.md), for tests and `wgrt synth`. Builds the file in memory, except for
// streamed tensors (add_tensor_stream), whose data is produced chunk by chunk while the file is written.
// Metadata keeps insertion order (set() on an existing key replaces its value in place). Tensors are laid
// out in insertion order in the data section, each at an offset that is a multiple of the alignment; the data
// section starts at the aligned end of the tensor infos; the file ends right after the last tensor's data
// (no trailing padding). general.alignment is written only if set_alignment() was called with a value other
// than 32 (or the caller sets the key itself; set_alignment keeps the two consistent).
//
// Tensors: dims are ggml order (ne0 = row length K first). add_tensor_f32 stores float data as F32, F16, Q4_0
// or Q8_0 (Q4_0/Q8_0 quantized with quantize_q4_0 / quantize_q8_0 from ggml_quant.h; F16 rounds to nearest
// even). add_tensor_raw stores caller-provided bytes under any type id (used to write Q4_K etc. test files);
// its size is checked against the type's block geometry when the type id is known.
// add_tensor_stream stores the same bytes as add_tensor_f32 would for the same values, but asks `fill` for the
// values only while to_bytes()/write() emit the data section, a chunk of whole rows (a row = dims[0] values,
// about kStreamChunk values per chunk) at a time, so write() never holds a whole streamed tensor in memory.
// `fill(row0, out)` writes the values of rows [row0, row0 + out.size() / dims[0]); it must be deterministic
// (each to_bytes()/write() calls it again) and may throw (the exception propagates out of write()).
// Errors: InvalidArgument for duplicate tensor names, dims outside 1..4 or zero, size mismatches, bad version
// or alignment; FormatError if the output file cannot be written.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "formats/ggml_type.h"
#include "formats/gguf_value.h"

namespace wgrt {

class GgufWriter {
 public:
  explicit GgufWriter(uint32_t version = 3) : version_(version) {}

  void set(const std::string& key, GgufValue value);
  void set_alignment(uint32_t alignment);  // power of two; also writes general.alignment (u32)

  void add_tensor_f32(const std::string& name, std::vector<uint64_t> dims, std::span<const float> data,
                      GgmlType store_as = GgmlType::F32);
  void add_tensor_raw(const std::string& name, std::vector<uint64_t> dims, uint32_t type_id,
                      std::vector<uint8_t> bytes);

  using RowFill = std::function<void(uint64_t row0, std::span<float> out)>;
  static constexpr uint64_t kStreamChunk = uint64_t(1) << 22;
  void add_tensor_stream(const std::string& name, std::vector<uint64_t> dims, RowFill fill,
                         GgmlType store_as = GgmlType::F32);

  std::vector<uint8_t> to_bytes() const;
  void write(const std::string& path) const;
  // The same file with every streamed tensor's data left as zero bytes, its fill never called (skipped with a
  // seek: a sparse hole where the filesystem has them), so a file of billions of parameters takes no time or
  // disk; tensors given as data are written. For checking metadata and shapes (llama.cpp loads it).
  // FormatError if the file cannot be written.
  void write_zero_data(const std::string& path) const;

 private:
  struct Tensor {
    std::string name;
    std::vector<uint64_t> dims;
    uint32_t type_id;
    std::vector<uint8_t> bytes;  // empty for streamed tensors
    RowFill fill;                // set for streamed tensors
    GgmlType store_as = GgmlType::F32;
    uint64_t size = 0;           // data bytes
  };
  using Sink = std::function<void(const uint8_t* data, size_t n)>;
  void check_new(const std::string& name) const;
  // zero_streams: streamed tensors go to the sink as (nullptr, size), a run of zero bytes.
  void emit(const Sink& sink, bool zero_streams = false) const;
  uint32_t version_;
  uint32_t alignment_ = 32;
  std::vector<std::pair<std::string, GgufValue>> kv_;
  std::vector<Tensor> tensors_;
};

}  // namespace wgrt
