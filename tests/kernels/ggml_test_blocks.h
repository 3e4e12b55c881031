// Random ggml block bytes for the block-format kernel tests (linear_ggml_test.cpp, linear_ggml_fused_test.cpp,
// linear_mmq_ggml_test.cpp):
// every type the GPU kernels decode, with each block's f16 fields set to a random normal f16 in +-[0.01, 0.1]
// (BF16: normal values in +-[2^-8, 2^8); MXFP4: E8M0 scales 2^-8 .. 2^1; IQ1_M: its split f16 scale in
// +-[2^-7, 2^-3)); all other bytes uniform. Deterministic in the seed.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "formats/ggml_quant.h"
#include "formats/ggml_type.h"
#include "gpu_fixture.h"
#include "graph/executable.h"
#include "reference/ops_a_reference.h"
#include "ops/linear/linear_ggml.h"
#include "util/half.h"

namespace wgrt::test {

struct TypeInfo {
  GgmlType type;
  std::vector<int> half_offsets;  // f16 fields of a block (F16: the element itself)
};

// Every type the kernels decode. BF16's element and MXFP4's E8M0 byte are set separately (random_blocks).
inline const std::vector<TypeInfo> kTypes = {
    {GgmlType::F16, {0}},      {GgmlType::BF16, {}},       {GgmlType::Q4_0, {0}},     {GgmlType::Q4_1, {0, 2}},
    {GgmlType::Q5_0, {0}},     {GgmlType::Q5_1, {0, 2}},   {GgmlType::Q8_0, {0}},     {GgmlType::Q2_K, {80, 82}},
    {GgmlType::Q3_K, {108}},   {GgmlType::Q4_K, {0, 2}},   {GgmlType::Q5_K, {0, 2}},  {GgmlType::Q6_K, {208}},
    {GgmlType::IQ4_NL, {0}},   {GgmlType::IQ4_XS, {0}},    {GgmlType::MXFP4, {}},     {GgmlType::IQ2_XXS, {0}},
    {GgmlType::IQ2_XS, {0}},   {GgmlType::IQ2_S, {0}},     {GgmlType::IQ3_XXS, {0}},  {GgmlType::IQ3_S, {0}},
    {GgmlType::IQ1_S, {0}},    {GgmlType::IQ1_M, {}}};

inline uint64_t next(uint64_t& s) {
  s += 0x9E3779B97F4A7C15ull;
  uint64_t z = s;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline const TypeInfo& type_info(GgmlType t) {
  for (const TypeInfo& i : kTypes)
    if (i.type == t) return i;
  throw std::logic_error("no test type info");
}

// Random blocks for N rows of K elements, in the file's layout (gpu_words: the GPU's).
inline std::vector<uint8_t> random_blocks(const TypeInfo& t, int64_t N, int64_t K, uint64_t seed) {
  const GgmlTypeTraits blk = *ggml_type_traits(uint32_t(t.type));
  const size_t nb = size_t(N * K / blk.block_elems);
  std::vector<uint8_t> b(nb * size_t(blk.block_bytes));
  uint64_t s = seed;
  for (auto& v : b) v = uint8_t(next(s));
  for (size_t i = 0; i < nb; ++i) {
    uint8_t* blkp = &b[i * size_t(blk.block_bytes)];
    if (t.type == GgmlType::BF16) {  // a random normal bf16 in +-[2^-8, 2^8)
      const uint16_t h = uint16_t(((next(s) & 1) << 15) | ((127 - 8 + next(s) % 16) << 7) | (next(s) & 0x7F));
      std::memcpy(blkp, &h, 2);
    }
    if (t.type == GgmlType::MXFP4) blkp[0] = uint8_t(120 + next(s) % 10);  // d = 2^-8 .. 2^1
    if (t.type == GgmlType::IQ1_M) {  // d: a normal f16 in +-[2^-7, 2^-3) split over the scales' top nibbles
      const uint16_t h = uint16_t(((next(s) & 1) << 15) | ((15 - 7 + next(s) % 4) << 10) | (next(s) & 0x3FF));
      for (int k = 0; k < 4; ++k) blkp[49 + 2 * k] = uint8_t((blkp[49 + 2 * k] & 0x0F) | (((h >> (4 * k)) & 15) << 4));
    }
    for (int off : t.half_offsets) {
      const double u = double(next(s) >> 11) / double(1ull << 53);
      float v = float(0.01 + 0.09 * u) * ((next(s) & 1) ? -1.0f : 1.0f);
      const uint16_t h = f32_to_f16(v);
      std::memcpy(blkp + off, &h, 2);
    }
  }
  return b;
}

// File-layout blocks of type t as the u32 words of their GPU layout (ops::ggml_to_gpu_layout; the last word
// zero-padded).
inline std::vector<uint32_t> gpu_words(GgmlType t, const std::vector<uint8_t>& raw) {
  const std::vector<uint8_t> g = ops::ggml_to_gpu_layout(int64_t(t), raw);
  std::vector<uint32_t> words((g.size() + 3) / 4, 0u);
  std::memcpy(words.data(), g.data(), g.size());
  return words;
}

// Random blocks for a weight stacked from (type, rows) parts of K columns: the op's u32 words, each part where
// ops::ggml_stack_layout places it (part i from random_blocks with seed + 31 i), and W [sum rows, K] as the
// src/formats decoders dequantize it.
struct StackedBlocks {
  std::vector<uint32_t> words;
  std::vector<float> w;
};
inline StackedBlocks random_stack(const std::vector<std::pair<int64_t, int64_t>>& type_rows, int64_t K, uint64_t seed) {
  const ops::GgmlStack st = ops::ggml_stack_layout(type_rows, K);
  StackedBlocks r;
  r.words.assign(st.bytes / 4, 0u);
  for (size_t i = 0; i < st.parts.size(); ++i) {
    const GgmlType t = GgmlType(st.parts[i].wtype);
    const std::vector<uint8_t> raw = random_blocks(type_info(t), st.parts[i].rows, K, seed + 31 * i);
    const std::vector<float> wi = dequantize(t, raw, uint64_t(st.parts[i].rows * K), "w");
    r.w.insert(r.w.end(), wi.begin(), wi.end());
    ops::ggml_to_gpu_layout(int64_t(t), raw, reinterpret_cast<uint8_t*>(r.words.data()) + st.parts[i].offset);
  }
  return r;
}

// wgrt.linear_ggml.default over random blocks of type t, W [N, K] (w: its C++ dequantization), x [<= max_m, K],
// a random bias or none, built under the device's current tuning.
struct GgmlLinear {
  std::unique_ptr<ExecutableGraph> exe;
  ValueId x = -1, out = -1;
  std::vector<float> w, bias;
};

// Workgroups along x of the first route-0 (decode) dispatch, from the executable's dump ("... grid XxYxZ route 0").
inline int64_t route0_workgroups(const ExecutableGraph& exe) {
  std::istringstream in(exe.dump());
  for (std::string line; std::getline(in, line);) {
    const size_t g = line.find(" grid ");
    if (g != std::string::npos && line.find(" route 0") != std::string::npos) return std::stoll(line.substr(g + 6));
  }
  return -1;
}

inline GgmlLinear make(const TypeInfo& t, int64_t N, int64_t K, bool with_bias, uint64_t seed, int64_t max_m = 20) {
  std::vector<uint8_t> raw = random_blocks(t, N, K, seed);
  GgmlLinear r;
  r.w = dequantize(t.type, raw, uint64_t(N * K), "w");
  std::vector<uint32_t> words = gpu_words(t.type, raw);
  Graph g;
  r.x = g.input("x", DType::F32, {max_m, K});
  const int64_t nw = int64_t(words.size());
  ValueId w = g.constant("w", DType::U32, {nw}, ConstantData::from_vector(std::move(words)));
  ValueId bias = g.none();
  if (with_bias) {
    r.bias = wgrt::test::ref::random_floats(size_t(N), uint32_t(seed) + 7, -1.0f, 1.0f);
    bias = g.constant("bias", DType::F32, {N}, ConstantData::from_vector(r.bias));
  }
  r.out = g.tensor_like(DType::F32, "out");
  g.op("wgrt.linear_ggml.default", {r.x, w, g.int_value(int64_t(t.type)), g.int_value(N), bias, r.out}, "lin");
  g.output(r.out);
  r.exe = ExecutableGraph::build(std::move(g), gpu());
  return r;
}

}  // namespace wgrt::test
