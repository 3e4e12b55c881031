// Builds the wgrt graph of a Llama-family decoder (llama, qwen2, qwen3, gemma2, gemma3, phi3) from a WeightSource.
//
// One graph serves prefill and decode: `tokens` is an i32 input [1, S] with S <= max_prefill, `input_pos`
// an i32 input [1] read into a SymInt (et_vk.select_as_symint), so positions advance without rebuilding.
// Per layer: rms_norm -> q/k/v linear (+bias for qwen2) -> view [1,S,H,hd] -> (q/k rms_norm for qwen3) ->
// RoPE (interleaved for llama, rotate-half for qwen; cos/sin tables precomputed in double) ->
// llama.sdpa_with_kv_cache (fused cache update + causal GQA attention over [0, input_pos+S)) ->
// output linear -> residual add -> rms_norm -> SwiGLU FFN (silu(gate) * up -> down) -> residual add.
// With q4gsw weights the norms, the GLU and the residual adds fold into the linears (LlamaGraphOptions::fuse).
// Then the last position's hidden state -> rms_norm -> output linear (tied to tok_embd when the model ties
// them) -> logits [1, vocab] and argmax [1] (greedy decoding reads back one int; wgrt.argmax_checked, so
// it is -1 when any logit is NaN or infinite).
// Weights (WeightPolicy::Auto): Q4_0 matrices become q4gsw constants (et_vk.linear_q4gsw / embedding_q4gsw);
// matrices of the types ops::ggml_gpu_block() lists (ops/linear/linear_ggml.h) are uploaded as the file's blocks
// (in their GPU layout, ops::ggml_to_gpu_layout: Q6_K's padded to 212 bytes) and decoded inside wgrt.linear_ggml /
// wgrt.embedding_ggml. Every other type ggml_type_decodable() accepts, and every vector, is dequantized to f32 at
// load (interim for matrices: 4 bytes per weight on the GPU; LlamaGraph::widened_* say how much that costs).
// WeightPolicy::F32 dequantizes everything.
// RoPE tables include the file's frequency scaling (models/rope_scaling.h); sliding-window layers get their own.
// Family switches (LlamaConfig): embd_scale -> wgrt.scale after the embedding; post_norms -> rms_norm of the
// attention and FFN outputs before their residual adds; gelu_ffn -> GeGLU (wgrt.geglu) instead of SwiGLU;
// attn_softcap or a sliding-window layer -> wgrt.sdpa_with_kv_cache_swa; attn_scale -> the SDPA scale;
// final_softcap -> wgrt.softcap on the logits. phi3's fused tensors arrive split (formats/model_families.h).
// Follows: Meta Llama / llama2.c run.c forward pass; Qwen2/Qwen3 (Hugging Face modeling code); llama.cpp
// 80fb11a src/models/gemma2.cpp, gemma3.cpp, phi3.cpp.
#pragma once
#include <cstdint>
#include <string>

#include "formats/model_weights.h"
#include "graph/graph.h"

namespace wgrt::models {

constexpr int64_t kLlamaSampleWindow = 64;  // the repetition-penalty window (text::SamplerConfig's default)

enum class WeightPolicy {
  Auto,  // Q4_0 as q4gsw, the block-format kernels' types as raw blocks, everything else f32
  F32,   // dequantize every weight to f32
};

struct LlamaGraphOptions {
  int context = 0;       // KV-cache length C, 1..the model's context_length (final: Llm::load resolves defaults)
  int max_prefill = 0;   // max tokens per execute, 1..context (final, as context)
  WeightPolicy weights = WeightPolicy::Auto;
  // Serving batch (0: off). N >= 1 sequence slots, each with its own KV-cache region of `context` positions
  // (caches [N, C, Hkv, hd]). Then the graph takes rows of several sequences in one execute: tokens [1, R]
  // (R <= max_prefill), LlamaGraph::row_slots and row_pos i32 [R] (row r is the token at position row_pos[r]
  // of slot row_slots[r]), and out_rows i32 [B] (B <= N: the rows whose logits are wanted); RoPE per row
  // (wgrt.rope_rows) and attention per row over its own slot (wgrt.sdpa_batched). logits [B, vocab],
  // next_token [B]. Rows of one slot in one execute must be consecutive positions (a prefill chunk).
  int slots = 0;
  // Fused layer body (default) when every layer matrix is q4gsw or of a block type of the fused block GEMV
  // (Q4_1, Q5_0, Q8_0, Q4_K, Q5_K, Q6_K: wgrt.linear_ggml_fused), gate/up stack and the family has no post-norms (serving batch: q4gsw only):
  // wgrt.linear_q4gsw_fused (or _ggml_fused) takes each block's RMSNorm into the q/k/v and gate/up linears, SwiGLU/GeGLU into
  // the gate/up linear and the residual adds into the o-proj and down-proj linears (in decode: q, k, v, RoPE,
  // SDPA, o, gate/up, down = 8 dispatches per layer instead of 11). false: the separate ops (tests compare them).
  bool fuse = true;
  // Stacked q/k/v (default, single sequence, no q/k norms, where Wq, Wk, Wv are stored alike): one linear over
  // [Wq; Wk; Wv] (fused or not, as above), then wgrt.rope_qkv_cache rotates q and k and writes k and v into the
  // caches in one dispatch, and the SDPA runs with k, v None (decode: 2 dispatches for 3 GEMVs, RoPE and the
  // cache write). With `fuse`, a Wv of another gemv_kq block type (Q4_K_M's Q6_K attn_v) joins the stack as a
  // two-type weight, and a block-format stack takes wgrt.linear_ggml_rope_qkv (RoPE and the cache write in the
  // GEMV: 1 dispatch; a q/k/v bias, Qwen2's, rides after the layer's norm weight in one vector); a Wv stored
  // otherwise (q4gsw beside blocks, or the unfused body) stays apart: [Wq; Wk] stacked, v passed to
  // wgrt.rope_qkv_cache. false: three linears, RoPE and the SDPA's own cache write (tests compare them).
  bool fuse_qkv = true;
  // KV-cache element type: F32, or F16 (IEEE binary16, half the bytes and half the attention's cache reads;
  // llama.cpp's default) where the head dim is a multiple of 4, else F32 (kv_cache_type() below resolves it).
  DType kv_type = DType::F32;
};

// The KV-cache element type the graph gets for these options: opts.kv_type, except F32 where an F16 cache is not
// possible (head dim not a multiple of 4). llama_footprint counts the caches at this type.
DType kv_cache_type(const LlamaConfig& c, const LlamaGraphOptions& opts);

// LlmOptions::cache_type ("f16" or "f32") as a dtype; InvalidArgument naming the accepted values otherwise.
DType kv_cache_option(const std::string& name);

// "f16 KV cache, 128.0 MiB" (KiB below 1 MiB): the caches' type and their bytes, for the model lines.
std::string kv_cache_summary(DType t, uint64_t bytes);

struct LlamaGraph {
  Graph graph;
  ValueId tokens = -1;     // input i32 [1, S]
  ValueId input_pos = -1;  // input i32 [1]
  ValueId logits = -1;     // output f32 [1, vocab] (last position)
  ValueId next_token = -1; // output i32 [1] (argmax of logits; -1 if a logit is NaN or +-inf)
  std::vector<ValueId> kv_caches;  // state [max(slots, 1), C, Hkv, hd] of kv_type per layer: k_cache, v_cache, in layer order
  DType kv_type = DType::F32;
  uint64_t kv_bytes = 0;  // the caches of every layer (and slot) together
  // Single sequence (slots == 0): wgrt.sample (ops/sampling/sample.cpp) after the argmax, off until
  // sample_params (input i32 [16], ops::sample_params) says on: `sampled` i32 [1] is the seeded draw from the
  // logits with the repetition penalty over sample_window (input i32 [kLlamaSampleWindow], live length = the
  // penalty window); sample_window_out is the next step's window (fed back on the GPU).
  // Serving batch (slots N > 0): the same op per output row: sample_params i32 [B, 16] (a row whose [0] is 0
  // is off: sampled -1, its token is next_token's), sample_window i32 [B, kLlamaSampleWindow] (or [1, W]
  // while no row is on), sampled i32 [B]; window_out unused (the host sets each row's window every step).
  ValueId sample_params = -1, sample_window = -1, sampled = -1, sample_window_out = -1;
  ValueId row_slots = -1, row_pos = -1, out_rows = -1;  // serving batch inputs (LlamaGraphOptions::slots > 0)
  int context = 0, max_prefill = 0;
  uint64_t weight_bytes = 0;  // bytes of weight constants as uploaded
  uint64_t file_weight_bytes = 0;   // bytes of the file tensors those constants were made from
  // Interim (until block-format kernels): file bytes of the tensors dequantized to f32 at load, and the GPU
  // bytes they take as f32 (4 bytes per element). Tensors stored as F32 are not counted.
  uint64_t widened_file_bytes = 0, widened_gpu_bytes = 0;
};

// Throws InvalidArgument for bad options, Unsupported for tensor types it cannot load.
LlamaGraph build_llama_graph(const WeightSource& w, const LlamaGraphOptions& opts);

}  // namespace wgrt::models
