// wgrt.sample.default(logits f32 [R, V], params i32 [16], window i32 [W], out i32 [R], window_out i32 [W],
//                     probs f32 [R, V] | None)
//   One seeded draw per row of logits with text::Sampler's order of operations (src/text/sampler.h): the
//   repetition penalty over the distinct ids of `window`, temperature, top-k, softmax + top-p, min-p,
//   renormalise, draw. The method (a radix select over 64-bit keys with fixed-point masses, no sort) and the
//   tolerances are in sample.wgsl's header; the order of the draw differs from the CPU sampler's (id order,
//   Philox4x32-10 keyed by the seed and the step), so the tokens match it in distribution, not one by one.
//   params i32 [16] (one set for every row; row r draws with counter step + r) or [R, 16] (one per row, each
//   drawing at its own step; a row whose [0] is not 1 is off: out -1), read on the host too
//   (sampling.h: sample_params): [0] 1 = on (no row on: no dispatch, outputs untouched),
//   [1] temperature (f32 bits, > 0), [2] top_k (0 or >= V: off), [3] top_p (f32 bits, 1: off), [4] min_p
//   (f32 bits, 0: off), [5] repetition penalty (f32 bits, 1: off), [6..7] seed (lo, hi), [8..9] step
//   (lo, hi; row r draws with counter step + r), [10..15] 0.
//   window i32 [W] (shared) or [R, W] (per row): the last W tokens (oldest first; -1 = empty slot, ignored);
//   its live length is the penalty window. window_out (window's dims) gets window shifted left by one with the
//   token appended: a shared window the last row's token (the next step's window: feed it back with
//   ExecutableGraph::feed_input), per-row windows each row's own. out[r] = the token, or -1 when the row holds a NaN
//   or +inf logit or every logit is -inf. probs (tests): each token's probability of being drawn.
//   Errors (build): dtypes, ranks, W > 1024; (resize) params or window rows neither 1 nor R, a parameter out of
//   range (InvalidArgument naming it); a params input without host data is treated as off.
#include "ops/sampling/sampling.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"

namespace wgrt::ops {

namespace {

struct SampleUniform {  // WGSL Shared (sample_common.wgsl); the per-row fields come from the params tensor
  uint32_t V, chunks, id_passes, rows, wlen, prows, wrows, pad;
};
WGRT_UNIFORM(SampleUniform, V, chunks, id_passes, rows, wlen, prows, wrows, pad);

constexpr const char* kWgsl = "ops/sampling/sample.wgsl";        // prep, init, the radix select
constexpr const char* kDraw = "ops/sampling/sample_draw.wgsl";   // mass, draw, pick, probs_out
constexpr uint32_t kValuePasses = 4;

float f32_bits(int32_t v) { return std::bit_cast<float>(v); }

// Digit passes over the id word: ceil(bits(V - 1) / 8), at least 1.
uint32_t id_passes(uint64_t V) {
  const uint32_t bits = V <= 1 ? 0 : 64 - uint32_t(std::countl_zero(uint64_t(V - 1)));
  return std::max(1u, (bits + 7) / 8);
}

void build_sample(OpBuilder& b) {
  b.check_args(6);
  b.check_dtype(0, DType::F32);
  b.check_dtype(1, DType::I32);
  b.check_dtype(2, DType::I32);
  b.check_dtype(3, DType::I32);
  b.check_dtype(4, DType::I32);
  b.check_rank(0, 2, 2);
  b.check_rank(1, 1, 2);
  b.check_rank(2, 1, 2);
  b.check(b.tensor(1).max_dims.back() == kSampleParams, "params '{}' must be i32 [{}] or [rows, {}]", b.tensor(1).name,
          kSampleParams, kSampleParams);
  const int64_t W = b.tensor(2).max_dims.back();
  b.check(W <= kSampleWindowMax, "window '{}' holds {} tokens; at most {}", b.tensor(2).name, W, kSampleWindowMax);
  const bool with_probs = !b.is_none(5);
  if (with_probs) b.check_dtype(5, DType::F32);
  const Dims ld = b.tensor(0).max_dims;
  const uint64_t R = uint64_t(ld[0]), Vmax = uint64_t(ld[1]);
  b.check(R > 0 && Vmax > 0, "logits '{}' {} are empty", b.tensor(0).name, dims_str(ld));
  const webgpu::KernelSpec prep{kWgsl, "prep", {}, {}};
  const uint64_t chunk = webgpu::PipelineCache::value(prep, "CHUNK");
  const uint64_t chunks_max = div_up(Vmax, chunk);
  // Kernels index chunks by workgroup_id.x and rows by workgroup_id.z (no folding).
  b.check(chunks_max <= 65535, "logits '{}': {} tokens per row exceed the sampler's {} ({} chunks of {})",
          b.tensor(0).name, Vmax, 65535 * chunk, 65535, chunk);
  b.check(R <= 65535, "logits '{}': {} rows exceed the sampler's 65535", b.tensor(0).name, R);
  UniformRef u = b.uniform<SampleUniform>();
  ScratchRef z = b.scratch(R * Vmax * 4, "penalized logits");
  ScratchRef part = b.scratch(R * chunks_max * 256 * 2 * 4, "sampling histograms");
  ScratchRef st = b.scratch(R * 32 * 4, "sampling state");
  std::vector<Binding> binds = {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(2)), Binding::tensor(b.arg(3)),
                                Binding::tensor(b.arg(4)), u, z, part, st};
  binds.push_back(with_probs ? Binding::tensor(b.arg(5)) : Binding(b.scratch(16, "no probs")));
  binds.push_back(Binding::tensor(b.arg(1)));
  auto spec = [](const char* entry, uint32_t stage) {
    return webgpu::KernelSpec{kWgsl, entry, {{"STAGE", double(stage)}}, {}};
  };
  const uint32_t passes_max = kValuePasses + id_passes(Vmax);
  DispatchRef d_prep = b.dispatch(prep, binds);
  DispatchRef d_init = b.dispatch({kWgsl, "init", {}, {}}, binds);
  std::vector<DispatchRef> d_hist[2], d_sel[2];
  for (uint32_t stage = 0; stage < 2; ++stage)
    for (uint32_t s = 0; s < passes_max; ++s) {
      d_hist[stage].push_back(b.dispatch(spec("hist", stage), binds));
      d_sel[stage].push_back(b.dispatch(spec("select_digit", stage), binds));
    }
  DispatchRef d_mass = b.dispatch({kDraw, "mass", {}, {}}, binds);
  DispatchRef d_draw = b.dispatch({kDraw, "draw", {}, {}}, binds);
  DispatchRef d_pick = b.dispatch({kDraw, "pick", {}, {}}, binds);
  DispatchRef d_probs = b.dispatch({kDraw, "probs_out", {}, {}}, binds);
  b.on_resize([=](ResizeContext& r) {
    const Dims xd = r.tensor(0).dims, pd = r.tensor(1).dims, wd = r.tensor(2).dims;
    const uint64_t rows = uint64_t(xd[0]), V = uint64_t(xd[1]);
    const int64_t wlen = wd.back();
    const uint64_t prows = pd.size() == 2 ? uint64_t(pd[0]) : 1, wrows = wd.size() == 2 ? uint64_t(wd[0]) : 1;
    r.set_dims(3, {int64_t(rows)});
    r.set_dims(4, wd);
    if (with_probs) r.set_dims(5, xd);
    const std::span<const int32_t> pr = r.input_host_i32(1);
    bool on = false, topk = false, topp = false;
    if (pr.size() == prows * size_t(kSampleParams) && rows > 0 && V > 0)
      for (uint64_t i = 0; i < prows; ++i) {
        const int32_t* q = pr.data() + i * kSampleParams;
        if (q[0] != 1) continue;
        on = true;
        const float temp = f32_bits(q[1]), top_p = f32_bits(q[3]), min_p = f32_bits(q[4]), pen = f32_bits(q[5]);
        if (!(temp > 0.0f) || !std::isfinite(temp)) r.fail("sampling temperature {} must be finite and > 0", temp);
        if (!(top_p > 0.0f && top_p <= 1.0f)) r.fail("sampling top_p {} must be in (0, 1]", top_p);
        if (!(min_p >= 0.0f && min_p <= 1.0f)) r.fail("sampling min_p {} must be in [0, 1]", min_p);
        if (!(pen > 0.0f) || !std::isfinite(pen)) r.fail("repetition penalty {} must be finite and > 0", pen);
        topk |= q[2] > 0 && uint64_t(q[2]) < V;
        topp |= top_p < 1.0f;
      }
    if (on && prows != 1 && prows != rows)
      r.fail("sampling params hold {} rows for {} rows of logits (1 or one per row)", prows, rows);
    if (on && wrows != 1 && wrows != rows)
      r.fail("sampling window holds {} rows for {} rows of logits (1 or one per row)", wrows, rows);
    SampleUniform su{};
    uint32_t passes = 0;
    if (on) {
      su.V = uint32_t(V);
      su.chunks = uint32_t(div_up(V, chunk));
      su.id_passes = id_passes(V);
      su.rows = uint32_t(rows);
      su.wlen = uint32_t(wlen);
      su.prows = uint32_t(prows);
      su.wrows = uint32_t(wrows);
      passes = kValuePasses + su.id_passes;
    }
    r.set_uniform(u, su);
    const uint64_t chunks = on ? su.chunks : 0, one = on ? 1 : 0;
    r.set_workgroups(d_prep, chunks, uint32_t(rows));
    r.set_workgroups(d_init, one, uint32_t(rows));
    for (uint32_t stage = 0; stage < 2; ++stage) {
      const bool active = stage == 0 ? topk : topp;
      for (uint32_t s = 0; s < passes_max; ++s) {
        const bool run = active && s < passes;
        r.set_workgroups(d_hist[stage][s], run ? chunks : 0, uint32_t(rows));
        r.set_workgroups(d_sel[stage][s], run ? 1 : 0, uint32_t(rows));
      }
    }
    r.set_workgroups(d_mass, chunks, uint32_t(rows));
    r.set_workgroups(d_draw, one, uint32_t(rows));
    r.set_workgroups(d_pick, one, uint32_t(rows));
    r.set_workgroups(d_probs, with_probs ? chunks : 0, uint32_t(rows));
  });
}

}  // namespace

std::array<int32_t, kSampleParams> sample_params(const SampleConfig& c, uint64_t step) {
  std::array<int32_t, kSampleParams> p{};
  p[0] = 1;
  p[1] = std::bit_cast<int32_t>(c.temperature);
  p[2] = c.top_k;
  p[3] = std::bit_cast<int32_t>(c.top_p);
  p[4] = std::bit_cast<int32_t>(c.min_p);
  p[5] = std::bit_cast<int32_t>(c.repetition_penalty);
  p[6] = int32_t(uint32_t(c.seed));
  p[7] = int32_t(uint32_t(c.seed >> 32));
  p[8] = int32_t(uint32_t(step));
  p[9] = int32_t(uint32_t(step >> 32));
  return p;
}

void register_sample_ops(OpRegistry& r) {
  const std::vector<std::string> kernels = {
      "ops/sampling/sample.wgsl:prep", "ops/sampling/sample.wgsl:init",  "ops/sampling/sample.wgsl:hist",
      "ops/sampling/sample.wgsl:select_digit", "ops/sampling/sample_draw.wgsl:mass", "ops/sampling/sample_draw.wgsl:draw",
      "ops/sampling/sample_draw.wgsl:pick", "ops/sampling/sample_draw.wgsl:probs_out"};
  r.add({"wgrt.sample.default", build_sample, kernels, true});
}

}  // namespace wgrt::ops
