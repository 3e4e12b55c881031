#include "formats/model_families.h"

#include <cmath>
#include <cstring>
#include <wgrt/error.h>

#include "formats/gguf.h"
#include "util/printable.h"

namespace wgrt {

namespace {

bool is_gemma(const std::string& arch) { return arch == "gemma2" || arch == "gemma3"; }

float positive_f32(const GgufFile& g, const std::string& key, float fallback, const std::string& ctx) {
  const float v = g.opt_f32(key).value_or(fallback);
  if (!std::isfinite(v) || !(v > 0.0f))
    throw FormatError(ctx + ": " + key + " = " + std::to_string(v) + " must be a finite number above 0");
  return v;
}

}  // namespace

bool llama_family_supported(const std::string& arch) {
  return arch == "llama" || arch == "qwen2" || arch == "qwen3" || is_gemma(arch) || arch == "phi3" || arch == "smollm3" ||
         arch == "ernie4_5";
}

void read_family_config(const GgufFile& g, LlamaConfig& c, const std::string& ctx) {
  const std::string a = c.arch + ".";
  RopeScaling& rs = c.rope_scaling;
  const std::string type = g.opt_string(a + "rope.scaling.type").value_or("linear");
  if (type == "none") rs.type = RopeScaling::Type::None;
  else if (type == "linear") rs.type = RopeScaling::Type::Linear;
  else if (type == "yarn") rs.type = RopeScaling::Type::Yarn;
  else if (type == "longrope") rs.type = RopeScaling::Type::LongRope;
  else
    throw FormatError(ctx + ": " + a + "rope.scaling.type '" + printable(type) +
                      "' is not one llama.cpp knows (none, linear, yarn, longrope)");
  // llama.cpp: factor 0 (or absent) means no scaling; the older key rope.scale_linear stands in.
  float factor = g.opt_f32(a + "rope.scaling.factor").value_or(0.0f);
  if (!g.has(a + "rope.scaling.factor")) factor = g.opt_f32(a + "rope.scale_linear").value_or(0.0f);
  if (!std::isfinite(factor) || factor < 0.0f)
    throw FormatError(ctx + ": " + a + "rope.scaling.factor = " + std::to_string(factor) + " must be finite and >= 0");
  rs.factor = factor == 0.0f ? 1.0f : factor;
  rs.orig_context = int(g.opt_u32(a + "rope.scaling.original_context_length").value_or(uint32_t(c.context_length)));
  if (rs.orig_context < 1) throw FormatError(ctx + ": " + a + "rope.scaling.original_context_length is 0");
  rs.attn_factor = positive_f32(g, a + "rope.scaling.attn_factor", 1.0f, ctx);

  c.rope_theta_swa = c.rope_theta;
  if (c.arch == "smollm3") {  // llama.cpp src/models/smollm3.cpp: layer il has no RoPE iff (il + 1) % 4 == 0
    c.nope_layers.resize(size_t(c.n_layers));
    for (int l = 0; l < c.n_layers; ++l) c.nope_layers[size_t(l)] = (l + 1) % 4 == 0;
  }
  if (!is_gemma(c.arch)) return;
  // Gemma: scaled embeddings, GeGLU, post-norms; SWA layers by pattern (llama.cpp set_swa_pattern).
  c.embd_scale = std::sqrt(float(c.dim));
  c.gelu_ffn = true;
  const bool g2 = c.arch == "gemma2";
  const bool big = c.n_layers == (g2 ? 46 : 62);  // llama.cpp's 27B rule: query scale 1/sqrt(dim/heads)
  if (big) c.attn_scale = 1.0f / std::sqrt(float(c.dim / c.n_heads));
  if (g2) {
    c.attn_softcap = positive_f32(g, a + "attn_logit_softcapping", 50.0f, ctx);
    c.final_softcap = positive_f32(g, a + "final_logit_softcapping", 30.0f, ctx);
  } else if (auto f = g.opt_f32(a + "final_logit_softcapping"); f && *f != 0.0f) {
    c.final_softcap = positive_f32(g, a + "final_logit_softcapping", 0.0f, ctx);
  }
  const std::optional<uint32_t> window = g.opt_u32(a + "attention.sliding_window");
  uint32_t n_swa = g2 ? window.value_or(4096u) : window.value_or(0u);
  if (!g2 && n_swa == 0) return;  // gemma3 without sliding_window: every layer is global
  if (n_swa < 1 || n_swa > (1u << 24))
    throw FormatError(ctx + ": " + a + "attention.sliding_window = " + std::to_string(n_swa) + " is outside 1..16777216");
  const uint32_t pattern = g.opt_u32(a + "attention.sliding_window_pattern").value_or(g2 ? 2u : 6u);
  if (pattern == 0) throw FormatError(ctx + ": " + a + "attention.sliding_window_pattern is 0");
  c.sliding_window = int(n_swa);
  c.swa_layers.resize(size_t(c.n_layers));
  for (int l = 0; l < c.n_layers; ++l) c.swa_layers[size_t(l)] = uint32_t(l) % pattern < pattern - 1;
  c.rope_theta_swa = positive_f32(g, a + "rope.freq_base_swa", g2 ? c.rope_theta : 10000.0f, ctx);
  if (!(c.rope_theta_swa > 1.0f))
    throw FormatError(ctx + ": " + a + "rope.freq_base_swa = " + std::to_string(c.rope_theta_swa) + " must be above 1");
}

void read_family_tensors(WeightSource& ws, const std::string& ctx) {
  LlamaConfig& c = ws.cfg_;
  auto& ts = ws.tensors_;
  // RoPE factors: one F32 vector of head_dim/2 positive values each.
  auto take_factors = [&](const std::string& name, std::vector<float>& dst) {
    auto it = ts.find(name);
    if (it == ts.end()) return;
    const WeightTensor& t = it->second;
    if (t.type != GgmlType::F32 || t.shape.size() != 1 || t.shape[0] != c.head_dim / 2)
      throw FormatError(ctx + ": tensor '" + name + "' must be F32 [" + std::to_string(c.head_dim / 2) +
                        "] (one factor per rotated pair)");
    dst = t.to_f32();
    for (float f : dst)
      if (!std::isfinite(f) || !(f > 0.0f))
        throw FormatError(ctx + ": tensor '" + name + "' holds " + std::to_string(f) + "; RoPE factors must be finite and > 0");
    ts.erase(it);
  };
  take_factors("rope_freqs", c.rope_scaling.freq_factors);
  take_factors("rope_factors_long", c.rope_scaling.long_factors);
  take_factors("rope_factors_short", c.rope_scaling.short_factors);
  if (c.rope_scaling.long_factors.empty() != c.rope_scaling.short_factors.empty())
    throw FormatError(ctx + ": the file has only one of rope_factors_long and rope_factors_short");

  // Row ranges of a fused [rows, K] matrix as tensors of their own (views of the same bytes).
  auto split = [&](const std::string& fused, std::vector<std::pair<std::string, int64_t>> parts) {
    auto it = ts.find(fused);
    if (it == ts.end()) return;
    WeightTensor t = it->second;
    int64_t rows = 0;
    for (const auto& p : parts) rows += p.second;
    const bool vec = t.shape.size() == 1;  // a fused bias
    if ((vec ? t.shape[0] : t.rows()) != rows || t.shape.size() > 2)
      throw FormatError(ctx + ": tensor '" + printable(fused) + "' must have " + std::to_string(rows) + " rows");
    const uint64_t row_bytes = t.data.size() / uint64_t(rows);
    ts.erase(it);
    uint64_t off = 0;
    for (auto& [name, n] : parts) {
      if (ts.count(name)) throw FormatError(ctx + ": the file has both '" + printable(fused) + "' and '" + printable(name) + "'");
      WeightTensor p = t;
      p.name = name;
      p.shape = vec ? std::vector<int64_t>{n} : std::vector<int64_t>{n, t.cols()};
      p.data = t.data.subspan(off, row_bytes * uint64_t(n));
      p.n_elements = uint64_t(n) * uint64_t(vec ? 1 : t.cols());
      off += row_bytes * uint64_t(n);
      ts.emplace(name, std::move(p));
    }
  };
  const int64_t q = int64_t(c.n_heads) * c.head_dim, kv = int64_t(c.n_kv_heads) * c.head_dim;
  for (int i = 0; i < c.n_layers; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    split(b + "attn_qkv", {{b + "attn_q", q}, {b + "attn_k", kv}, {b + "attn_v", kv}});
    split(b + "attn_qkv.bias", {{b + "attn_q.bias", q}, {b + "attn_k.bias", kv}, {b + "attn_v.bias", kv}});
    if (c.arch == "phi3" && !ts.count(b + "ffn_gate"))
      split(b + "ffn_up", {{b + "ffn_gate", c.hidden_dim}, {b + "ffn_up", c.hidden_dim}});
  }
  c.has_qkv_bias = ts.count("blk.0.attn_q.bias") != 0;
  c.has_qk_norm = ts.count("blk.0.attn_q_norm") != 0;
  c.post_norms = ts.count("blk.0.post_attention_norm") != 0;
  if (is_gemma(c.arch) && !c.post_norms)
    throw FormatError(ctx + ": " + c.arch + " model is missing tensor 'blk.0.post_attention_norm.weight'");
  if (c.arch == "gemma3" && !c.has_qk_norm)
    throw FormatError(ctx + ": gemma3 model is missing tensor 'blk.0.attn_q_norm.weight'");
}

}  // namespace wgrt
