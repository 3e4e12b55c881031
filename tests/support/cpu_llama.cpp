#include "support/cpu_llama.h"

#include <cmath>
#include <string>
#include <wgrt/error.h>

#include "util/half.h"

namespace wgrt::test {
namespace {

// out[i] = sum_j w[i*n + j] * x[j] (+ b[i]), w is [d, n] row-major.
std::vector<float> matvec(const std::vector<float>& w, const std::vector<float>& x, size_t d, size_t n,
                          const std::vector<float>* b = nullptr) {
  std::vector<float> out(d);
  for (size_t i = 0; i < d; ++i) {
    double s = 0.0;
    for (size_t j = 0; j < n; ++j) s += static_cast<double>(w[i * n + j]) * x[j];
    if (b && !b->empty()) s += (*b)[i];
    out[i] = static_cast<float>(s);
  }
  return out;
}

void rmsnorm(float* out, const float* x, const float* w, size_t n, double eps) {
  double ss = 0.0;
  for (size_t i = 0; i < n; ++i) ss += static_cast<double>(x[i]) * x[i];
  double inv = 1.0 / std::sqrt(ss / static_cast<double>(n) + eps);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(w[i] * (x[i] * inv));
}

std::vector<float> rmsnorm(const std::vector<float>& x, const std::vector<float>& w, double eps) {
  std::vector<float> out(x.size());
  rmsnorm(out.data(), x.data(), w.data(), x.size(), eps);
  return out;
}

// RoPE on one head of size hd at position pos.
void rope(float* v, int hd, int pos, double theta, bool interleaved) {
  for (int i = 0; i < hd / 2; ++i) {
    double freq = std::pow(theta, -2.0 * i / hd);
    double ang = pos * freq, c = std::cos(ang), s = std::sin(ang);
    int a = interleaved ? 2 * i : i, b = interleaved ? 2 * i + 1 : i + hd / 2;
    double x0 = v[a], x1 = v[b];
    v[a] = static_cast<float>(x0 * c - x1 * s);
    v[b] = static_cast<float>(x0 * s + x1 * c);
  }
}

}  // namespace

CpuLlama::CpuLlama(const LlamaConfig& cfg, const WeightSource& w, bool f16_kv) : cfg_(cfg), f16_kv_(f16_kv) {
  tok_embd_ = w.get("tok_embd").to_f32();
  output_norm_ = w.get("output_norm").to_f32();
  output_ = cfg.tied_embeddings ? tok_embd_ : w.get("output").to_f32();
  layers_.resize(cfg.n_layers);
  for (int i = 0; i < cfg.n_layers; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    Layer& L = layers_[i];
    L.attn_norm = w.get(b + "attn_norm").to_f32();
    L.wq = w.get(b + "attn_q").to_f32();
    L.wk = w.get(b + "attn_k").to_f32();
    L.wv = w.get(b + "attn_v").to_f32();
    L.wo = w.get(b + "attn_output").to_f32();
    L.ffn_norm = w.get(b + "ffn_norm").to_f32();
    L.w1 = w.get(b + "ffn_gate").to_f32();
    L.w2 = w.get(b + "ffn_down").to_f32();
    L.w3 = w.get(b + "ffn_up").to_f32();
    if (cfg.has_qkv_bias) {
      L.bq = w.get(b + "attn_q.bias").to_f32();
      L.bk = w.get(b + "attn_k.bias").to_f32();
      L.bv = w.get(b + "attn_v.bias").to_f32();
    }
    if (cfg.has_qk_norm) {
      L.q_norm = w.get(b + "attn_q_norm").to_f32();
      L.k_norm = w.get(b + "attn_k_norm").to_f32();
    }
  }
  key_cache_.resize(cfg.n_layers);
  value_cache_.resize(cfg.n_layers);
}

std::vector<float> CpuLlama::forward(int token, int pos) {
  const LlamaConfig& c = cfg_;
  if (pos != next_pos_ || pos >= c.context_length)
    throw InvalidArgument("CpuLlama::forward: pos " + std::to_string(pos) + " (expected " + std::to_string(next_pos_) +
                          ", context " + std::to_string(c.context_length) + ")");
  if (token < 0 || token >= c.vocab_size) throw InvalidArgument("CpuLlama::forward: token out of range");
  ++next_pos_;
  const size_t D = c.dim, hd = c.head_dim, qd = size_t(c.n_heads) * hd, kvd = size_t(c.n_kv_heads) * hd;
  const int group = c.n_heads / c.n_kv_heads;
  std::vector<float> x(tok_embd_.begin() + size_t(token) * D, tok_embd_.begin() + size_t(token + 1) * D);

  for (int l = 0; l < c.n_layers; ++l) {
    const Layer& L = layers_[l];
    std::vector<float> xb = rmsnorm(x, L.attn_norm, c.rms_eps);
    std::vector<float> q = matvec(L.wq, xb, qd, D, &L.bq);
    std::vector<float> k = matvec(L.wk, xb, kvd, D, &L.bk);
    std::vector<float> v = matvec(L.wv, xb, kvd, D, &L.bv);
    if (c.has_qk_norm) {
      for (int h = 0; h < c.n_heads; ++h) rmsnorm(&q[h * hd], &q[h * hd], L.q_norm.data(), hd, c.rms_eps);
      for (int h = 0; h < c.n_kv_heads; ++h) rmsnorm(&k[h * hd], &k[h * hd], L.k_norm.data(), hd, c.rms_eps);
    }
    for (int h = 0; h < c.n_heads; ++h) rope(&q[h * hd], int(hd), pos, c.rope_theta, c.rope_interleaved);
    for (int h = 0; h < c.n_kv_heads; ++h) rope(&k[h * hd], int(hd), pos, c.rope_theta, c.rope_interleaved);
    if (f16_kv_)
      for (std::vector<float>* t : {&k, &v})
        for (float& e : *t) e = f16_to_f32(f32_to_f16(e));
    key_cache_[l].insert(key_cache_[l].end(), k.begin(), k.end());
    value_cache_[l].insert(value_cache_[l].end(), v.begin(), v.end());

    std::vector<float> att_out(qd);
    for (int h = 0; h < c.n_heads; ++h) {
      const size_t kvh = size_t(h / group);
      std::vector<double> score(pos + 1);
      double mx = -INFINITY;
      for (int t = 0; t <= pos; ++t) {
        const float* kt = &key_cache_[l][size_t(t) * kvd + kvh * hd];
        double s = 0.0;
        for (size_t i = 0; i < hd; ++i) s += static_cast<double>(q[h * hd + i]) * kt[i];
        score[t] = s / std::sqrt(static_cast<double>(hd));
        mx = std::max(mx, score[t]);
      }
      double sum = 0.0;
      for (double& s : score) sum += (s = std::exp(s - mx));
      for (size_t i = 0; i < hd; ++i) {
        double acc = 0.0;
        for (int t = 0; t <= pos; ++t) acc += score[t] / sum * value_cache_[l][size_t(t) * kvd + kvh * hd + i];
        att_out[h * hd + i] = static_cast<float>(acc);
      }
    }
    std::vector<float> o = matvec(L.wo, att_out, D, qd);
    for (size_t i = 0; i < D; ++i) x[i] += o[i];

    xb = rmsnorm(x, L.ffn_norm, c.rms_eps);
    std::vector<float> g = matvec(L.w1, xb, c.hidden_dim, D), u = matvec(L.w3, xb, c.hidden_dim, D);
    for (int i = 0; i < c.hidden_dim; ++i) {
      double gi = g[i];
      g[i] = static_cast<float>(gi / (1.0 + std::exp(-gi)) * u[i]);
    }
    std::vector<float> down = matvec(L.w2, g, D, c.hidden_dim);
    for (size_t i = 0; i < D; ++i) x[i] += down[i];
  }
  x = rmsnorm(x, output_norm_, c.rms_eps);
  return matvec(output_, x, c.vocab_size, D);
}

}  // namespace wgrt::test
