#include "models/llama_footprint.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "ops/linear/linear_ggml.h"
#include "wgrt/error.h"

namespace wgrt::models {

namespace {

std::string mib(uint64_t b) { return fmt::format("{:.0f} MiB", double(b) / 1048576.0); }

// Bytes per prefill row of the buffers bound whole that grow with the chunk: the activation (2 x the wider of dim
// and the FFN, f32) and, for Gemma's soft-capped / sliding-window attention on the scores-in-scratch kernel, the
// scores (n_heads x C f32; 0 elsewhere).
struct PrefillRowBytes {
  uint64_t activation, scores;
};
PrefillRowBytes prefill_row_bytes(const LlamaConfig& c, uint64_t C) {
  const bool scores = c.attn_softcap != 0.0f || !c.swa_layers.empty();
  return {2 * uint64_t(std::max(c.hidden_dim, c.dim)) * 4, scores ? uint64_t(c.n_heads) * C * 4 : 0};
}

}  // namespace

LlamaFootprint llama_footprint(const WeightSource& w, const LlamaGraphOptions& o) {
  const LlamaConfig& c = w.config();
  LlamaFootprint f;
  auto add = [&f](const std::string& name, uint64_t bytes, bool host, bool bound) {
    f.gpu_bytes += bytes;
    if (host) f.host_bytes += bytes;
    if (bytes > f.buffer.bytes) f.buffer = {bytes, name};
    if (bound && bytes > f.bound.bytes) f.bound = {bytes, name};
  };
  auto q4 = [&](const WeightTensor& t) { return t.type == GgmlType::Q4_0 && o.weights == WeightPolicy::Auto; };
  // The builder's rule (llama_graph.cpp keeps_blocks): block-format types stay as the file's blocks.
  auto blocks = [&](const WeightTensor& t) {
    auto b = ops::ggml_gpu_block(int64_t(t.type));
    return o.weights == WeightPolicy::Auto && !q4(t) && t.type != GgmlType::F32 && t.shape.size() == 2 && b &&
           t.cols() % b->elems == 0;
  };
  // One weight constant (q4gsw: qweight and f16 scales are separate buffers).
  auto weight = [&](const std::string& name, uint64_t elems, bool as_q4, bool bound, uint64_t raw_bytes = 0) {
    const uint64_t before = f.gpu_bytes;
    if (raw_bytes) {
      add(name, raw_bytes, true, bound);
    } else if (as_q4) {
      add(name + ".qweight", elems / 2, true, bound);
      add(name + ".scales", (elems / 32 * 2 + 3) / 4 * 4, true, bound);  // f16, one per 32 weights
    } else {
      add(name, elems * 4, true, bound);
    }
    f.weight_bytes += f.gpu_bytes - before;
  };
  auto raw = [&](const WeightTensor& t) {  // the blocks' GPU size (ops::ggml_to_gpu_layout: Q6_K pads its blocks)
    return blocks(t) ? ops::ggml_gpu_bytes(int64_t(t.type), t.data.size()) : uint64_t(0);
  };
  for (const std::string& name : w.names()) {
    const WeightTensor& t = w.get(name);
    const bool matrix = t.shape.size() == 2, linear = matrix && name != "tok_embd";
    if (name.ends_with(".ffn_up")) continue;  // counted with its gate
    if (name.ends_with(".ffn_gate")) {
      const std::string stem = name.substr(0, name.size() - 4);
      const WeightTensor& u = w.get(stem + "up");
      if (q4(t) == q4(u) && blocks(t) == blocks(u)) {
        weight(stem + "gate_up", t.n_elements + u.n_elements, q4(t), false, raw(t) + raw(u));
      } else {
        weight(name, t.n_elements, q4(t), false, raw(t));
        weight(stem + "up", u.n_elements, q4(u), false, raw(u));
      }
      continue;
    }
    // The token embedding in a block format is bound in row chunks (wgrt.embedding_ggml), like the linear layers;
    // f32 and q4gsw embeddings are bound whole.
    weight(name, t.n_elements, matrix && q4(t), !linear && !raw(t), raw(t));
  }
  const uint64_t C = uint64_t(o.context > 0 ? o.context : c.context_length);
  const uint64_t S = o.max_prefill > 0 ? std::min<uint64_t>(uint64_t(o.max_prefill), C) : std::min<uint64_t>(C, 512);
  const uint64_t kv = C * uint64_t(c.n_kv_heads) * uint64_t(c.head_dim) * (dtype_bits(kv_cache_type(c, o)) / 8) *
                      uint64_t(std::max(o.slots, 1));
  f.context = int(C);
  for (int l = 0; l < c.n_layers; ++l) {
    add(fmt::format("blk.{}.k_cache", l), kv, false, true);
    add(fmt::format("blk.{}.v_cache", l), kv, false, true);
    f.kv_bytes += 2 * kv;
  }
  for (int t = 0; t < (c.swa_layers.empty() ? 1 : 2); ++t) {
    add(t ? "rope_swa.cos" : "rope.cos", C * uint64_t(c.head_dim / 2) * 4, true, true);
    add(t ? "rope_swa.sin" : "rope.sin", C * uint64_t(c.head_dim / 2) * 4, true, true);
    // wgrt.linear_ggml_rope_qkv's cos | sin table, counted whether or not the layer body takes that op (an upper bound).
    add(t ? "rope_swa.cos_sin" : "rope.cos_sin", C * uint64_t(c.head_dim) * 4, true, true);
  }
  // Flash attention keeps no score buffer; split-KV decode keeps <= 64 partials of (D + 2) floats per head.
  // Gemma's soft-capped / sliding-window attention runs on the scores-in-scratch kernel ([S * n_heads, C] f32).
  add("attention partials", uint64_t(c.n_heads) * 64 * uint64_t(c.head_dim + 2) * 4, false, true);
  const PrefillRowBytes row = prefill_row_bytes(c, C);
  if (row.scores) add("attention scores", S * row.scores, false, true);
  add("activation", S * row.activation, false, true);
  return f;
}

int default_prefill_chunk(const WeightSource& w, const LlamaGraphOptions& opts, int policy, uint64_t max_binding) {
  const uint64_t C = uint64_t(std::max(opts.context, 1));
  const PrefillRowBytes r = prefill_row_bytes(w.config(), C);
  const uint64_t row = std::max(r.activation, r.scores);
  int s = int(std::min<uint64_t>(uint64_t(std::max(policy, 1)), C));
  while (s > 512 && uint64_t(s) * row > max_binding) s /= 2;
  return s;
}

void check_llama_fits(const LlamaFootprint& f, uint64_t max_buffer, uint64_t max_binding, uint64_t host_available,
                      uint64_t device_memory, const std::string& adapter) {
  auto fix = [](const std::string& name) {
    const bool ctx = name.find("cache") != std::string::npos || name.starts_with("rope.") || name == "attention partials";
    return ctx ? "use a smaller --ctx (or --prefill-chunk)" : "use a Q4_0 model (and no --f32) or a smaller model";
  };
  if (f.buffer.bytes > max_buffer)
    throw LimitError(fmt::format("'{}' needs a GPU buffer of {} bytes ({}), above this adapter's maxBufferSize of {} "
                                 "bytes ({}); {}",
                                 f.buffer.name, f.buffer.bytes, mib(f.buffer.bytes), max_buffer, mib(max_buffer),
                                 fix(f.buffer.name)));
  if (f.bound.bytes > max_binding)
    throw LimitError(fmt::format("'{}' needs a GPU binding of {} bytes ({}), above this adapter's "
                                 "maxStorageBufferBindingSize of {} bytes ({}); {}",
                                 f.bound.name, f.bound.bytes, mib(f.bound.bytes), max_binding, mib(max_binding),
                                 fix(f.bound.name)));
  if (device_memory > 0 && f.gpu_bytes > device_memory)
    throw LimitError(fmt::format(
        "the model needs about {} of GPU memory ({} of weights, {} of KV cache for a context of {}, {} other), but "
        "the adapter {} has {} of device memory; use a smaller --ctx, a smaller quantization (such as Q4_K_M or "
        "Q4_0) or a smaller model",
        mib(f.gpu_bytes), mib(f.weight_bytes), mib(f.kv_bytes), f.context, mib(f.gpu_bytes - f.weight_bytes - f.kv_bytes),
        adapter.empty() ? std::string("in use") : "'" + adapter + "'", mib(device_memory)));
  if (host_available > 0 && f.host_bytes > host_available)
    throw LimitError(fmt::format("loading needs about {} of host memory for the converted weights, but only {} "
                                 "is available; use a Q4_0 model, a smaller --ctx or a smaller model",
                                 mib(f.host_bytes), mib(host_available)));
}

uint64_t host_available_bytes() {
  FILE* f = std::fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  uint64_t kb = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "MemAvailable: %lu kB", &kb) == 1) break;
  std::fclose(f);
  return kb * 1024;
}

}  // namespace wgrt::models
