#include "support/synth_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>

#include "formats/gguf_writer.h"
#include "util/half.h"

namespace wgrt::test {

std::vector<float> synth_values(size_t n, uint64_t seed, float lo, float hi) {
  std::vector<float> v(n);
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 12345;
  for (auto& x : v) {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    x = lo + (hi - lo) * static_cast<float>((z >> 40) * (1.0 / 16777216.0));
  }
  return v;
}

namespace {

uint64_t name_seed(const std::string& name, uint32_t seed) { return std::hash<std::string>{}(name) ^ seed; }

// Rows of a [n_heads*hd, cols] block reordered rotate-half -> interleaved within each head.
std::vector<float> permute_rows(const std::vector<float>& w, int n_heads, int hd, size_t cols) {
  std::vector<float> out(w.size());
  for (int h = 0; h < n_heads; ++h)
    for (int i = 0; i < hd / 2; ++i)
      for (int half = 0; half < 2; ++half) {
        size_t dst = size_t(h * hd + 2 * i + half), src = size_t(h * hd + i + half * hd / 2);
        std::memcpy(&out[dst * cols], &w[src * cols], cols * sizeof(float));
      }
  return out;
}

// Q5_0 blocks of v (rows of a multiple of 32), as ggml's reference quantizer makes them: per 32 values, d = the
// signed value of largest magnitude / -16 (f16), codes round(v / d + 16) clamped to 0..31, the low nibbles of
// elements j and j + 16 in qs[j], their 5th bits in bits j and j + 16 of qh. (Only the file's validity matters: the
// tests decode it with src/formats on every side.)
std::vector<uint8_t> quantize_q5_0(const std::vector<float>& v) {
  std::vector<uint8_t> out;
  for (size_t b = 0; b < v.size(); b += 32) {
    float amax = 0, mx = 0;
    for (size_t j = 0; j < 32; ++j)
      if (std::fabs(v[b + j]) > amax) amax = std::fabs(v[b + j]), mx = v[b + j];
    const float d = mx / -16.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
    uint8_t blk[22] = {};
    const uint16_t h = f32_to_f16(d);
    std::memcpy(blk, &h, 2);
    uint32_t qh = 0;
    for (int j = 0; j < 16; ++j) {
      const int q0 = std::min(31, int(v[b + size_t(j)] * id + 16.5f)), q1 = std::min(31, int(v[b + 16 + size_t(j)] * id + 16.5f));
      blk[6 + j] = uint8_t((q0 & 15) | ((q1 & 15) << 4));
      qh |= uint32_t((q0 >> 4) & 1) << j | uint32_t((q1 >> 4) & 1) << (j + 16);
    }
    std::memcpy(blk + 2, &qh, 4);
    out.insert(out.end(), blk, blk + 22);
  }
  return out;
}

}  // namespace

std::vector<uint8_t> synth_llama_gguf(const SynthSpec& s) {
  GgufWriter w;
  const std::string a = s.arch + ".";
  w.set("general.architecture", GgufValue::of_string(s.arch));
  w.set("general.name", GgufValue::of_string("synthetic"));
  w.set(a + "context_length", GgufValue::of_u32(s.ctx));
  w.set(a + "embedding_length", GgufValue::of_u32(s.dim));
  w.set(a + "feed_forward_length", GgufValue::of_u32(s.hidden));
  w.set(a + "block_count", GgufValue::of_u32(s.layers));
  w.set(a + "attention.head_count", GgufValue::of_u32(s.heads));
  w.set(a + "attention.head_count_kv", GgufValue::of_u32(s.kv_heads));
  w.set(a + "attention.layer_norm_rms_epsilon", GgufValue::of_f32(1e-5f));
  w.set(a + "rope.freq_base", GgufValue::of_f32(s.rope_theta));
  const int hd = s.dim / s.heads;
  const uint64_t D = s.dim, H = s.hidden, Q = uint64_t(s.heads) * hd, KV = uint64_t(s.kv_heads) * hd;
  auto mat = [&](const std::string& name, uint64_t rows, uint64_t cols, int perm_heads = 0) {
    auto v = synth_values(rows * cols, name_seed(name, s.seed));
    if (perm_heads && s.permute_qk_to_interleaved) v = permute_rows(v, perm_heads, hd, cols);
    const bool odd_v = s.attn_v_type && name.ends_with("attn_v") && name[4] % 2 == 1;  // "blk.<odd>." (layers < 10)
    if (odd_v && *s.attn_v_type == GgmlType::Q5_0)  // a type GgufWriter does not quantize
      w.add_tensor_raw(name + ".weight", {cols, rows}, uint32_t(GgmlType::Q5_0), quantize_q5_0(v));
    else
      w.add_tensor_f32(name + ".weight", {cols, rows}, v, odd_v ? *s.attn_v_type : s.matrix_type);
  };
  auto vec = [&](const std::string& name, uint64_t n, bool norm, int perm_heads = 0) {
    auto v = norm ? synth_values(n, name_seed(name, s.seed), 0.5f, 1.5f) : synth_values(n, name_seed(name, s.seed));
    if (perm_heads && s.permute_qk_to_interleaved) v = permute_rows(v, perm_heads, hd, 1);
    w.add_tensor_f32(name, {n}, v, GgmlType::F32);
  };
  mat("token_embd", s.vocab, D);
  vec("output_norm.weight", D, true);
  if (!s.tied) mat("output", s.vocab, D);
  for (int i = 0; i < s.layers; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    vec(b + "attn_norm.weight", D, true);
    mat(b + "attn_q", Q, D, s.heads);
    mat(b + "attn_k", KV, D, s.kv_heads);
    mat(b + "attn_v", KV, D);
    mat(b + "attn_output", D, Q);
    vec(b + "ffn_norm.weight", D, true);
    mat(b + "ffn_gate", H, D);
    mat(b + "ffn_up", H, D);
    mat(b + "ffn_down", D, H);
    if (s.qkv_bias) {
      vec(b + "attn_q.bias", Q, false, s.heads);
      vec(b + "attn_k.bias", KV, false, s.kv_heads);
      vec(b + "attn_v.bias", KV, false);
    }
    if (s.qk_norm) {
      vec(b + "attn_q_norm.weight", hd, true, 1);
      vec(b + "attn_k_norm.weight", hd, true, 1);
    }
  }
  return w.to_bytes();
}

std::vector<uint8_t> synth_llama2c(int dim, int hidden, int layers, int heads, int kv_heads, int vocab, int seq_len,
                                   uint32_t seed) {
  const int32_t hdr[7] = {dim, hidden, layers, heads, kv_heads, vocab, seq_len};
  const uint64_t V = vocab < 0 ? -int64_t(vocab) : vocab, D = dim, kv = uint64_t(dim) / heads * kv_heads;
  uint64_t n = V * D + layers * (2 * D + 2 * D * D + 2 * kv * D + 3 * D * uint64_t(hidden)) + D +
               uint64_t(seq_len) * (dim / heads);
  if (vocab < 0) n += V * D;
  std::vector<float> v = synth_values(n, seed);
  std::vector<uint8_t> out(28 + n * 4);
  std::memcpy(out.data(), hdr, 28);
  std::memcpy(out.data() + 28, v.data(), n * 4);
  return out;
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

}  // namespace wgrt::test
