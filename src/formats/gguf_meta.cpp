// GgufFile metadata getters (see gguf.h for the conversion rules).
#include <cmath>
#include <limits>
#include <wgrt/error.h>

#include "formats/gguf.h"
#include "util/printable.h"

namespace wgrt {
namespace {

[[noreturn]] void type_error(const std::string& path, const std::string& key, const GgufValue& v,
                             const std::string& expected) {
  std::string actual = gguf_value_type_name(v.type);
  if (v.is_array()) actual += " of " + gguf_value_type_name(v.elem_type);
  throw FormatError("gguf '" + printable(path, 300) + "': key '" + printable(key) + "' has type " + actual + ", expected " + expected);
}

template <class T>
T to_int(const std::string& path, const std::string& key, const GgufValue& v, const char* expected) {
  if (!gguf_value_type_is_integer(v.type)) type_error(path, key, v, expected);
  if (!v.integer_fits(std::numeric_limits<T>::min(), std::numeric_limits<T>::max()))
    throw FormatError("gguf '" + printable(path, 300) + "': key '" + printable(key) + "' value does not fit in " + expected);
  return v.type == GgufValueType::I8 || v.type == GgufValueType::I16 || v.type == GgufValueType::I32 ||
                 v.type == GgufValueType::I64
             ? static_cast<T>(v.i)
             : static_cast<T>(v.u);
}

}  // namespace

const GgufValue* GgufFile::find(const std::string& key) const {
  auto it = kv_index_.find(key);
  return it == kv_index_.end() ? nullptr : &kv_[it->second].second;
}

#define WGRT_GETTER(RET, NAME, CONVERT)                                                           \
  std::optional<RET> GgufFile::opt_##NAME(const std::string& key) const {                          \
    const GgufValue* v = find(key);                                                                \
    if (!v) return std::nullopt;                                                                   \
    return CONVERT;                                                                                \
  }                                                                                                \
  RET GgufFile::get_##NAME(const std::string& key) const {                                         \
    auto r = opt_##NAME(key);                                                                      \
    if (!r) throw FormatError("gguf '" + printable(path_, 300) + "': missing metadata key '" + printable(key) + "'");       \
    return *r;                                                                                     \
  }

static std::string conv_string(const std::string& p, const std::string& k, const GgufValue& v) {
  if (v.type != GgufValueType::STRING) type_error(p, k, v, "string");
  return v.str;
}
static float conv_f32(const std::string& p, const std::string& k, const GgufValue& v) {
  if (v.type != GgufValueType::F32 && v.type != GgufValueType::F64) type_error(p, k, v, "f32");
  // An f64 beyond the f32 range would silently become infinity.
  if (std::isfinite(v.f) && std::fabs(v.f) > std::numeric_limits<float>::max())
    throw FormatError("gguf '" + printable(p, 300) + "': key '" + printable(k) + "' value " + std::to_string(v.f) +
                      " does not fit in f32");
  return static_cast<float>(v.f);
}
static bool conv_bool(const std::string& p, const std::string& k, const GgufValue& v) {
  if (v.type != GgufValueType::BOOL) type_error(p, k, v, "bool");
  return v.u != 0;
}
static std::vector<std::string> conv_strings(const std::string& p, const std::string& k, const GgufValue& v) {
  if (!v.is_array() || v.elem_type != GgufValueType::STRING) type_error(p, k, v, "array of string");
  return v.strings;
}
static std::vector<float> conv_f32s(const std::string& p, const std::string& k, const GgufValue& v) {
  if (!v.is_array() || (v.elem_type != GgufValueType::F32 && v.elem_type != GgufValueType::F64))
    type_error(p, k, v, "array of f32");
  std::vector<float> out(v.count);
  for (uint64_t i = 0; i < v.count; ++i) out[i] = static_cast<float>(v.numeric_elem(i));
  return out;
}
static std::vector<int32_t> conv_i32s(const std::string& p, const std::string& k, const GgufValue& v) {
  if (!v.is_array() || !gguf_value_type_is_integer(v.elem_type)) type_error(p, k, v, "array of i32");
  std::vector<int32_t> out(v.count);
  for (uint64_t i = 0; i < v.count; ++i) {
    double d = v.numeric_elem(i);
    if (!(d >= std::numeric_limits<int32_t>::min() && d <= std::numeric_limits<int32_t>::max()))
      throw FormatError("gguf '" + printable(p, 300) + "': key '" + printable(k) + "' element " + std::to_string(i) + " does not fit in i32");
    out[i] = static_cast<int32_t>(d);
  }
  return out;
}

WGRT_GETTER(std::string, string, conv_string(path_, key, *v))
WGRT_GETTER(uint32_t, u32, to_int<uint32_t>(path_, key, *v, "u32"))
WGRT_GETTER(int32_t, i32, to_int<int32_t>(path_, key, *v, "i32"))
WGRT_GETTER(uint64_t, u64, to_int<uint64_t>(path_, key, *v, "u64"))
WGRT_GETTER(float, f32, conv_f32(path_, key, *v))
WGRT_GETTER(bool, bool, conv_bool(path_, key, *v))
WGRT_GETTER(std::vector<std::string>, array_strings, conv_strings(path_, key, *v))
WGRT_GETTER(std::vector<float>, array_f32, conv_f32s(path_, key, *v))
WGRT_GETTER(std::vector<int32_t>, array_i32, conv_i32s(path_, key, *v))
#undef WGRT_GETTER

}  // namespace wgrt
