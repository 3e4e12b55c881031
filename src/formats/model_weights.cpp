#include "formats/model_weights.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <wgrt/error.h>

#include "formats/gguf.h"
#include "formats/llama2c.h"
#include "formats/model_families.h"
#include "util/printable.h"

namespace wgrt {
namespace {

std::string shape_str(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

std::string fmt_nonfinite(const std::string& name, float v, size_t i, int64_t cols) {
  return "tensor '" + name + "' holds " + (std::isnan(v) ? "NaN" : v > 0 ? "+inf" : "-inf") + " at element " +
         std::to_string(i) + " (row " + std::to_string(i / size_t(cols)) + ", column " +
         std::to_string(i % size_t(cols)) + "): the weights are damaged";
}

}  // namespace

std::vector<float> WeightTensor::to_f32() const { return dequantize(type, data, n_elements, printable(name)); }

Q4gsw WeightTensor::q4gsw() const {
  if (type != GgmlType::Q4_0)
    throw Unsupported("tensor " + printable(name) + " has type " + ggml_type_name(type) + ", q4gsw needs Q4_0");
  return repack_q4_0_to_q4gsw(data, static_cast<uint64_t>(rows()), static_cast<uint64_t>(cols()), printable(name));
}

const WeightTensor* WeightSource::find(const std::string& name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

const WeightTensor& WeightSource::get(const std::string& name) const {
  const WeightTensor* t = find(name);
  if (!t) throw InvalidArgument("model has no tensor '" + printable(name) + "'");
  return *t;
}

std::vector<std::string> WeightSource::names() const {
  std::vector<std::string> r;
  for (const auto& kv : tensors_) r.push_back(kv.first);
  return r;
}

void WeightSource::add(WeightTensor t) {
  std::string n = t.name;
  if (!tensors_.emplace(n, std::move(t)).second) throw FormatError("duplicate tensor '" + printable(n) + "'");
}

void WeightSource::validate() const {
  const LlamaConfig& c = cfg_;
  auto check = [this](const std::string& name, std::vector<int64_t> shape) {
    const WeightTensor* t = find(name);
    if (!t) throw FormatError("model is missing tensor '" + printable(name) + "'");
    if (t->shape != shape)
      throw FormatError("tensor '" + name + "' has shape " + shape_str(t->shape) + ", expected " + shape_str(shape));
  };
  std::set<std::string> expected;
  auto expect = [&](const std::string& name, std::vector<int64_t> shape) {
    expected.insert(name);
    check(name, std::move(shape));
  };
  const int64_t q = int64_t(c.n_heads) * c.head_dim, kv = int64_t(c.n_kv_heads) * c.head_dim;
  expect("tok_embd", {c.vocab_size, c.dim});
  expect("output_norm", {c.dim});
  if (!c.tied_embeddings) expect("output", {c.vocab_size, c.dim});
  for (int i = 0; i < c.n_layers; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    expect(b + "attn_norm", {c.dim});
    expect(b + "attn_q", {q, c.dim});
    expect(b + "attn_k", {kv, c.dim});
    expect(b + "attn_v", {kv, c.dim});
    expect(b + "attn_output", {c.dim, q});
    expect(b + "ffn_norm", {c.dim});
    expect(b + "ffn_gate", {c.hidden_dim, c.dim});
    expect(b + "ffn_up", {c.hidden_dim, c.dim});
    expect(b + "ffn_down", {c.dim, c.hidden_dim});
    if (c.has_qkv_bias) {
      expect(b + "attn_q.bias", {q});
      expect(b + "attn_k.bias", {kv});
      expect(b + "attn_v.bias", {kv});
    }
    if (c.has_qk_norm) {
      expect(b + "attn_q_norm", {c.head_dim});
      expect(b + "attn_k_norm", {c.head_dim});
    }
    if (c.post_norms) {
      expect(b + "post_attention_norm", {c.dim});
      expect(b + "post_ffw_norm", {c.dim});
    }
  }
  for (const auto& [name, t] : tensors_)
    if (!expected.count(name))
      throw FormatError("tensor '" + printable(name) + "' is not part of a " + printable(c.arch) + " model with " +
                        std::to_string(c.n_layers) + " blocks (" + printable(c.arch) +
                        ".block_count) and these options; the file's metadata does not match its tensors");
}

void WeightSource::check_finite() const {
  for (const auto& [name, t] : tensors_) {
    const std::vector<float> v = t.to_f32();
    for (size_t i = 0; i < v.size(); ++i)
      if (!std::isfinite(v[i]))
        throw FormatError(fmt_nonfinite(name, v[i], i, t.cols()));
  }
}

void WeightSource::check_unchanged() const {
  if (gguf_) gguf_->check_unchanged();
  if (l2c_) l2c_->check_unchanged();
}

WeightSource load_gguf_llama(GgufFile file) {
  WeightSource ws;
  auto g = std::make_shared<const GgufFile>(std::move(file));
  ws.gguf_ = g;
  const std::string ctx = "gguf '" + printable(g->path(), 300) + "'";
  if (g->tensors().empty() && g->has("tokenizer.ggml.model"))
    throw FormatError(ctx + ": no tensors, only a vocabulary (a vocab-only file): wgrt tokenize -m reads it");
  LlamaConfig& c = ws.cfg_;
  c.arch = g->get_string("general.architecture");
  if (!llama_family_supported(c.arch))
    throw Unsupported(ctx + ": architecture '" + printable(c.arch) +
                      "' is not supported (llama, qwen2, qwen3, gemma2, gemma3, phi3, smollm3, ernie4_5; docs/ARCHITECTURE.md lists "
                      "the newer llama.cpp families that are not yet, with the reason)");
  const std::string a = c.arch + ".";
  auto get_int = [&](const std::string& key, uint32_t hi) {
    uint32_t v = g->get_u32(key);
    if (v < 1 || v > hi)
      throw FormatError(ctx + ": " + key + " = " + std::to_string(v) + " is outside 1.." + std::to_string(hi));
    return static_cast<int>(v);
  };
  c.dim = get_int(a + "embedding_length", 1 << 20);
  c.hidden_dim = get_int(a + "feed_forward_length", 1 << 22);
  c.n_layers = get_int(a + "block_count", 4096);
  c.n_heads = get_int(a + "attention.head_count", 65536);
  c.n_kv_heads = get_int(a + "attention.head_count_kv", 65536);
  c.context_length = get_int(a + "context_length", 1 << 26);
  if (g->has(a + "attention.key_length")) {
    c.head_dim = get_int(a + "attention.key_length", 1 << 16);
  } else {
    if (c.dim % c.n_heads != 0) throw FormatError(ctx + ": head_count does not divide embedding_length");
    c.head_dim = c.dim / c.n_heads;
  }
  if (auto vl = g->opt_u32(a + "attention.value_length"); vl && int64_t(*vl) != c.head_dim)
    throw Unsupported(ctx + ": attention.value_length != key_length is not supported");
  if (c.n_heads % c.n_kv_heads != 0) throw FormatError(ctx + ": head_count_kv does not divide head_count");
  if (c.head_dim % 2 != 0) throw FormatError(ctx + ": head dim " + std::to_string(c.head_dim) + " is odd");
  if (auto rd = g->opt_u32(a + "rope.dimension_count"); rd && int64_t(*rd) != c.head_dim)
    throw Unsupported(ctx + ": partial rotary (rope.dimension_count " + std::to_string(*rd) + " != head dim " +
                      std::to_string(c.head_dim) + ") is not supported");
  c.rope_theta = g->opt_f32(a + "rope.freq_base").value_or(10000.0f);
  c.rms_eps = g->get_f32(a + "attention.layer_norm_rms_epsilon");
  if (!std::isfinite(c.rope_theta) || !(c.rope_theta > 1.0f))
    throw FormatError(ctx + ": " + a + "rope.freq_base = " + std::to_string(c.rope_theta) +
                      " is outside (1, 3.4e38] (it must be a finite number above 1)");
  if (!(c.rms_eps > 0.0f && c.rms_eps < 1.0f))
    throw FormatError(ctx + ": " + a + "attention.layer_norm_rms_epsilon = " + std::to_string(c.rms_eps) +
                      " is outside (0, 1)");
  // llama.cpp LLAMA_ROPE_TYPE_NORM (the others here are NEOX)
  c.rope_interleaved = c.arch == "llama" || c.arch == "smollm3" || c.arch == "ernie4_5";
  read_family_config(*g, c, ctx);

  for (const GgufTensorInfo& ti : g->tensors()) {
    WeightTensor t;
    t.name = ti.name;
    if (t.name.size() > 7 && t.name.compare(t.name.size() - 7, 7, ".weight") == 0) t.name.resize(t.name.size() - 7);
    if (t.name == "token_embd") t.name = "tok_embd";
    for (auto it = ti.dims.rbegin(); it != ti.dims.rend(); ++it) t.shape.push_back(static_cast<int64_t>(*it));
    t.type = ti.type;
    t.data = g->tensor_data(ti);
    t.n_elements = ti.n_elements;
    ws.add(std::move(t));
  }
  const WeightTensor* emb = ws.find("tok_embd");
  if (!emb || emb->shape.size() != 2) throw FormatError(ctx + ": missing or non-2-D tensor token_embd.weight");
  c.vocab_size = static_cast<int>(std::min<int64_t>(emb->shape[0], 1 << 24));
  c.tied_embeddings = !ws.has("output");
  read_family_tensors(ws, ctx);
  ws.validate();
  return ws;
}

WeightSource load_gguf_llama(const std::string& path) { return load_gguf_llama(GgufFile::open(path)); }

WeightSource load_llama2c(Llama2cFile file) {
  WeightSource ws;
  auto f = std::make_shared<const Llama2cFile>(std::move(file));
  ws.l2c_ = f;
  const Llama2cHeader& h = f->header();
  LlamaConfig& c = ws.cfg_;
  c.arch = "llama";
  c.dim = h.dim, c.hidden_dim = h.hidden_dim, c.n_layers = h.n_layers, c.n_heads = h.n_heads;
  c.n_kv_heads = h.n_kv_heads, c.head_dim = h.head_size(), c.vocab_size = h.vocab_size;
  c.context_length = h.seq_len;
  c.rope_theta = 10000.0f, c.rope_interleaved = true, c.rms_eps = 1e-5f;
  c.tied_embeddings = h.shared_classifier;
  auto add = [&](std::string name, std::vector<int64_t> shape, std::span<const uint8_t> data) {
    WeightTensor t;
    t.name = std::move(name);
    t.shape = std::move(shape);
    t.type = GgmlType::F32;
    t.data = data;
    t.n_elements = data.size() / 4;
    ws.add(std::move(t));
  };
  const int64_t D = h.dim, H = h.hidden_dim, KV = h.kv_dim(), V = h.vocab_size;
  add("tok_embd", {V, D}, f->token_embedding());
  add("output_norm", {D}, f->rms_final());
  if (!h.shared_classifier) add("output", {V, D}, f->wcls());
  for (int i = 0; i < h.n_layers; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    add(b + "attn_norm", {D}, f->rms_att(i));
    add(b + "attn_q", {D, D}, f->wq(i));
    add(b + "attn_k", {KV, D}, f->wk(i));
    add(b + "attn_v", {KV, D}, f->wv(i));
    add(b + "attn_output", {D, D}, f->wo(i));
    add(b + "ffn_norm", {D}, f->rms_ffn(i));
    add(b + "ffn_gate", {H, D}, f->w1(i));
    add(b + "ffn_down", {D, H}, f->w2(i));
    add(b + "ffn_up", {H, D}, f->w3(i));
  }
  ws.validate();
  return ws;
}

WeightSource load_llama2c(const std::string& path) { return load_llama2c(Llama2cFile::open(path)); }

}  // namespace wgrt
