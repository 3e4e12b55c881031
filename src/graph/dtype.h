// Tensor element types. Every tensor carries its dtype explicitly; nothing is inferred from byte counts.
#pragma once
#include <cstdint>
#include <string_view>

namespace wgrt {

enum class DType : uint8_t {
  F32,  // IEEE binary32
  F16,  // IEEE binary16 (kernels need shader-f16, or unpack it by hand)
  I32,  // int32; host int64 inputs are narrowed to it with a range check
  U32,  // uint32
  Q4,   // 4-bit unsigned codes packed 8 per uint32 word, low nibble first (see ops/linear/q4gsw.h)
};

// Bits per element (Q4: 4).
constexpr uint32_t dtype_bits(DType t) {
  switch (t) {
    case DType::F32: case DType::I32: case DType::U32: return 32;
    case DType::F16: return 16;
    case DType::Q4: return 4;
  }
  return 0;
}

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::F32: return "f32";
    case DType::F16: return "f16";
    case DType::I32: return "i32";
    case DType::U32: return "u32";
    case DType::Q4: return "q4";
  }
  return "?";
}

}  // namespace wgrt
