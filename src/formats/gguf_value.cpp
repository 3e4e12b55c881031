#include "formats/gguf_value.h"

#include <wgrt/error.h>

namespace wgrt {

std::string gguf_value_type_name(GgufValueType t) {
  switch (t) {
    case GgufValueType::U8: return "u8";
    case GgufValueType::I8: return "i8";
    case GgufValueType::U16: return "u16";
    case GgufValueType::I16: return "i16";
    case GgufValueType::U32: return "u32";
    case GgufValueType::I32: return "i32";
    case GgufValueType::F32: return "f32";
    case GgufValueType::BOOL: return "bool";
    case GgufValueType::STRING: return "string";
    case GgufValueType::ARRAY: return "array";
    case GgufValueType::U64: return "u64";
    case GgufValueType::I64: return "i64";
    case GgufValueType::F64: return "f64";
  }
  return "type#" + std::to_string(static_cast<uint32_t>(t));
}

size_t gguf_value_type_size(GgufValueType t) {
  switch (t) {
    case GgufValueType::U8: case GgufValueType::I8: case GgufValueType::BOOL: return 1;
    case GgufValueType::U16: case GgufValueType::I16: return 2;
    case GgufValueType::U32: case GgufValueType::I32: case GgufValueType::F32: return 4;
    case GgufValueType::U64: case GgufValueType::I64: case GgufValueType::F64: return 8;
    default: return 0;
  }
}

bool gguf_value_type_is_integer(GgufValueType t) {
  switch (t) {
    case GgufValueType::U8: case GgufValueType::I8: case GgufValueType::U16: case GgufValueType::I16:
    case GgufValueType::U32: case GgufValueType::I32: case GgufValueType::U64: case GgufValueType::I64:
      return true;
    default:
      return false;
  }
}

static bool is_signed(GgufValueType t) {
  return t == GgufValueType::I8 || t == GgufValueType::I16 || t == GgufValueType::I32 || t == GgufValueType::I64;
}

bool GgufValue::integer_fits(int64_t lo, uint64_t hi) const {
  if (is_signed(type)) return i >= lo && (i < 0 || static_cast<uint64_t>(i) <= hi);
  return u <= hi;
}

double GgufValue::numeric_elem(uint64_t idx) const {
  size_t sz = gguf_value_type_size(elem_type);
  if (type != GgufValueType::ARRAY || sz == 0 || idx >= count)
    throw InvalidArgument("GgufValue::numeric_elem: not a numeric array or index out of range");
  const uint8_t* p = raw.data() + idx * sz;
  auto ld = [p](auto v) { std::memcpy(&v, p, sizeof(v)); return v; };
  switch (elem_type) {
    case GgufValueType::U8: case GgufValueType::BOOL: return ld(uint8_t{});
    case GgufValueType::I8: return ld(int8_t{});
    case GgufValueType::U16: return ld(uint16_t{});
    case GgufValueType::I16: return ld(int16_t{});
    case GgufValueType::U32: return ld(uint32_t{});
    case GgufValueType::I32: return ld(int32_t{});
    case GgufValueType::F32: return ld(float{});
    case GgufValueType::U64: return static_cast<double>(ld(uint64_t{}));
    case GgufValueType::I64: return static_cast<double>(ld(int64_t{}));
    case GgufValueType::F64: return ld(double{});
    default: return 0.0;
  }
}

#define WGRT_UINT_FACTORY(NAME, CT, VT) \
  GgufValue GgufValue::NAME(CT v) {     \
    GgufValue g;                        \
    g.type = GgufValueType::VT;         \
    g.u = v;                            \
    return g;                           \
  }
#define WGRT_INT_FACTORY(NAME, CT, VT) \
  GgufValue GgufValue::NAME(CT v) {    \
    GgufValue g;                       \
    g.type = GgufValueType::VT;        \
    g.i = v;                           \
    return g;                          \
  }
WGRT_UINT_FACTORY(of_u8, uint8_t, U8)
WGRT_UINT_FACTORY(of_u16, uint16_t, U16)
WGRT_UINT_FACTORY(of_u32, uint32_t, U32)
WGRT_UINT_FACTORY(of_u64, uint64_t, U64)
WGRT_UINT_FACTORY(of_bool, bool, BOOL)
WGRT_INT_FACTORY(of_i8, int8_t, I8)
WGRT_INT_FACTORY(of_i16, int16_t, I16)
WGRT_INT_FACTORY(of_i32, int32_t, I32)
WGRT_INT_FACTORY(of_i64, int64_t, I64)
#undef WGRT_UINT_FACTORY
#undef WGRT_INT_FACTORY

GgufValue GgufValue::of_f32(float v) {
  GgufValue g;
  g.type = GgufValueType::F32;
  g.f = v;
  return g;
}
GgufValue GgufValue::of_f64(double v) {
  GgufValue g;
  g.type = GgufValueType::F64;
  g.f = v;
  return g;
}
GgufValue GgufValue::of_string(std::string v) {
  GgufValue g;
  g.type = GgufValueType::STRING;
  g.str = std::move(v);
  return g;
}
GgufValue GgufValue::array_of_strings(std::vector<std::string> v) {
  GgufValue g;
  g.type = GgufValueType::ARRAY;
  g.elem_type = GgufValueType::STRING;
  g.count = v.size();
  g.strings = std::move(v);
  return g;
}
GgufValue GgufValue::array_of_arrays(std::vector<GgufValue> v) {
  for (const auto& e : v)
    if (!e.is_array()) throw InvalidArgument("GgufValue::array_of_arrays: element is not an array");
  GgufValue g;
  g.type = GgufValueType::ARRAY;
  g.elem_type = GgufValueType::ARRAY;
  g.count = v.size();
  g.arrays = std::move(v);
  return g;
}

}  // namespace wgrt
