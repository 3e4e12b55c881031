// Decoding and encoding of ggml tensor data (the block formats of ggml-quants.c), and the repack of GGUF Q4_0
// into wgrt's q4gsw GPU layout.
//
// Blocks run along ne0, i.e. along a row of K elements; F16 / BF16 / F32 are plain little-endian arrays.
// Every block format's layout is documented in ggml_blocks.h (the per-block decoders, one file per family).
//   Q4_0: 18 bytes per 32 elements: f16 d, then uint8 qs[16]; element j<16 = low nibble of qs[j],
//         element j+16 = high nibble of qs[j]; value = (q - 8) * d.
//   Q8_0: 34 bytes per 32 elements: f16 d, then int8 qs[32]; value = qs[j] * d.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "formats/ggml_type.h"

namespace wgrt {

// Dequantizes n_elems elements of `type` from `data` (which must hold exactly the bytes of n_elems elements;
// n_elems must be a multiple of the block size) to f32, bit-exact with llama.cpp's dequantize_row_<type>
// (ggml-quants.c at 80fb11a; checked against gguf-py goldens). `name` is used in messages.
// Throws Unsupported("tensor <name> has type TQ1_0, which wgrt cannot load (it loads ...)") for types
// ggml_type_decodable() rejects, FormatError if the sizes disagree. Pure function: any thread.
std::vector<float> dequantize(GgmlType type, std::span<const uint8_t> data, uint64_t n_elems,
                              const std::string& name);
// The same into out[0, n_elems) (caller-owned).
void dequantize_into(GgmlType type, std::span<const uint8_t> data, uint64_t n_elems, float* out,
                     const std::string& name);

// Quantizes to Q4_0 / Q8_0 with llama.cpp's reference semantics (quantize_row_q4_0_ref / _q8_0_ref):
//   Q4_0: per block, m = the element of largest magnitude (signed, first one on ties), d = m / -8,
//         q = min(15, (int)(x/d + 8.5)) (truncation; x/d computed as x * (1/d)), d stored as f16 (the codes
//         are computed with the unrounded f32 d, exactly as llama.cpp does). All-zero block: d = 0, q = 8.
//   Q8_0: amax = max |x|, d = amax / 127, q = roundf(x * (1/d)) (half away from zero), d stored as f16.
// x.size() must be a multiple of 32 (InvalidArgument otherwise). Returns the raw block bytes.
std::vector<uint8_t> quantize_q4_0(std::span<const float> x);
std::vector<uint8_t> quantize_q8_0(std::span<const float> x);

// wgrt q4gsw layout of a weight with logical shape [N rows (out features), K cols (in features)],
// group size G = 32 along K (K % 32 == 0):
//   qweight: N*K/8 uint32 words, row-major [N][K/8]; word w of row n holds elements k = 8w..8w+7, element
//            8w+j in bits 4j..4j+3 (low nibble first), unsigned q in [0,15];
//   scales:  N*(K/32) IEEE f16 bit patterns, row-major [N][K/32] (uploaded as a DType::F16 tensor; the kernels
//            read them with q4gsw_scale, ops/linear/q4gsw_scale.wgsl);
//   value(n,k) = (q(n,k) - 8) * f16_to_f32(scales[n*(K/32) + k/32]).
struct Q4gsw {
  static constexpr uint32_t kGroup = 32;
  uint64_t rows = 0, cols = 0;
  std::vector<uint32_t> qweight;
  std::vector<uint16_t> scales;  // f16 bits
};

// Repacks GGUF Q4_0 data of a [rows, cols] matrix (ne0 = cols) into q4gsw without requantizing: codes are
// copied, scales are the f16 block scales as they are, so dequantized values are bit-identical and the bytes
// equal the file's (16 bytes of codes + 2 of scale per 32 weights, as a Q4_0 block).
// Throws FormatError if data.size() != rows*cols/32*18 or cols % 32 != 0. Any thread; matrices of more than
// 32768 blocks are split over up to hardware_concurrency worker threads (joined before it returns).
Q4gsw repack_q4_0_to_q4gsw(std::span<const uint8_t> data, uint64_t rows, uint64_t cols, const std::string& name);

}  // namespace wgrt
