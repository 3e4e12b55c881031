#include "models/llama_footprint.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstring>

#include "wgrt/error.h"

namespace wgrt::models {

namespace {

std::string mib(uint64_t b) { return fmt::format("{:.0f} MiB", double(b) / 1048576.0); }

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
  // One weight constant (q4gsw: qweight and scales are separate buffers).
  auto weight = [&](const std::string& name, uint64_t elems, bool as_q4, bool bound) {
    if (as_q4) {
      add(name + ".qweight", elems / 2, true, bound);
      add(name + ".scales", elems / 8, true, bound);
    } else {
      add(name, elems * 4, true, bound);
    }
  };
  for (const std::string& name : w.names()) {
    const WeightTensor& t = w.get(name);
    if (name == "rope_freqs") continue;  // not uploaded
    const bool matrix = t.shape.size() == 2, linear = matrix && name != "tok_embd";
    if (name.ends_with(".ffn_up")) continue;  // counted with its gate
    if (name.ends_with(".ffn_gate")) {
      const std::string stem = name.substr(0, name.size() - 4);
      const WeightTensor& u = w.get(stem + "up");
      if (q4(t) == q4(u)) {
        weight(stem + "gate_up", t.n_elements + u.n_elements, q4(t), false);
      } else {
        weight(name, t.n_elements, q4(t), false);
        weight(stem + "up", u.n_elements, q4(u), false);
      }
      continue;
    }
    weight(name, t.n_elements, matrix && q4(t), !linear);
  }
  const uint64_t C = uint64_t(o.context > 0 ? o.context : c.context_length);
  const uint64_t S = o.max_prefill > 0 ? std::min<uint64_t>(uint64_t(o.max_prefill), C) : std::min<uint64_t>(C, 512);
  const uint64_t kv = C * uint64_t(c.n_kv_heads) * uint64_t(c.head_dim) * 4;
  for (int l = 0; l < c.n_layers; ++l) {
    add(fmt::format("blk.{}.k_cache", l), kv, false, true);
    add(fmt::format("blk.{}.v_cache", l), kv, false, true);
  }
  add("rope.cos", C * uint64_t(c.head_dim / 2) * 4, true, true);
  add("rope.sin", C * uint64_t(c.head_dim / 2) * 4, true, true);
  // Flash attention keeps no score buffer; split-KV decode keeps <= 64 partials of (D + 2) floats per head.
  add("attention partials", uint64_t(c.n_heads) * 64 * uint64_t(c.head_dim + 2) * 4, false, true);
  add("activation", S * 2 * uint64_t(std::max(c.hidden_dim, c.dim)) * 4, false, true);
  return f;
}

void check_llama_fits(const LlamaFootprint& f, uint64_t max_buffer, uint64_t max_binding, uint64_t host_available) {
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
