// Random-weight GGUF models with the exact architecture shape of real ones (for benchmarks and tests without
// downloading weights): `wgrt synth`. The files load in wgrt and in llama.cpp.
//
// Contents of a synthesized file (following what llama.cpp's convert_hf_to_gguf.py + llama-quantize write):
//   metadata: general.architecture, general.name, general.file_type (0 F32, 1 F16, 2 Q4_0, 7 Q8_0),
//     general.quantization_version = 2 (quantized types only), {arch}.vocab_size, .context_length,
//     .embedding_length, .block_count, .feed_forward_length, .attention.head_count, .attention.head_count_kv,
//     .attention.key_length, .attention.value_length (= head_dim), .attention.layer_norm_rms_epsilon,
//     .rope.freq_base, .rope.dimension_count (= head_dim), tokenizer.ggml.* (below).
//   tensors (GGUF names, ggml dims [ne0 = in, ne1 = out]): token_embd [dim, vocab]; per layer i blk.i.attn_norm
//     [dim], attn_q [dim, heads*head_dim], attn_k / attn_v [dim, kv_heads*head_dim], attn_output
//     [heads*head_dim, dim], ffn_norm [dim], ffn_gate / ffn_up [dim, ffn], ffn_down [ffn, dim], and with
//     qkv_bias attn_q.bias / attn_k.bias / attn_v.bias; output_norm [dim]; output [dim, vocab] unless tied.
//     Matrices and token_embd are stored as `type`; norms and biases always F32.
//   values: norm weights 1.0; every other value is an Irwin-Hall(4) variate (sum of four uniforms: bell-shaped,
//     bounded by ±3.46 std) scaled to std `init_std`, from a counter-based generator keyed by (seed, tensor
//     name, element index): same inputs -> same bytes, on any platform.
//   vocabulary (tokenizer.ggml.model "llama", SentencePiece-style), exactly `vocab` entries:
//     0 "<unk>" (type 2 unknown), 1 "<s>" (3 control, BOS), 2 "</s>" (3 control, EOS), 3..258 "<0x00>".."<0xFF>"
//     (6 byte), then "▁w0", "▁w1", ... (1 normal) with scores -1, -2, ... (specials and bytes score 0);
//     bos/eos/unknown ids, add_bos_token true, add_eos_token false. `control_tokens` (e.g. "<|im_start|>",
//     "<|im_end|>") take the last ids, in order (type 3 control, score 0), in place of the last fillers;
//     `eot_token` names one of them as tokenizer.ggml.eot_token_id; `chat_template` (Jinja2 source) becomes
//     tokenizer.chat_template when not empty.
// Writing streams tensor data (GgufWriter::add_tensor_stream): memory stays at a few chunks, not the model size.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/ggml_type.h"
#include "formats/gguf_writer.h"

namespace wgrt::models {

struct SynthConfig {
  std::string name = "";        // preset name; general.name
  std::string arch = "";        // "llama", "smollm3", "ernie4_5" (interleaved RoPE in llama.cpp), "qwen2", "qwen3", "gemma2",
                                // "gemma3" or "phi3" (NEOX)
  int dim = 0, ffn = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, vocab = 0, context = 0;
  float rope_theta = 10000.0f, rms_eps = 1e-5f;
  bool qkv_bias = false;     // attn_q/k/v.bias (qwen2)
  bool tied = true;          // no output.weight: the classifier is token_embd
  float init_std = 0.02f;    // std of the random weights
  std::string chat_template = "";               // tokenizer.chat_template; "" : none
  std::vector<std::string> control_tokens = {}; // special tokens at the end of the vocabulary
  std::string eot_token = "";                   // "" or one of control_tokens: tokenizer.ggml.eot_token_id
  // RoPE scaling. llama3_factor > 0: a rope_freqs tensor from llama3_rope_factors(head_dim, rope_theta,
  // llama3_factor, llama3_low, llama3_high, llama3_orig) (models/rope_scaling.h), as llama.cpp's converter
  // writes for Llama 3.1+. rope_scaling_type "linear"/"yarn": {arch}.rope.scaling.type, .factor (rope_factor),
  // .original_context_length (rope_orig_context, 0: context).
  float llama3_factor = 0, llama3_low = 1, llama3_high = 4;
  int llama3_orig = 8192;
  std::string rope_scaling_type = "";  // "": not written
  float rope_factor = 1;
  int rope_orig_context = 0;
  // Gemma (arch gemma2/gemma3): {arch}.attention.sliding_window (0: not written), .sliding_window_pattern
  // (0: not written), .attn_logit_softcapping / .final_logit_softcapping (0: not written), .rope.freq_base_swa
  // (0: not written). Their tensors add blk.i.post_attention_norm / post_ffw_norm (and q/k norms for gemma3).
  int sliding_window = 0, swa_pattern = 0;
  float attn_softcap = 0, final_softcap = 0, rope_theta_swa = 0;
  // phi3: attn_qkv and ffn_up (gate rows first) are written fused; longrope_factors > 0 adds
  // rope_factors_long / rope_factors_short (long: 1 + longrope_factors * i / (head_dim/2); short: 1 + i/(head_dim/2)/4)
  // and rope.scaling.attn_factor sqrt(1 + ln(context/orig)/ln(orig)) with rope.scaling.original_context_length.
  float longrope_factors = 0;
  bool random_norms = false;   // norm weights 1 + N(0, init_std/2) instead of 1 (tests: a wrong norm shows)
};

// Presets (data, in synth.cpp): llama-3.2-1b (with Llama 3.2's rope_freqs), qwen2.5-0.5b, smollm2-135m,
// gemma-2-2b, gemma-3-1b, qwen3-0.6b, smollm3-3b, ernie-4.5-0.3b, phi-3-mini-4k.
const std::vector<SynthConfig>& synth_presets();
// The preset named `name`; InvalidArgument listing the known names otherwise.
const SynthConfig& synth_preset(std::string_view name);

// Checks `c` and `type`: InvalidArgument naming the field for an arch not listed above, non-positive or
// absurd sizes (dim, ffn, head_dim, heads <= 65536; layers <= 4096; vocab in [260, 2^24]; context <= 2^24),
// heads % kv_heads != 0, odd head_dim, control_tokens that leave no filler or repeat or are empty, an
// eot_token not among control_tokens, phi3 with heads*head_dim != dim, a rope_scaling_type other than ""/linear/yarn,
// dim/ffn/heads*head_dim not multiples of 32 for Q4_0/Q8_0, type not in
// {F32, F16, Q4_0, Q8_0}, init_std not finite and positive.
void validate_synth(const SynthConfig& c, GgmlType type);

// A GgufWriter holding the whole model (tensors streamed: call write(path) to produce the file, or to_bytes()
// for small test models). Throws what validate_synth throws.
GgufWriter synth_gguf(const SynthConfig& c, GgmlType type, uint64_t seed = 0);

// Total number of weight values (parameters) of the model `c` describes.
uint64_t synth_param_count(const SynthConfig& c);

}  // namespace wgrt::models
