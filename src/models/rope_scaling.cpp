#include "models/rope_scaling.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "wgrt/error.h"

namespace wgrt::models {

namespace {

// ggml_rope_yarn_corr_dims (in float, as ggml computes it): the pair range over which YaRN blends.
void yarn_corr_dims(int n_dims, int n_ctx_orig, float base, float beta_fast, float beta_slow, float dims[2]) {
  auto corr = [&](float n_rot) {
    return float(n_dims) * logf(float(n_ctx_orig) / (n_rot * 2.0f * float(M_PI))) / (2.0f * logf(base));
  };
  dims[0] = std::max(0.0f, floorf(corr(beta_fast)));
  dims[1] = std::min(float(n_dims - 1), ceilf(corr(beta_slow)));
}

}  // namespace

RopeFrequencies rope_frequencies(const LlamaConfig& c, int context, bool swa) {
  const int d = c.head_dim, half = d / 2;
  if (d <= 0 || d % 2 != 0) throw InvalidArgument(fmt::format("rope_frequencies: head dim {} must be even and > 0", d));
  const RopeScaling& rs = c.rope_scaling;
  using T = RopeScaling::Type;
  const double base = swa ? c.rope_theta_swa : c.rope_theta;
  const double global_factor = rs.type == T::None ? 1.0 : double(rs.factor);
  const double freq_scale = swa ? 1.0 : 1.0 / global_factor;
  const std::vector<float>* ff = nullptr;
  if (!rs.freq_factors.empty()) ff = &rs.freq_factors;
  else if (!rs.long_factors.empty()) ff = context > rs.orig_context ? &rs.long_factors : &rs.short_factors;
  if (ff && int(ff->size()) != half)
    throw InvalidArgument(fmt::format("rope_frequencies: {} factors for {} rotated pairs", ff->size(), half));
  const bool yarn = rs.type == T::Yarn;
  float corr[2] = {0, 0};
  if (yarn) yarn_corr_dims(d, rs.orig_context, float(base), 32.0f, 1.0f, corr);
  RopeFrequencies f;
  f.freq.resize(size_t(half));
  for (int i = 0; i < half; ++i) {
    const double extrap = std::pow(base, -2.0 * i / d) / (ff ? double((*ff)[size_t(i)]) : 1.0);
    const double interp = freq_scale * extrap;
    double w = interp;
    if (yarn) {
      const double y = (double(i) - corr[0]) / std::max(0.001, double(corr[1]) - corr[0]);
      const double ramp = 1.0 - std::min(1.0, std::max(0.0, y));
      w = interp * (1.0 - ramp) + extrap * ramp;
    }
    f.freq[size_t(i)] = w;
  }
  // llama.cpp: cparams.yarn_attn_factor = rope_attn_factor (* get_mscale(F) / (1 + 0.1 ln F) under YaRN), and
  // rope_yarn multiplies by 1 + 0.1 ln(1 / freq_scale) of the layer when YaRN is on.
  f.mscale = rs.attn_factor;
  if (yarn) {
    const double F = global_factor;
    const double get_mscale = F <= 1.0 ? 1.0 : 0.1 * std::log(F) + 1.0;
    f.mscale *= get_mscale / (1.0 + 0.1 * std::log(F)) * (1.0 + 0.1 * std::log(1.0 / freq_scale));
  }
  return f;
}

ops::RopeTables rope_tables_for(int64_t c_max, const RopeFrequencies& f) {
  const int64_t half = int64_t(f.freq.size());
  if (c_max <= 0 || half <= 0) throw InvalidArgument(fmt::format("rope tables: context {} and {} pairs must be > 0", c_max, half));
  if (c_max > (int64_t(1) << 28) / half) throw InvalidArgument(fmt::format("rope tables: {} x {} table is too large", c_max, half));
  ops::RopeTables t;
  t.cos.resize(size_t(c_max * half));
  t.sin.resize(size_t(c_max * half));
  for (int64_t p = 0; p < c_max; ++p)
    for (int64_t i = 0; i < half; ++i) {
      const double a = double(p) * f.freq[size_t(i)];
      t.cos[size_t(p * half + i)] = float(std::cos(a) * f.mscale);
      t.sin[size_t(p * half + i)] = float(std::sin(a) * f.mscale);
    }
  return t;
}

std::vector<float> llama3_rope_factors(int head_dim, double base, double factor, double low, double high, double orig) {
  std::vector<float> r;
  const double low_wavelen = orig / low, high_wavelen = orig / high;
  for (int i = 0; i < head_dim / 2; ++i) {
    const double freq = 1.0 / std::pow(base, 2.0 * i / head_dim);
    const double wavelen = 2.0 * M_PI / freq;
    if (wavelen < high_wavelen) r.push_back(1.0f);
    else if (wavelen > low_wavelen) r.push_back(float(factor));
    else {
      const double smooth = (orig / wavelen - low) / (high - low);
      r.push_back(float(1.0 / ((1.0 - smooth) / factor + smooth)));
    }
  }
  return r;
}

}  // namespace wgrt::models
