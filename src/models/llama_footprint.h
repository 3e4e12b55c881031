// What a Llama graph (llama_graph.h) will allocate, computed from shapes alone, so that a model or context
// too large for the device or the host fails in milliseconds, before any weight is converted or any buffer
// created (a --ctx of 2^26, or an F32 1B model on an adapter with 1 GiB bindings, used to spend seconds and
// gigabytes first).
//
// Counted: every weight constant as uploaded (f32, q4gsw u32 qweight + f16 scales for Q4_0 kept 4-bit, or the
// file's bytes for the types the block-format kernels decode; gate/up stacked when both are stored alike, as
// the builder does), the K and V cache of each layer ([C, n_kv_heads, head_dim] of kv_cache_type: f32 or f16),
// the RoPE cos/sin tables ([C, head_dim/2] f32 each; a second pair for sliding-window layers), the split-KV attention partials
// ([n_heads, 64, head_dim + 2] f32; flash attention has no score buffer), the score scratch of gemma's
// soft-capped / sliding-window attention ([S * n_heads, C] f32) and the largest activation ([S, 2 * ffn] f32). Every buffer must fit
// maxBufferSize. Buffers the kernels bind whole must also fit maxStorageBufferBindingSize: all of the above
// except the linear layers' weights, which ops/linear splits into binding-sized row ranges, and a token
// embedding kept in a block format, which wgrt.embedding_ggml binds in row chunks the same way (an f32 or q4gsw
// embedding is bound whole by its kernel, also when the classifier shares it). Host bytes = weight
// constants + RoPE tables (the builder holds them in host memory before upload).
#pragma once
#include <cstdint>
#include <string>

#include "formats/model_weights.h"
#include "models/llama_graph.h"

namespace wgrt::models {

struct LlamaFootprint {
  struct Largest {
    uint64_t bytes = 0;
    std::string name;  // a weight, "blk.0.k_cache", "rope.cos", "attention partials", "activation"
  };
  Largest buffer;         // the largest GPU buffer
  Largest bound;          // the largest buffer bound whole
  uint64_t gpu_bytes = 0;   // all buffers together
  uint64_t weight_bytes = 0, kv_bytes = 0;  // of which weight constants, and K/V caches
  uint64_t host_bytes = 0;  // host memory the graph build holds at its peak
  int context = 0;          // the KV-cache length counted
};

// Shapes only: reads no tensor data. `opts` as given to build_llama_graph (context 0 = the model's).
LlamaFootprint llama_footprint(const WeightSource& w, const LlamaGraphOptions& opts);

// LimitError naming the buffer, its size and the limit when buffer exceeds max_buffer_bytes (maxBufferSize),
// bound exceeds max_binding_bytes (maxStorageBufferBindingSize), gpu_bytes exceeds device_memory_bytes (the
// adapter's device-local memory, webgpu::AdapterInfo::device_local_bytes; 0: not checked; the message names
// both sizes, the weight and KV-cache parts and `adapter`), or host_bytes exceeds host_available_bytes (0: not
// checked). The messages suggest the fix (a smaller --ctx, a smaller quantization, a smaller model).
void check_llama_fits(const LlamaFootprint& f, uint64_t max_buffer_bytes, uint64_t max_binding_bytes,
                      uint64_t host_available_bytes, uint64_t device_memory_bytes = 0, const std::string& adapter = "");

// The prefill chunk when the caller gives none: `policy` (webgpu::Tuning::prefill_chunk) capped by opts.context
// (> 0), then halved while it is above 512 and the largest per-row prefill buffer bound whole (the activation,
// and Gemma's attention scores) would exceed max_binding_bytes at that many rows. Shapes only; throws nothing.
int default_prefill_chunk(const WeightSource& w, const LlamaGraphOptions& opts, int policy, uint64_t max_binding_bytes);

// MemAvailable from /proc/meminfo in bytes, or 0 when it cannot be read.
uint64_t host_available_bytes();

}  // namespace wgrt::models
