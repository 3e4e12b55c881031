// A GGUF metadata value (spec: ggml docs/gguf.md, "gguf_metadata_value_type").
// Scalars keep their declared type; arrays keep their element type and count:
//   numeric and bool elements: packed little-endian in `raw` exactly as in the file (count * elem size bytes),
//   string elements: `strings`; array elements (nested arrays): `arrays`.
// Factories (of_u32, array_of_strings, ...) build values for the GGUF writer.
#pragma once
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace wgrt {

enum class GgufValueType : uint32_t {
  U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, BOOL = 7, STRING = 8, ARRAY = 9,
  U64 = 10, I64 = 11, F64 = 12,
};

// "u32", "string", "array", ...; "type#N" for unknown ids.
std::string gguf_value_type_name(GgufValueType t);
// Size in bytes of a fixed-size scalar type (u8..f64, bool); 0 for STRING, ARRAY and unknown ids.
size_t gguf_value_type_size(GgufValueType t);
bool gguf_value_type_is_integer(GgufValueType t);  // u8..i64 (not bool)

struct GgufValue {
  GgufValueType type = GgufValueType::U8;
  // Scalars: unsigned integers and bool in u, signed integers in i, f32/f64 in f, STRING in str.
  uint64_t u = 0;
  int64_t i = 0;
  double f = 0.0;
  std::string str;
  // ARRAY:
  GgufValueType elem_type = GgufValueType::U8;
  uint64_t count = 0;
  std::vector<uint8_t> raw;
  std::vector<std::string> strings;
  std::vector<GgufValue> arrays;

  bool is_array() const { return type == GgufValueType::ARRAY; }
  // Integer scalar as int64 / uint64 range-checked by the caller via these (valid only if integer type).
  bool integer_fits(int64_t lo, uint64_t hi) const;
  // Element i of a numeric array converted to double (integers exact up to 2^53). Requires a numeric array.
  double numeric_elem(uint64_t idx) const;

  static GgufValue of_u8(uint8_t v);
  static GgufValue of_i8(int8_t v);
  static GgufValue of_u16(uint16_t v);
  static GgufValue of_i16(int16_t v);
  static GgufValue of_u32(uint32_t v);
  static GgufValue of_i32(int32_t v);
  static GgufValue of_u64(uint64_t v);
  static GgufValue of_i64(int64_t v);
  static GgufValue of_f32(float v);
  static GgufValue of_f64(double v);
  static GgufValue of_bool(bool v);
  static GgufValue of_string(std::string v);
  static GgufValue array_of_strings(std::vector<std::string> v);
  static GgufValue array_of_arrays(std::vector<GgufValue> v);  // every element must be an ARRAY
  // Numeric/bool array: T must match elem's size (e.g. float for F32, uint8_t for BOOL).
  template <class T>
  static GgufValue array_of(GgufValueType elem, std::span<const T> v) {
    GgufValue g;
    g.type = GgufValueType::ARRAY;
    g.elem_type = elem;
    g.count = v.size();
    g.raw.resize(v.size_bytes());
    if (!v.empty()) std::memcpy(g.raw.data(), v.data(), v.size_bytes());
    return g;
  }
};

}  // namespace wgrt
