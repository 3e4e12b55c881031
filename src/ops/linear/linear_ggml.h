// Which ggml weight types wgrt.linear_ggml.default keeps in their block format on the GPU
// (ops/linear/linear_ggml.cpp, gemv_ggml.wgsl). Any thread; no device needed.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace wgrt::ops {

struct GgmlBlockShape {
  int64_t elems, bytes;  // elements and bytes per block
};

// The block shape of ggml type id `wtype` if the GPU kernels decode it, nullopt otherwise: F16 (1), BF16 (30),
// Q4_0 (2), Q4_1 (3), Q5_0 (6), Q5_1 (7), Q8_0 (8), Q2_K (10), Q3_K (11), Q4_K (12), Q5_K (13), Q6_K (14),
// IQ4_NL (20), IQ4_XS (23), MXFP4 (39), IQ2_XXS (16), IQ2_XS (17), IQ2_S (22), IQ3_XXS (18), IQ3_S (21),
// IQ1_S (19), IQ1_M (29): every type src/formats decodes except F32. `bytes` is the block's size on the GPU
// (ggml_to_gpu_layout): the file's, except Q6_K (212 there, 210 in a file).
std::optional<GgmlBlockShape> ggml_gpu_block(int64_t wtype);

// The GPU layout of ggml blocks, which wgrt.linear_ggml and wgrt.embedding_ggml read: the file's blocks unchanged,
// except Q6_K, whose 210-byte blocks (u8 ql[128], u8 qh[64], i8 scales[16], f16 d) are followed by 2 zero bytes.
// Every Q6_K block then starts on a u32 word, so its kernels load each word once instead of funnelling two words
// for every other block (lavapipe, K 2048 x N 8192 GEMV, 1 row of x: 7.5 -> 5.5 ms); the footprint grows by 1%.
// ggml_gpu_bytes: the GPU size of `file_bytes` bytes of whole blocks of wtype. ggml_to_gpu_layout: writes that
// many bytes to dst from `file` (whole blocks in the file's layout) and returns their count. Both throw
// InvalidArgument for a type ggml_gpu_block() does not list or a size that is not whole blocks. Any thread.
uint64_t ggml_gpu_bytes(int64_t wtype, uint64_t file_bytes);
uint64_t ggml_to_gpu_layout(int64_t wtype, std::span<const uint8_t> file, uint8_t* dst);
std::vector<uint8_t> ggml_to_gpu_layout(int64_t wtype, std::span<const uint8_t> file);

// Whether the layout-aware block GEMV (gemv_kq.wgsl: whole sub-blocks per invocation, each weight decoded once
// for up to 8 rows of x) has type `wtype`: Q4_1 (3), Q5_0 (6), Q8_0 (8), Q4_K (12), Q5_K (13), Q6_K (14).
bool ggml_gemv_blocks_type(int64_t wtype);

// Whether the int8 prefill GEMM (gemm_mmq_ggml.wgsl: each 32-k sub-block as signed bytes with its scale and
// minimum, dot4I8Packed against x quantized per 32-k block) has type `wtype`: Q4_0 (2), Q4_1 (3), Q5_0 (6),
// Q5_1 (7), Q8_0 (8), Q4_K (12), Q5_K (13), Q6_K (14).
bool ggml_mmq_type(int64_t wtype);

// How a [rows] x row_bytes weight buffer (padded to whole u32 words) is bound: one chunk when it fits
// max_binding_bytes, else chunks of whole multiples of 256 rows (so every chunk starts 256-byte aligned), each
// bound as the byte range [offset, offset + size) (size rounded up to whole words, within the padded buffer).
// Throws LimitError when 256 rows do not fit one binding.
struct GgmlRowChunk {
  int64_t row0 = 0, rows = 0;
  uint64_t offset = 0, size = 0;
};
std::vector<GgmlRowChunk> ggml_row_chunks(int64_t rows, uint64_t row_bytes, uint64_t max_binding_bytes);

// A weight stacked from parts of different types along N (wgrt.linear_ggml's wtype argument as the int list
// [type_0, rows_0, type_1, rows_1]; a Q4_K_M layer's [Wq; Wk] in Q4_K with Wv in Q6_K): part i holds rows
// row0 .. row0 + rows - 1 of W, each K / block_elems blocks of its type (row_bytes bytes), from byte `offset` of the
// buffer: part 0 at 0, every next part at the end of the one before rounded up to 256 bytes
// (minStorageBufferOffsetAlignment, so each part can be bound alone). `bytes`: the buffer's size in whole u32 words
// (bytes). Throws InvalidArgument (naming the part) for a type ggml_gpu_block() does not list, K not a positive
// multiple of its block size, or a part of no rows. Any thread.
struct GgmlStackPart {
  int64_t wtype = 0, row0 = 0, rows = 0;
  uint64_t offset = 0, row_bytes = 0;
};
struct GgmlStack {
  std::vector<GgmlStackPart> parts;
  uint64_t bytes = 0;
};
GgmlStack ggml_stack_layout(const std::vector<std::pair<int64_t, int64_t>>& type_rows, int64_t K);

// wgrt.linear_ggml_rope_qkv's norm-and-bias vector [Kb + N]: the element Kb where the q/k/v bias starts after the
// norm weight [K] and zero padding, K rounded up to 64 (a 256-byte-aligned binding offset, so the routes that bind
// the bias apart take it as a range of the vector; gemv_kq_rope.wgsl computes the same). Pure; any thread.
int64_t rope_bias_start(int64_t K);

}  // namespace wgrt::ops
