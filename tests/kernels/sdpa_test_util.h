// The llama.sdpa_with_kv_cache test fixture shared by sdpa_test.cpp, sdpa_decode_test.cpp and
// sdpa_decode_sg_test.cpp: a graph of [optional cache fill] + sdpa_with_kv_cache with input_pos a live SymInt, a CPU
// mirror of the caches for the double-precision reference (reference/attention_ref.h), and tuning scopes for the
// split-KV rule and routes.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "attention_test_util.h"
#include "gpu_fixture.h"
#include "graph/executable.h"
#include "reference/attention_ref.h"
#include "webgpu/device.h"

namespace wgrt::test {


inline double max_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) m = std::max(m, double(std::fabs(a[i] - b[i])));
  return m;
}

// The device's tuning policy with the split-KV threshold at v (read at every execute; chunks of >= min_chunk
// keys, up to `target` workgroups), restored at scope exit.
inline webgpu::Tuning with_threshold(int64_t v, int64_t min_chunk, int64_t target) {
  webgpu::Tuning t = gpu().tuning();
  t.sdpa_split_min_context = v;
  t.sdpa_split_min_chunk = min_chunk;
  t.sdpa_split_target_workgroups = target;
  return t;
}
struct SplitThreshold {
  webgpu::ScopedTuning scoped;
  // v = 1 with the defaults: every decode step splits, into chunks as small as one key.
  explicit SplitThreshold(int64_t v, int64_t min_chunk = 1, int64_t target = 1 << 20)
      : scoped(gpu(), with_threshold(v, min_chunk, target)) {}
};
// The legacy route (scores in scratch) for graphs built and run in this scope.
inline webgpu::Tuning with_legacy() {
  webgpu::Tuning t = gpu().tuning();
  t.sdpa_legacy = true;
  return t;
}
struct Legacy {
  webgpu::ScopedTuning scoped{gpu(), with_legacy()};
};

// A graph: [optional cache fill: update_cache(kfill), update_cache(vfill) at fill_pos] then
// sdpa_with_kv_cache(q, k, v, caches, input_pos, seq_len = sym_size(q, 1), None, 0.0, causal, scale, out).
// A CPU mirror of the caches gives the reference.
struct Sdpa {
  int64_t B, S_max, Hq, Hkv, D, C;
  bool causal;
  double scale;
  double softcap = 0;  // > 0 or window > 0: wgrt.sdpa_with_kv_cache_swa
  int64_t window = 0;
  DType kv = DType::F32;  // the caches' dtype; F16: the CPU mirror holds each written value rounded to f16
  ValueId q, k, v, pos_in, out, kc, vc, kfill = -1, vfill = -1, fill_pos = -1;
  std::unique_ptr<ExecutableGraph> exe;
  std::vector<float> kc_ref, vc_ref;
  uint32_t seed = 7;

  Sdpa(int64_t B_, int64_t S_max_, int64_t Hq_, int64_t Hkv_, int64_t D_, int64_t C_, bool causal_ = true,
       bool pinned_pos = false, int64_t fill_max = 0, std::optional<double> scale_ = std::nullopt, double softcap_ = 0,
       int64_t window_ = 0, DType kv_ = DType::F32)
      : B(B_), S_max(S_max_), Hq(Hq_), Hkv(Hkv_), D(D_), C(C_), causal(causal_), softcap(softcap_), window(window_), kv(kv_) {
    scale = scale_ ? *scale_ : 1.0 / std::sqrt(double(D));
    Graph g;
    q = g.input("q", DType::F32, {B, S_max, Hq, D});
    k = g.input("k", DType::F32, {B, S_max, Hkv, D});
    v = g.input("v", DType::F32, {B, S_max, Hkv, D});
    pos_in = g.input("input_pos", DType::I32, {1});
    kc = g.state("k_cache", kv, {B, C, Hkv, D});
    vc = g.state("v_cache", kv, {B, C, Hkv, D});
    ValueId pos = pinned_pos ? g.int_value(0) : g.symint();
    if (!pinned_pos) g.op("et_vk.select_as_symint.default", {pos_in, g.int_value(0), g.int_value(0), pos});
    if (fill_max > 0) {
      kfill = g.input("k_fill", DType::F32, {B, fill_max, Hkv, D});
      vfill = g.input("v_fill", DType::F32, {B, fill_max, Hkv, D});
      fill_pos = g.input("fill_pos", DType::I32, {1});
      ValueId fp = g.symint();
      g.op("et_vk.select_as_symint.default", {fill_pos, g.int_value(0), g.int_value(0), fp});
      g.op("llama.update_cache.default", {kfill, kc, fp});
      g.op("llama.update_cache.default", {vfill, vc, fp});
    }
    ValueId seq_len = g.symint();
    g.op("aten.sym_size.int", {q, g.int_value(1), seq_len});
    out = g.tensor_like(DType::F32, "attn_out");
    std::vector<ValueId> args = {q, k, v, kc, vc, pos, seq_len, g.none(), g.real(0.0), g.boolean(causal),
                                 scale_ ? g.real(*scale_) : g.none()};
    if (softcap > 0 || window > 0) {
      args.push_back(g.real(softcap));
      args.push_back(g.int_value(window));
    }
    args.push_back(out);
    g.op(softcap > 0 || window > 0 ? "wgrt.sdpa_with_kv_cache_swa.default" : "llama.sdpa_with_kv_cache.default", args, "attn");
    g.output(out);
    exe = ExecutableGraph::build(std::move(g), gpu());
    kc_ref.assign(size_t(B * C * Hkv * D), 0.0f);
    vc_ref = kc_ref;
    if (fill_max > 0) set_fill(0, 0);
  }

  void set_fill(int64_t n, int32_t at) {
    std::vector<float> kf = randn(size_t(B * n * Hkv * D), seed++), vf = randn(size_t(B * n * Hkv * D), seed++);
    exe->set_input(kfill, {B, n, Hkv, D}, std::span<const float>(kf));
    exe->set_input(vfill, {B, n, Hkv, D}, std::span<const float>(vf));
    std::vector<int32_t> p = {at};
    exe->set_input(fill_pos, {1}, std::span<const int32_t>(p));
    ref::cache_write(kc_ref, stored(kf), B, n, Hkv, D, C, at);
    ref::cache_write(vc_ref, stored(vf), B, n, Hkv, D, C, at);
  }
  // Values as the caches hold them.
  std::vector<float> stored(const std::vector<float>& x) const { return kv == DType::F16 ? f16_rounded(x) : x; }

  struct Step {
    std::vector<float> q, k, v;
    int64_t S;
    int32_t pos;
  };
  Step make_step(int64_t S, int32_t pos) {
    return {randn(size_t(B * S * Hq * D), seed++), randn(size_t(B * S * Hkv * D), seed++), randn(size_t(B * S * Hkv * D), seed++), S, pos};
  }
  // Runs a step on the GPU (throws what execute throws); the reference caches are updated only on success.
  std::vector<float> run(const Step& st) {
    exe->set_input(q, {B, st.S, Hq, D}, std::span<const float>(st.q));
    exe->set_input(k, {B, st.S, Hkv, D}, std::span<const float>(st.k));
    exe->set_input(v, {B, st.S, Hkv, D}, std::span<const float>(st.v));
    std::vector<int32_t> p = {st.pos};
    exe->set_input(pos_in, {1}, std::span<const int32_t>(p));
    exe->execute();
    return exe->read_f32(out);
  }
  std::vector<float> expected(const Step& st) {
    ref::cache_write(kc_ref, stored(st.k), B, st.S, Hkv, D, C, st.pos);
    ref::cache_write(vc_ref, stored(st.v), B, st.S, Hkv, D, C, st.pos);
    return ref::attention(st.q, kc_ref, vc_ref, B, st.S, Hq, Hkv, D, C, st.pos, causal, scale, softcap, window);
  }
  // Whether a dispatch of `kernel` ("<shader>:<entry>") ran in the last execute (dump lists inactive ones, and
  // a dispatch of zero workgroups, "grid 0x..", is skipped).
  bool active(const std::string& kernel) const {
    std::istringstream in(exe->dump());
    for (std::string line; std::getline(in, line);)
      if (line.find(kernel) != std::string::npos && line.find("inactive") == std::string::npos &&
          line.find(" grid 0x") == std::string::npos)
        return true;
    return false;
  }
  // The decode kernel (sdpa_decode.wgsl) ran, and its merge of the key splits.
  bool decode_active() const { return active("sdpa_decode.wgsl:main"); }
  bool decode_merge_active() const { return active("sdpa_decode.wgsl:combine"); }
  // The subgroup decode kernel (sdpa_decode_sg.wgsl, tuning sdpa_decode_lanes) ran instead of sdpa_decode.wgsl's
  // main; the graph has it (built where the policy asked for it and its shape rule held).
  bool decode_sg_active() const { return active("ops/attention/sdpa_decode_sg.wgsl:main"); }
  bool decode_sg_built() const {
    return exe->dump().find("ops/attention/sdpa_decode_sg.wgsl:main") != std::string::npos;
  }
  // Keys split across workgroups: sdpa_flash.wgsl's combine or sdpa_decode.wgsl's merge ran.
  bool split_active() const { return active("sdpa_flash.wgsl:combine") || decode_merge_active(); }
};

}  // namespace wgrt::test
