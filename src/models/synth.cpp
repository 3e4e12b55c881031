#include "models/synth.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <wgrt/error.h>

#include "models/rope_scaling.h"

namespace wgrt::models {

namespace {

// Architecture shapes from the models' published config.json files (hidden_size, intermediate_size,
// num_hidden_layers, num_attention_heads, num_key_value_heads, vocab_size, max_position_embeddings,
// rope_theta, rms_norm_eps, tie_word_embeddings).
const std::vector<SynthConfig> kPresets = {
    {.name = "llama-3.2-1b", .arch = "llama", .dim = 2048, .ffn = 8192, .layers = 16, .heads = 32, .kv_heads = 8,
     .head_dim = 64, .vocab = 128256, .context = 131072, .rope_theta = 500000.0f, .rms_eps = 1e-5f,
     .llama3_factor = 32.0f, .llama3_low = 1.0f, .llama3_high = 4.0f, .llama3_orig = 8192},
    {.name = "qwen2.5-0.5b", .arch = "qwen2", .dim = 896, .ffn = 4864, .layers = 24, .heads = 14, .kv_heads = 2,
     .head_dim = 64, .vocab = 151936, .context = 32768, .rope_theta = 1000000.0f, .rms_eps = 1e-6f,
     .qkv_bias = true},
    {.name = "smollm2-135m", .arch = "llama", .dim = 576, .ffn = 1536, .layers = 30, .heads = 9, .kv_heads = 3,
     .head_dim = 64, .vocab = 49152, .context = 8192, .rope_theta = 100000.0f, .rms_eps = 1e-5f},
    // Gemma 2 2B: query_pre_attn_scalar 256 = head_dim; alternating sliding-window (4096) and global layers.
    {.name = "gemma-2-2b", .arch = "gemma2", .dim = 2304, .ffn = 9216, .layers = 26, .heads = 8, .kv_heads = 4,
     .head_dim = 256, .vocab = 256000, .context = 8192, .rope_theta = 10000.0f, .rms_eps = 1e-6f,
     .sliding_window = 4096, .swa_pattern = 2, .attn_softcap = 50.0f, .final_softcap = 30.0f},
    // Gemma 3 1B: 5 local (window 512, base 10000) : 1 global (base 1e6) layers; q/k norms.
    {.name = "gemma-3-1b", .arch = "gemma3", .dim = 1152, .ffn = 6912, .layers = 26, .heads = 4, .kv_heads = 1,
     .head_dim = 256, .vocab = 262144, .context = 32768, .rope_theta = 1000000.0f, .rms_eps = 1e-6f,
     .sliding_window = 512, .swa_pattern = 6, .rope_theta_swa = 10000.0f},
    // Qwen3 0.6B: q/k norms, head_dim 128 (heads * head_dim = 2048 > dim).
    {.name = "qwen3-0.6b", .arch = "qwen3", .dim = 1024, .ffn = 3072, .layers = 28, .heads = 16, .kv_heads = 8,
     .head_dim = 128, .vocab = 151936, .context = 40960, .rope_theta = 1000000.0f, .rms_eps = 1e-6f},
    // SmolLM3 3B: llama layers with no RoPE on every 4th one (llama.cpp n_no_rope_layer_step 4).
    {.name = "smollm3-3b", .arch = "smollm3", .dim = 2048, .ffn = 11008, .layers = 36, .heads = 16, .kv_heads = 4,
     .head_dim = 128, .vocab = 128256, .context = 65536, .rope_theta = 5000000.0f, .rms_eps = 1e-6f},
    // ERNIE 4.5 0.3B (baidu/ERNIE-4.5-0.3B-PT): llama's layers, head_dim 128 (heads * head_dim = 2048 > dim).
    {.name = "ernie-4.5-0.3b", .arch = "ernie4_5", .dim = 1024, .ffn = 3072, .layers = 18, .heads = 16,
     .kv_heads = 2, .head_dim = 128, .vocab = 103424, .context = 131072, .rope_theta = 500000.0f, .rms_eps = 1e-5f},
    {.name = "phi-3-mini-4k", .arch = "phi3", .dim = 3072, .ffn = 8192, .layers = 32, .heads = 32, .kv_heads = 32,
     .head_dim = 96, .vocab = 32064, .context = 4096, .rope_theta = 10000.0f, .rms_eps = 1e-5f, .tied = false,
     .control_tokens = {"<|endoftext|>", "<|end|>"}, .eot_token = "<|end|>"},  // llama.cpp's phi3 vocab needs <|endoftext|>
};

constexpr int kFirstFiller = 3 + 256;  // <unk> <s> </s> and the 256 byte tokens

uint64_t mix64(uint64_t z) {  // splitmix64 finalizer
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  return h;
}

// Fills out[j] with the value of element `first + j` of the stream `key`: Irwin-Hall(4) scaled to std `std`.
void fill_random(uint64_t key, uint64_t first, float std, std::span<float> out) {
  // Sum of four 16-bit uniforms on [0, 65535]: mean 4 * 32767.5, variance 4 * (65536^2 - 1) / 12.
  const double mean = 4 * 32767.5, sd = std::sqrt(4.0 * (65536.0 * 65536.0 - 1.0) / 12.0);
  const float scale = float(std / sd), offset = float(mean);
  for (size_t j = 0; j < out.size(); ++j) {
    uint64_t z = mix64(key + (first + j) * 0x9E3779B97F4A7C15ull);
    uint32_t s = uint32_t(z & 0xFFFF) + uint32_t((z >> 16) & 0xFFFF) + uint32_t((z >> 32) & 0xFFFF) + uint32_t(z >> 48);
    out[j] = (float(s) - offset) * scale;
  }
}

uint32_t file_type(GgmlType t) {
  switch (t) {
    case GgmlType::F32: return 0;
    case GgmlType::F16: return 1;
    case GgmlType::Q4_0: return 2;
    case GgmlType::Q8_0: return 7;
    default: throw InvalidArgument(fmt::format("synth: weight type {} is not one of f32, f16, q4_0, q8_0",
                                               ggml_type_name(t)));
  }
}

void set_vocab(GgufWriter& w, const SynthConfig& c) {
  const int vocab = c.vocab;
  const int n_control = int(c.control_tokens.size());
  std::vector<std::string> tokens;
  std::vector<float> scores;
  std::vector<int32_t> types;
  tokens.reserve(size_t(vocab));
  auto add = [&](std::string piece, float score, int32_t type) {
    tokens.push_back(std::move(piece));
    scores.push_back(score);
    types.push_back(type);
  };
  add("<unk>", 0.0f, 2);
  add("<s>", 0.0f, 3);
  add("</s>", 0.0f, 3);
  for (int b = 0; b < 256; ++b) add(fmt::format("<0x{:02X}>", b), 0.0f, 6);
  for (int i = 0; kFirstFiller + i < vocab - n_control; ++i) add(fmt::format("\xE2\x96\x81w{}", i), -float(i + 1), 1);
  for (const std::string& t : c.control_tokens) add(t, 0.0f, 3);
  w.set("tokenizer.ggml.model", GgufValue::of_string("llama"));
  w.set("tokenizer.ggml.tokens", GgufValue::array_of_strings(std::move(tokens)));
  w.set("tokenizer.ggml.scores", GgufValue::array_of<float>(GgufValueType::F32, scores));
  w.set("tokenizer.ggml.token_type", GgufValue::array_of<int32_t>(GgufValueType::I32, types));
  w.set("tokenizer.ggml.bos_token_id", GgufValue::of_u32(1));
  w.set("tokenizer.ggml.eos_token_id", GgufValue::of_u32(2));
  w.set("tokenizer.ggml.unknown_token_id", GgufValue::of_u32(0));
  w.set("tokenizer.ggml.add_bos_token", GgufValue::of_bool(true));
  w.set("tokenizer.ggml.add_eos_token", GgufValue::of_bool(false));
  for (int i = 0; i < n_control; ++i)
    if (c.control_tokens[size_t(i)] == c.eot_token)
      w.set("tokenizer.ggml.eot_token_id", GgufValue::of_u32(uint32_t(vocab - n_control + i)));
  if (!c.chat_template.empty()) w.set("tokenizer.chat_template", GgufValue::of_string(c.chat_template));
}

// RoPE scaling and family keys (synth.h).
void set_family_keys(GgufWriter& w, const SynthConfig& c) {
  const std::string a = c.arch + ".";
  if (!c.rope_scaling_type.empty()) {
    w.set(a + "rope.scaling.type", GgufValue::of_string(c.rope_scaling_type));
    w.set(a + "rope.scaling.factor", GgufValue::of_f32(c.rope_factor));
    w.set(a + "rope.scaling.original_context_length", GgufValue::of_u32(uint32_t(c.rope_orig_context ? c.rope_orig_context : c.context)));
  }
  if (c.longrope_factors > 0) {
    const double orig = c.rope_orig_context ? c.rope_orig_context : c.context, scale = double(c.context) / orig;
    w.set(a + "rope.scaling.original_context_length", GgufValue::of_u32(uint32_t(orig)));
    w.set(a + "rope.scaling.attn_factor",
          GgufValue::of_f32(float(scale > 1 ? std::sqrt(1 + std::log(scale) / std::log(orig)) : 1.0)));
  }
  if (c.sliding_window > 0) w.set(a + "attention.sliding_window", GgufValue::of_u32(uint32_t(c.sliding_window)));
  if (c.swa_pattern > 0) w.set(a + "attention.sliding_window_pattern", GgufValue::of_u32(uint32_t(c.swa_pattern)));
  if (c.attn_softcap > 0) w.set(a + "attn_logit_softcapping", GgufValue::of_f32(c.attn_softcap));
  if (c.final_softcap > 0) w.set(a + "final_logit_softcapping", GgufValue::of_f32(c.final_softcap));
  if (c.rope_theta_swa > 0) w.set(a + "rope.freq_base_swa", GgufValue::of_f32(c.rope_theta_swa));
}

}  // namespace

const std::vector<SynthConfig>& synth_presets() { return kPresets; }

const SynthConfig& synth_preset(std::string_view name) {
  std::string names;
  for (const auto& p : kPresets) {
    if (p.name == name) return p;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  throw InvalidArgument(fmt::format("synth: unknown preset '{}' (known: {})", name, names));
}

void validate_synth(const SynthConfig& c, GgmlType type) {
  file_type(type);
  auto bad = [&](std::string_view field, int64_t v, std::string_view why) {
    throw InvalidArgument(fmt::format("synth config '{}': {} = {} {}", c.name, field, v, why));
  };
  if (c.arch != "llama" && c.arch != "qwen2" && c.arch != "qwen3" && c.arch != "gemma2" && c.arch != "gemma3" &&
      c.arch != "phi3" && c.arch != "smollm3" && c.arch != "ernie4_5")
    throw InvalidArgument(fmt::format("synth config '{}': arch '{}' is not llama, qwen2, qwen3, gemma2, gemma3, phi3, "
                                      "smollm3 or ernie4_5", c.name, c.arch));
  if (c.arch == "phi3" && int64_t(c.heads) * c.head_dim != c.dim)
    bad("heads*head_dim", int64_t(c.heads) * c.head_dim, "differs from dim (phi3 has a square attention)");
  if (!c.rope_scaling_type.empty() && c.rope_scaling_type != "linear" && c.rope_scaling_type != "yarn")
    throw InvalidArgument(fmt::format("synth config '{}': rope_scaling_type '{}' is not linear or yarn", c.name, c.rope_scaling_type));
  auto range = [&](std::string_view field, int v, int64_t lo, int64_t hi) {
    if (v < lo || v > hi) bad(field, v, fmt::format("is outside [{}, {}]", lo, hi));
  };
  range("dim", c.dim, 1, 65536);
  range("ffn", c.ffn, 1, 65536);
  range("heads", c.heads, 1, 65536);
  range("kv_heads", c.kv_heads, 1, 65536);
  range("head_dim", c.head_dim, 2, 65536);
  range("layers", c.layers, 1, 4096);
  range("vocab", c.vocab, kFirstFiller + 1, 1 << 24);
  range("context", c.context, 1, 1 << 24);
  if (int64_t(c.control_tokens.size()) >= int64_t(c.vocab) - kFirstFiller)
    bad("control_tokens", int64_t(c.control_tokens.size()), fmt::format("leave no filler token in a vocab of {}", c.vocab));
  for (size_t i = 0; i < c.control_tokens.size(); ++i) {
    if (c.control_tokens[i].empty()) bad("control_tokens", int64_t(i), "is an empty string");
    for (size_t j = 0; j < i; ++j)
      if (c.control_tokens[j] == c.control_tokens[i]) bad("control_tokens", int64_t(i), "repeats an earlier token");
  }
  if (!c.eot_token.empty() &&
      std::find(c.control_tokens.begin(), c.control_tokens.end(), c.eot_token) == c.control_tokens.end())
    throw InvalidArgument(fmt::format("synth config '{}': eot_token '{}' is not one of control_tokens", c.name, c.eot_token));
  if (c.heads % c.kv_heads != 0) bad("heads", c.heads, fmt::format("is not a multiple of kv_heads {}", c.kv_heads));
  if (c.head_dim % 2 != 0) bad("head_dim", c.head_dim, "is odd (RoPE rotates pairs)");
  if (int64_t(c.heads) * c.head_dim > 65536) bad("heads*head_dim", int64_t(c.heads) * c.head_dim, "exceeds 65536");
  if (type == GgmlType::Q4_0 || type == GgmlType::Q8_0) {
    if (c.dim % 32) bad("dim", c.dim, "is not a multiple of 32 (block size of the quantized type)");
    if (c.ffn % 32) bad("ffn", c.ffn, "is not a multiple of 32 (block size of the quantized type)");
    if (c.heads * c.head_dim % 32)
      bad("heads*head_dim", c.heads * c.head_dim, "is not a multiple of 32 (block size of the quantized type)");
  }
  if (!(std::isfinite(c.init_std) && c.init_std > 0))
    throw InvalidArgument(fmt::format("synth config '{}': init_std {} is not finite and positive", c.name, c.init_std));
  if (!(std::isfinite(c.rope_theta) && c.rope_theta > 0) || !(std::isfinite(c.rms_eps) && c.rms_eps > 0))
    throw InvalidArgument(fmt::format("synth config '{}': rope_theta and rms_eps must be finite and positive", c.name));
}

uint64_t synth_param_count(const SynthConfig& c) {
  const uint64_t D = uint64_t(c.dim), F = uint64_t(c.ffn), Q = uint64_t(c.heads) * c.head_dim,
                 KV = uint64_t(c.kv_heads) * c.head_dim, V = uint64_t(c.vocab);
  uint64_t per_layer = 2 * D + D * Q + 2 * D * KV + Q * D + 3 * D * F + (c.qkv_bias ? Q + 2 * KV : 0);
  if (c.arch == "gemma2" || c.arch == "gemma3") per_layer += 2 * D;
  if (c.arch == "gemma3" || c.arch == "qwen3") per_layer += 2 * uint64_t(c.head_dim);
  return V * D * (c.tied ? 1 : 2) + D + uint64_t(c.layers) * per_layer;
}

GgufWriter synth_gguf(const SynthConfig& c, GgmlType type, uint64_t seed) {
  validate_synth(c, type);
  GgufWriter w;
  const std::string a = c.arch + ".";
  const auto u32 = [](int v) { return GgufValue::of_u32(uint32_t(v)); };
  w.set("general.architecture", GgufValue::of_string(c.arch));
  w.set("general.name", GgufValue::of_string(c.name + " (synthetic random weights)"));
  w.set("general.file_type", GgufValue::of_u32(file_type(type)));
  if (type == GgmlType::Q4_0 || type == GgmlType::Q8_0) w.set("general.quantization_version", GgufValue::of_u32(2));
  w.set(a + "vocab_size", u32(c.vocab));
  w.set(a + "context_length", u32(c.context));
  w.set(a + "embedding_length", u32(c.dim));
  w.set(a + "block_count", u32(c.layers));
  w.set(a + "feed_forward_length", u32(c.ffn));
  w.set(a + "attention.head_count", u32(c.heads));
  w.set(a + "attention.head_count_kv", u32(c.kv_heads));
  w.set(a + "attention.key_length", u32(c.head_dim));
  w.set(a + "attention.value_length", u32(c.head_dim));
  w.set(a + "attention.layer_norm_rms_epsilon", GgufValue::of_f32(c.rms_eps));
  w.set(a + "rope.freq_base", GgufValue::of_f32(c.rope_theta));
  w.set(a + "rope.dimension_count", u32(c.head_dim));
  set_family_keys(w, c);
  set_vocab(w, c);

  const uint64_t D = uint64_t(c.dim), F = uint64_t(c.ffn), Q = uint64_t(c.heads) * c.head_dim,
                 KV = uint64_t(c.kv_heads) * c.head_dim, V = uint64_t(c.vocab);
  const uint64_t base = mix64(seed ^ 0x5EED5EED5EED5EEDull);
  auto random = [&](const std::string& name, std::vector<uint64_t> dims, GgmlType as) {
    const uint64_t key = mix64(base ^ fnv1a(name)), row = dims[0];
    const float std = c.init_std;
    w.add_tensor_stream(name, std::move(dims),
                        [key, row, std](uint64_t row0, std::span<float> out) { fill_random(key, row0 * row, std, out); },
                        as);
  };
  auto ones = [&](const std::string& name, uint64_t n) {
    std::vector<float> v(n, 1.0f);
    if (c.random_norms) {
      fill_random(mix64(base ^ fnv1a(name)), 0, c.init_std / 2, v);
      for (float& x : v) x += 1.0f;
    }
    w.add_tensor_f32(name, {n}, v, GgmlType::F32);
  };
  const bool gemma = c.arch == "gemma2" || c.arch == "gemma3", phi3 = c.arch == "phi3";
  random("token_embd.weight", {D, V}, type);
  if (c.llama3_factor > 0) {
    std::vector<float> f = llama3_rope_factors(c.head_dim, c.rope_theta, c.llama3_factor, c.llama3_low, c.llama3_high, c.llama3_orig);
    w.add_tensor_f32("rope_freqs.weight", {f.size()}, f, GgmlType::F32);
  }
  if (c.longrope_factors > 0) {
    const uint64_t half = uint64_t(c.head_dim / 2);
    std::vector<float> lf(half), sf(half);
    for (uint64_t i = 0; i < half; ++i) {
      lf[i] = 1.0f + c.longrope_factors * float(i) / float(half);
      sf[i] = 1.0f + float(i) / float(half) / 4.0f;
    }
    w.add_tensor_f32("rope_factors_long.weight", {half}, lf, GgmlType::F32);
    w.add_tensor_f32("rope_factors_short.weight", {half}, sf, GgmlType::F32);
  }
  for (int i = 0; i < c.layers; ++i) {
    const std::string b = fmt::format("blk.{}.", i);
    ones(b + "attn_norm.weight", D);
    if (phi3) {
      random(b + "attn_qkv.weight", {D, Q + 2 * KV}, type);
    } else {
      random(b + "attn_q.weight", {D, Q}, type);
      if (c.qkv_bias) random(b + "attn_q.bias", {Q}, GgmlType::F32);
      random(b + "attn_k.weight", {D, KV}, type);
      if (c.qkv_bias) random(b + "attn_k.bias", {KV}, GgmlType::F32);
      random(b + "attn_v.weight", {D, KV}, type);
      if (c.qkv_bias) random(b + "attn_v.bias", {KV}, GgmlType::F32);
    }
    if (c.arch == "gemma3" || c.arch == "qwen3") {
      ones(b + "attn_q_norm.weight", uint64_t(c.head_dim));
      ones(b + "attn_k_norm.weight", uint64_t(c.head_dim));
    }
    random(b + "attn_output.weight", {Q, D}, type);
    if (gemma) ones(b + "post_attention_norm.weight", D);
    ones(b + "ffn_norm.weight", D);
    if (phi3) {
      random(b + "ffn_up.weight", {D, 2 * F}, type);
    } else {
      random(b + "ffn_gate.weight", {D, F}, type);
      random(b + "ffn_up.weight", {D, F}, type);
    }
    random(b + "ffn_down.weight", {F, D}, type);
    if (gemma) ones(b + "post_ffw_norm.weight", D);
  }
  ones("output_norm.weight", D);
  if (!c.tied) random("output.weight", {D, V}, type);
  return w;
}

}  // namespace wgrt::models
