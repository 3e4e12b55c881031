// The serving-batch attention test harness shared by sdpa_batched_test and sdpa_batched_decode_test: one
// wgrt.sdpa_batched(_swa) graph of up to R_max rows over N slots of C_max positions, run step by step against
// the double-precision reference (reference/attention_ref.h) applied row by row to the row's own cache slot,
// under a tuning policy of its own (installed around each execute, so graphs of two routes can alternate).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "attention_test_util.h"
#include "gpu_fixture.h"
#include "graph/executable.h"
#include "reference/attention_ref.h"
#include "webgpu/device.h"

namespace wgrt::test {

struct BatchedRow {
  int slot, pos;
};

struct Batched {
  int64_t R_max, N, Hq, Hkv, D, C;
  ValueId q, k, v, slots, pos, out;
  std::unique_ptr<ExecutableGraph> exe;
  std::vector<float> kc_ref, vc_ref;  // [N, C, Hkv, D]
  uint32_t seed = 3;
  double softcap = 0;  // != 0 or window != 0: wgrt.sdpa_batched_swa
  int64_t window = 0;
  double qscale = 1;   // q inputs are scaled by this (so that the soft cap bites)
  std::optional<webgpu::Tuning> tuning;  // installed for the build and every execute (none: the device's)
  DType kv = DType::F32;  // the caches' dtype; F16: the CPU mirror holds the written values rounded to f16
  ValueId kc = -1, vc = -1;

  Batched(int64_t R_max_, int64_t N_, int64_t Hq_, int64_t Hkv_, int64_t D_, int64_t C_, double softcap_ = 0,
          int64_t window_ = 0, std::optional<webgpu::Tuning> tuning_ = std::nullopt, DType kv_ = DType::F32)
      : R_max(R_max_), N(N_), Hq(Hq_), Hkv(Hkv_), D(D_), C(C_), softcap(softcap_), window(window_), tuning(tuning_), kv(kv_) {
    std::optional<webgpu::ScopedTuning> keep;
    if (tuning) keep.emplace(gpu(), *tuning);
    Graph g;
    q = g.input("q", DType::F32, {1, R_max, Hq, D});
    k = g.input("k", DType::F32, {1, R_max, Hkv, D});
    v = g.input("v", DType::F32, {1, R_max, Hkv, D});
    slots = g.input("slots", DType::I32, {R_max});
    pos = g.input("pos", DType::I32, {R_max});
    kc = g.state("k_cache", kv, {N, C, Hkv, D}), vc = g.state("v_cache", kv, {N, C, Hkv, D});
    out = g.tensor(DType::F32, {1, R_max, Hq, D}, "out");
    if (softcap != 0 || window != 0)
      g.op("wgrt.sdpa_batched_swa.default", {q, k, v, kc, vc, slots, pos, g.none(), g.real(softcap), g.int_value(window), out},
           "attn");
    else
      g.op("wgrt.sdpa_batched.default", {q, k, v, kc, vc, slots, pos, g.none(), out}, "attn");
    g.output(out);
    exe = ExecutableGraph::build(std::move(g), gpu());
    kc_ref.assign(size_t(N * C * Hkv * D), 0.0f);
    vc_ref = kc_ref;
  }

  // Runs rows on the GPU and returns (gpu, reference).
  std::pair<std::vector<float>, std::vector<float>> run(const std::vector<BatchedRow>& rows) {
    const int64_t R = int64_t(rows.size());
    std::vector<float> qd = randn(size_t(R * Hq * D), seed++), kd = randn(size_t(R * Hkv * D), seed++),
                       vd = randn(size_t(R * Hkv * D), seed++);
    for (float& x : qd) x = float(x * qscale);
    std::vector<int32_t> sl, ps;
    for (const BatchedRow& r : rows) {
      sl.push_back(r.slot);
      ps.push_back(r.pos);
    }
    exe->set_input(q, {1, R, Hq, D}, std::span<const float>(qd));
    exe->set_input(k, {1, R, Hkv, D}, std::span<const float>(kd));
    exe->set_input(v, {1, R, Hkv, D}, std::span<const float>(vd));
    exe->set_input(slots, {R}, std::span<const int32_t>(sl));
    exe->set_input(pos, {R}, std::span<const int32_t>(ps));
    {
      std::optional<webgpu::ScopedTuning> keep;
      if (tuning) keep.emplace(gpu(), *tuning);
      exe->execute();
    }
    std::vector<float> got = exe->read_f32(out);
    if (kv == DType::F16) kd = f16_rounded(kd), vd = f16_rounded(vd);
    const size_t row_kv = size_t(Hkv * D), slot_kv = size_t(C) * row_kv;
    for (int64_t i = 0; i < R; ++i) {  // all writes first, as the op does
      const size_t dst = size_t(rows[i].slot) * slot_kv + size_t(rows[i].pos) * row_kv;
      std::copy_n(kd.begin() + long(i) * long(row_kv), row_kv, kc_ref.begin() + long(dst));
      std::copy_n(vd.begin() + long(i) * long(row_kv), row_kv, vc_ref.begin() + long(dst));
    }
    std::vector<float> want;
    for (int64_t i = 0; i < R; ++i) {
      const auto s = long(size_t(rows[i].slot) * slot_kv);
      std::vector<float> kc(kc_ref.begin() + s, kc_ref.begin() + s + long(slot_kv)), vc(vc_ref.begin() + s, vc_ref.begin() + s + long(slot_kv));
      std::vector<float> qi(qd.begin() + i * Hq * D, qd.begin() + (i + 1) * Hq * D);
      std::vector<float> o = ref::attention(qi, kc, vc, 1, 1, Hq, Hkv, D, C, rows[i].pos, true, 1.0 / std::sqrt(double(D)),
                                           softcap, window);
      want.insert(want.end(), o.begin(), o.end());
    }
    return {got, want};
  }
};

inline std::vector<BatchedRow> prefill(int slot, int from, int n) {
  std::vector<BatchedRow> r;
  for (int i = 0; i < n; ++i) r.push_back({slot, from + i});
  return r;
}

inline std::vector<BatchedRow> operator+(std::vector<BatchedRow> a, const std::vector<BatchedRow>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}


}  // namespace wgrt::test
