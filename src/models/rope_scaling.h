// RoPE cos/sin tables with llama.cpp's frequency scaling (Llama 3 rope_freqs, linear, YaRN, Phi-3 LongRoPE
// factors; formulas in formats/model_weights.h RopeScaling), for et_vk.apply_rotary_emb(_hf).
// Follows ggml's CPU rope (ggml-cpu/ops.cpp rope_yarn, ggml_rope_cache_init; ggml.c ggml_rope_yarn_corr_dims),
// evaluated in double and rounded to f32 once.
#pragma once
#include <cstdint>
#include <vector>

#include "formats/model_weights.h"
#include "ops/rope/rope_tables.h"

namespace wgrt::models {

struct RopeFrequencies {
  std::vector<double> freq;  // radians per position of pair i, head_dim/2 values
  double mscale = 1.0;       // multiplies cos and sin
};

// The frequencies of a layer: sliding-window layers (c.is_swa) use rope_theta_swa and no scaling factor, as
// llama.cpp's get_rope_freq_base/scale do; `context` (the KV-cache length used) picks Phi-3's long or short
// factors (long when context > orig_context). InvalidArgument for an odd head_dim or a factor vector whose
// length is not head_dim/2.
RopeFrequencies rope_frequencies(const LlamaConfig& c, int context, bool swa_layer);

// cos/sin [c_max, half] of angle pos * freq[i], times mscale; layout as ops::rope_tables. InvalidArgument
// for c_max <= 0 or a table of more than 2^28 elements.
ops::RopeTables rope_tables_for(int64_t c_max, const RopeFrequencies& f);

// Llama 3's factors (what llama.cpp's converter writes as rope_freqs from rope_scaling {factor,
// low_freq_factor, high_freq_factor, original_max_position_embeddings}): for pair i with wavelength
// 2*pi*base^(2i/d): 1 below orig/high, factor above orig/low, else 1 / ((1 - s)/factor + s) with
// s = (orig/wavelength - low)/(high - low). For `wgrt synth` and tests.
std::vector<float> llama3_rope_factors(int head_dim, double base, double factor, double low_freq_factor,
                                       double high_freq_factor, double orig_context);

}  // namespace wgrt::models
