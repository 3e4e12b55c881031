// RoPE tables for et_vk.apply_rotary_emb(_hf): cos/sin of angle(pos, i) = pos * theta^(-2i/D), computed in
// double on the CPU and rounded to f32 (as Meta's precompute_freqs_cis / llama2.c do).
// Layout: row-major [c_max, D/2]; element (pos, i) at pos * (D/2) + i.
// Throws InvalidArgument for D odd or <= 0, c_max <= 0, theta <= 0, or a table of more than 2^28 elements.
#pragma once
#include <cstdint>
#include <vector>

namespace wgrt::ops {

struct RopeTables {
  std::vector<float> cos, sin;  // each c_max * D/2
};

RopeTables rope_tables(int64_t c_max, int64_t head_dim, double theta);

}  // namespace wgrt::ops
