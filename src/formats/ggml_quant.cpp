#include "formats/ggml_quant.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <system_error>
#include <thread>
#include <vector>
#include <wgrt/error.h>

#include "formats/ggml_blocks.h"
#include "util/half.h"

namespace wgrt {
namespace {

constexpr const char* kDecodableTypes =
    "it loads F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS, MXFP4, IQ2_XXS, IQ2_XS, "
    "IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M";

uint16_t load_u16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

// Packs the low nibbles of the 8 bytes of x (each byte < 16; byte i little-endian) into a word with byte i's
// value at bits 4i..4i+3.
uint32_t pack_nibbles(uint64_t x) {
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFull;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFull;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFull;
  return static_cast<uint32_t>(x);
}

// Runs f(begin, end) over [0, n) split into contiguous ranges on up to hardware_concurrency threads (at least
// `grain` items per range; small n runs inline on the caller). f must be safe to run concurrently on
// disjoint ranges. A thread that cannot be started runs its range inline.
template <typename F>
void parallel_ranges(uint64_t n, uint64_t grain, const F& f) {
  const uint64_t hw = std::max(1u, std::thread::hardware_concurrency());
  const uint64_t parts = std::min<uint64_t>(hw, std::max<uint64_t>(1, n / std::max<uint64_t>(grain, 1)));
  if (parts <= 1) {
    f(0, n);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(parts - 1);
  const uint64_t step = (n + parts - 1) / parts;
  for (uint64_t p = 1; p < parts; ++p) {
    const uint64_t b = std::min(n, p * step), e = std::min(n, (p + 1) * step);
    try {
      pool.emplace_back([&f, b, e] { f(b, e); });
    } catch (const std::system_error&) {  // no threads here (a wasm build without pthreads, a process limit)
      f(b, e);
    }
  }
  f(0, std::min(n, step));
  for (std::thread& t : pool) t.join();
}

void check_size(GgmlType type, std::span<const uint8_t> data, uint64_t n_elems, const std::string& name) {
  auto tr = ggml_type_traits(static_cast<uint32_t>(type));
  if (!tr) throw FormatError("tensor " + name + ": unknown ggml type " + ggml_type_name(type));
  if (n_elems % tr->block_elems != 0)
    throw FormatError("tensor " + name + ": " + std::to_string(n_elems) + " elements is not a multiple of the " +
                      tr->name + " block size " + std::to_string(tr->block_elems));
  // n_elems <= data-bounded sizes in practice; guard the multiply anyway.
  uint64_t blocks = n_elems / tr->block_elems;
  uint64_t need;
  if (__builtin_mul_overflow(blocks, tr->block_bytes, &need) || need != data.size())
    throw FormatError("tensor " + name + ": data is " + std::to_string(data.size()) + " bytes, expected " +
                      std::to_string(blocks) + " blocks of " + std::to_string(tr->block_bytes));
}

// llama.cpp: MIN(15, (int8_t)(t + 8.5f)). Same for in-range t; the clamps only make NaN / out-of-range
// inputs (which would be UB in a plain cast) well defined.
int q4_code(float t) {
  float u = t + 8.5f;
  if (!(u >= 0.0f)) u = 0.0f;
  if (u > 15.0f) u = 15.0f;
  return static_cast<int>(u);
}
int q8_code(float t) {
  float u = std::round(t);
  if (!(u >= -128.0f)) u = u != u ? 0.0f : -128.0f;
  if (u > 127.0f) u = 127.0f;
  return static_cast<int>(u);
}

using BlockDecoder = void (*)(const uint8_t*, float*);

BlockDecoder block_decoder(GgmlType type) {
  using namespace ggml_blocks;
  switch (type) {
    case GgmlType::Q4_0: return decode_q4_0;
    case GgmlType::Q4_1: return decode_q4_1;
    case GgmlType::Q5_0: return decode_q5_0;
    case GgmlType::Q5_1: return decode_q5_1;
    case GgmlType::Q8_0: return decode_q8_0;
    case GgmlType::IQ4_NL: return decode_iq4_nl;
    case GgmlType::MXFP4: return decode_mxfp4;
    case GgmlType::Q2_K: return decode_q2_k;
    case GgmlType::Q3_K: return decode_q3_k;
    case GgmlType::Q4_K: return decode_q4_k;
    case GgmlType::Q5_K: return decode_q5_k;
    case GgmlType::Q6_K: return decode_q6_k;
    case GgmlType::IQ4_XS: return decode_iq4_xs;
    case GgmlType::IQ2_XXS: return decode_iq2_xxs;
    case GgmlType::IQ2_XS: return decode_iq2_xs;
    case GgmlType::IQ2_S: return decode_iq2_s;
    case GgmlType::IQ3_XXS: return decode_iq3_xxs;
    case GgmlType::IQ3_S: return decode_iq3_s;
    case GgmlType::IQ1_S: return decode_iq1_s;
    case GgmlType::IQ1_M: return decode_iq1_m;
    default: return nullptr;
  }
}

}  // namespace

bool ggml_type_decodable(GgmlType t) {
  return t == GgmlType::F32 || t == GgmlType::F16 || t == GgmlType::BF16 || block_decoder(t) != nullptr;
}

static void check_decodable(GgmlType type, std::span<const uint8_t> data, uint64_t n_elems, const std::string& name) {
  if (!ggml_type_decodable(type))
    throw Unsupported("tensor " + name + " has type " + ggml_type_name(type) + ", which wgrt cannot load (" +
                      kDecodableTypes + ")");
  check_size(type, data, n_elems, name);
}

void dequantize_into(GgmlType type, std::span<const uint8_t> data, uint64_t n_elems, float* out,
                     const std::string& name) {
  check_decodable(type, data, n_elems, name);
  const uint8_t* p = data.data();
  switch (type) {
    case GgmlType::F32:
      if (n_elems) std::memcpy(out, p, n_elems * 4);
      return;
    case GgmlType::F16:
      for (uint64_t i = 0; i < n_elems; ++i) out[i] = f16_to_f32(load_u16(p + 2 * i));
      return;
    case GgmlType::BF16:
      for (uint64_t i = 0; i < n_elems; ++i) out[i] = bf16_to_f32(load_u16(p + 2 * i));
      return;
    default: {
      const BlockDecoder dec = block_decoder(type);
      const GgmlTypeTraits tr = *ggml_type_traits(static_cast<uint32_t>(type));
      for (uint64_t b = 0; b < n_elems / tr.block_elems; ++b) dec(p + b * tr.block_bytes, out + b * tr.block_elems);
    }
  }
}

std::vector<float> dequantize(GgmlType type, std::span<const uint8_t> data, uint64_t n_elems,
                              const std::string& name) {
  check_decodable(type, data, n_elems, name);
  std::vector<float> out(static_cast<size_t>(n_elems));
  dequantize_into(type, data, n_elems, out.data(), name);
  return out;
}

std::vector<uint8_t> quantize_q4_0(std::span<const float> x) {
  if (x.size() % 32 != 0)
    throw InvalidArgument("quantize_q4_0: " + std::to_string(x.size()) + " values is not a multiple of 32");
  std::vector<uint8_t> out(x.size() / 32 * 18);
  for (size_t b = 0; b < x.size() / 32; ++b) {
    const float* v = x.data() + b * 32;
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < 32; ++j) {
      if (amax < std::fabs(v[j])) {
        amax = std::fabs(v[j]);
        max = v[j];
      }
    }
    const float d = max / -8.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    uint8_t* blk = out.data() + b * 18;
    uint16_t dh = f32_to_f16(d);
    std::memcpy(blk, &dh, 2);
    for (int j = 0; j < 16; ++j) {
      blk[2 + j] = static_cast<uint8_t>(q4_code(v[j] * id) | (q4_code(v[j + 16] * id) << 4));
    }
  }
  return out;
}

std::vector<uint8_t> quantize_q8_0(std::span<const float> x) {
  if (x.size() % 32 != 0)
    throw InvalidArgument("quantize_q8_0: " + std::to_string(x.size()) + " values is not a multiple of 32");
  std::vector<uint8_t> out(x.size() / 32 * 34);
  for (size_t b = 0; b < x.size() / 32; ++b) {
    const float* v = x.data() + b * 32;
    float amax = 0.0f;
    for (int j = 0; j < 32; ++j) amax = std::fmax(amax, std::fabs(v[j]));
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    uint8_t* blk = out.data() + b * 34;
    uint16_t dh = f32_to_f16(d);
    std::memcpy(blk, &dh, 2);
    for (int j = 0; j < 32; ++j) blk[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(q8_code(v[j] * id)));
  }
  return out;
}

Q4gsw repack_q4_0_to_q4gsw(std::span<const uint8_t> data, uint64_t rows, uint64_t cols, const std::string& name) {
  if (cols % 32 != 0)
    throw FormatError("tensor " + name + ": Q4_0 row length " + std::to_string(cols) + " is not a multiple of 32");
  uint64_t n;
  if (__builtin_mul_overflow(rows, cols, &n)) throw FormatError("tensor " + name + ": shape overflows");
  check_size(GgmlType::Q4_0, data, n, name);
  Q4gsw r;
  r.rows = rows;
  r.cols = cols;
  const uint64_t gpr = cols / 32;  // groups (= Q4_0 blocks) per row
  r.qweight.resize(static_cast<size_t>(n / 8));
  r.scales.resize(static_cast<size_t>(rows * gpr));
  // Block b of the whole matrix (row-major, gpr per row) maps to words 4b..4b+3 and scale b: rows are
  // contiguous in both layouts, so the work splits into independent block ranges.
  const uint64_t blocks = rows * gpr;
  auto repack_range = [&](uint64_t b0, uint64_t b1) {
    for (uint64_t b = b0; b < b1; ++b) {
      const uint8_t* blk = data.data() + b * 18;
      r.scales[b] = load_u16(blk);
      // Byte j of the block holds q[j] (low nibble) and q[j + 16] (high nibble); word w of q4gsw holds
      // q[8w..8w+7], element 8w+i in bits 4i..4i+3. Gather 8 nibbles of a 64-bit load into one word.
      uint64_t lo, hi;
      std::memcpy(&lo, blk + 2, 8);
      std::memcpy(&hi, blk + 10, 8);
      uint32_t* words = r.qweight.data() + b * 4;
      words[0] = pack_nibbles(lo & 0x0F0F0F0F0F0F0F0Full);
      words[1] = pack_nibbles(hi & 0x0F0F0F0F0F0F0F0Full);
      words[2] = pack_nibbles((lo >> 4) & 0x0F0F0F0F0F0F0F0Full);
      words[3] = pack_nibbles((hi >> 4) & 0x0F0F0F0F0F0F0F0Full);
    }
  };
  parallel_ranges(blocks, uint64_t(1) << 15, repack_range);
  return r;
}

}  // namespace wgrt
