// Plain C++ references (double accumulation) for the RoPE, KV-cache and attention op tests.
// Layouts are row-major, innermost last: x/q/k/v [B,S,H,D], caches [B,C_max,H,D].
#pragma once
#include <cstdint>
#include <vector>

namespace wgrt::ref {

// Rotary embedding of rows pos..pos+S-1 with angle (pos+s) * theta^(-2i/D), computed in double here.
// hf=false: Meta interleaved pairs (x[2i], x[2i+1]); hf=true: rotate-half pairs (x[i], x[i+D/2]).
std::vector<float> rope(const std::vector<float>& x, int64_t B, int64_t S, int64_t H, int64_t D, int64_t pos,
                        double theta, bool hf);

// cache[b, pos+s, h, :] = v[b, s, h, :].
void cache_write(std::vector<float>& cache, const std::vector<float>& v, int64_t B, int64_t S, int64_t H, int64_t D,
                 int64_t c_max, int64_t pos);

// Softmax attention of q [B,S,Hq,D] over cache rows [0, pos+S) (causal: query s sees rows <= pos+s);
// GQA: query head h uses kv head h / (Hq/Hkv). Returns [B,S,Hq,D]. softcap > 0: scores (after the scale)
// become softcap * tanh(score / softcap); window > 0: query s sees only rows t with pos + s - t < window.
std::vector<float> attention(const std::vector<float>& q, const std::vector<float>& k_cache,
                             const std::vector<float>& v_cache, int64_t B, int64_t S, int64_t Hq, int64_t Hkv,
                             int64_t D, int64_t c_max, int64_t pos, bool causal, double scale, double softcap = 0,
                             int64_t window = 0);

}  // namespace wgrt::ref
