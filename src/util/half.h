// IEEE 754 binary16 (f16) and bfloat16 (bf16) <-> binary32 conversions, bit-exact, no hardware dependence.
// f16_to_f32 / bf16_to_f32 are exact (every f16/bf16 value is an f32). f32_to_f16 / f32_to_bf16 round to
// nearest, ties to even; overflow gives +-inf; NaN stays NaN (quiet); f16 subnormals are produced and read.
#pragma once
#include <cstdint>

namespace wgrt {

float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);
float bf16_to_f32(uint16_t b);
uint16_t f32_to_bf16(float f);

}  // namespace wgrt
