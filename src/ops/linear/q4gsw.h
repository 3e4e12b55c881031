// 4-bit group-symmetric weights ("q4gsw"), as taken by et_vk.linear_q4gsw.default and
// et_vk.embedding_q4gsw.default.
//
// A logical f32 matrix W [N, K] (N output rows, K inputs; for embeddings N = vocab, K = embedding dim) is
// stored as
//   qweight: u32 [N, K/8], row-major. Word w of row n holds the 4-bit codes of k = 8w .. 8w+7; element 8w+j
//            sits in bits 4j .. 4j+3 (low nibble first). (Equivalently a DType::Q4 tensor of dims [N, K].)
//   scales:  [N, K/G], row-major: one scale per row and group of G consecutive k, as f16 (DType::F16, two per
//            u32 word, group i in the low half of word i/2 when i is even: what the GGUF loader uploads, Q4_0's own
//            block scales, so the GPU holds 18 bytes per 32 weights as the file does) or f32 (the et_vk op's form;
//            the host helpers below). Kernels read either through q4gsw_scale (ops/linear/q4gsw_scale.wgsl).
//   value:   W[n][k] = (code(n, k) - 8) * scales[n][k / G], code in 0..15 (so values -8..7 times the scale).
// G is 32, 64 or 128 and K must be a multiple of G (hence of 8 and 32); other values are build errors.
// This is the layout the GGUF Q4_0 repacker produces (Q4_0: G = 32, code = stored nibble). The kernels use it
// as is (no prepacking): a GEMV workgroup reads rows as vec4<u32> (32 codes, one scale per vec4 since G >= 32)
// and decodes nibbles with exponent tricks (ops/linear/q4_decode.wgsl).
//
// The host helpers below quantize/dequantize in this layout (tests, benchmarks, model loaders).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace wgrt::ops {

struct Q4gswWeights {
  std::vector<uint32_t> qweight;  // [N, K/8]
  std::vector<float> scales;      // [N, K/G] f32 (round with util/half.h's f32_to_f16 for the f16 form)
};

// True if G is 32, 64 or 128 and K > 0 is a multiple of G.
bool q4gsw_shape_ok(int64_t K, int64_t G);

// Symmetric round-to-nearest quantization of w [N, K] (row-major): scale = max|w| / 8 per group with the
// sign of the largest-magnitude element folded so that it maps to code 0 (-8); codes clamped to 0..15.
// Throws InvalidArgument if the shape is not allowed (q4gsw_shape_ok) or w.size() != N*K.
Q4gswWeights q4gsw_quantize(std::span<const float> w, int64_t N, int64_t K, int64_t G);

// W [N, K] from the packed form (exactly the values the kernels use).
std::vector<float> q4gsw_dequantize(std::span<const uint32_t> qweight, std::span<const float> scales, int64_t N,
                                    int64_t K, int64_t G);

}  // namespace wgrt::ops
