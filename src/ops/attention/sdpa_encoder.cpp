// et_vk.sdpa.default(q [B, H, Sq, D] f32, k [B, H, Skv, D] f32, v [B, H, Skv, Dv] f32,
//                    mask f32 broadcastable to [B, H, Sq, Skv] | None, scale double | None, out [B, H, Sq, Dv])
//   out = softmax(q k^T * scale + mask) v over the key axis, NON-causal; scale defaults to 1/sqrt(D). Sq may
//   differ from Skv (cross attention). The mask is additive (e.g. 0 / -inf); it may have rank 2..4 and size-1
//   dims broadcast (read with stride 0, no copy). A query row whose keys are all -inf gives output 0 (PyTorch's
//   math gives NaN); no NaN is produced for any -inf pattern.
// Routes, picked at every execute from the live sizes (the tuning policy's sdpa_encoder_route can force one at build):
//   0 (GEMM): per chunk of query rows three dispatches on a pooled scratch (OpBuilder::scratch) of scores
//     [B*H, rows, Skv]: the tiled GEMM core (ops/linear/gemm.wgsl) computes scale * q k^T, an in-place row
//     softmax adds the mask (sdpa_encoder_softmax.wgsl), the GEMM core multiplies by v into out. The scratch is
//     bounded by the policy's sdpa_encoder_score_bytes (64 MiB, and maxStorageBufferBindingSize): the chunk has
//     rows = max(1, bound / (B*H*Skv*4)) query rows at the build-time max sizes, and ceil(Sq/rows) chunks run.
//   1 (split-K, "channel attention": B*H*Sq <= 512 rows and Skv >= 1024, policy entries): the keys are split into
//     chunks of SPLIT_KEYS (256) across workgroups (sdpa_encoder_split.wgsl writes per-chunk max, sum and
//     partial outputs to scratch),
//     then sdpa_encoder_combine.wgsl merges them (flash-decoding style log-sum-exp merge).
// Grids fold past 65,535 workgroups (softmax, split and combine are 1-D); the GEMM grid's z = B*H must stay
// within maxComputeWorkgroupsPerDimension. B, Sq, Skv may change between executes; H, D, Dv must stay.
// Errors: InvalidArgument naming the node (ranks, shape mismatches, mask not broadcastable), LimitError when
// B*H*Skv*4 (one query row of scores) exceeds the scratch bound.
#include <algorithm>
#include <cmath>

#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"
#include "ops/linear/gemm.h"
#include "webgpu/device.h"

namespace wgrt::ops {

namespace {

using webgpu::SdpaEncoderRoute;

struct SoftmaxParams {
  uint32_t rows, Mc, Skv, i0, H, has_mask, msb, msh, msi, msj, p0, p1;
};
WGRT_UNIFORM(SoftmaxParams, rows, Mc, Skv, i0, H, has_mask, msb, msh, msi, msj, p0, p1);
struct SplitParams {
  uint32_t rows, Sq, Skv, D, Dv, H, nsplit, has_mask, msb, msh, msi, msj;
  float scale;
  uint32_t p0, p1, p2;
};
WGRT_UNIFORM(SplitParams, rows, Sq, Skv, D, Dv, H, nsplit, has_mask, msb, msh, msi, msj, scale, p0, p1, p2);
struct CombineParams {
  uint32_t rows, Dv, nsplit, p0;
};
WGRT_UNIFORM(CombineParams, rows, Dv, nsplit, p0);

struct MaskStrides {
  uint32_t b = 0, h = 0, i = 0, j = 0;
};

// Strides of a mask (rank <= 4, right-aligned) read at [B, H, Sq, Skv]; fails if it does not broadcast.
template <typename Ctx>
MaskStrides mask_strides(const Ctx& c, const Dims& m, const Dims& full) {
  if (m.size() > 4) c.fail("mask {} has rank > 4", dims_str(m));
  Dims md(4 - m.size(), 1);
  md.insert(md.end(), m.begin(), m.end());
  uint32_t st[4];
  int64_t s = 1;
  for (size_t k = 4; k-- > 0;) {
    if (md[k] != 1 && md[k] != full[k]) c.fail("mask {} does not broadcast to {}", dims_str(m), dims_str(full));
    st[k] = md[k] == 1 ? 0 : uint32_t(s);
    s *= md[k];
  }
  return {st[0], st[1], st[2], st[3]};
}

struct Chunk {
  UniformRef qk_u, sm_u, av_u;
  DispatchRef qk, sm, av;
};

void build_sdpa(OpBuilder& b) {
  b.check_args(6);
  b.check_dtype(5, DType::F32);
  for (size_t i : {size_t(0), size_t(1), size_t(2)}) {
    b.check_dtype(i, DType::F32);
    b.check_rank(i, 4, 4);
  }
  const Dims qd = b.tensor(0).dims, kd = b.tensor(1).dims, vd = b.tensor(2).dims;
  const int64_t H = qd[1], D = qd[3], Dv = vd[3];
  b.check(kd[0] == qd[0] && kd[1] == H && kd[3] == D, "k '{}' {} must be [{}, {}, Skv, {}] (q '{}' {})", b.tensor(1).name,
          dims_str(kd), qd[0], H, D, b.tensor(0).name, dims_str(qd));
  b.check(vd[0] == qd[0] && vd[1] == H && vd[2] == kd[2], "v '{}' {} must be [{}, {}, {}, Dv]", b.tensor(2).name,
          dims_str(vd), qd[0], H, kd[2]);
  b.check(D > 0 && Dv > 0 && H > 0, "q {} / v {} have empty head dims", dims_str(qd), dims_str(vd));
  const bool has_mask = !b.is_none(3);
  if (has_mask) {
    b.check_dtype(3, DType::F32);
    mask_strides(b, b.tensor(3).dims, {qd[0], H, qd[2], kd[2]});
  }
  const double scale = b.is_none(4) ? 1.0 / std::sqrt(double(D)) : b.real_arg(4);
  const webgpu::Tuning& tune = b.device().tuning();
  const SdpaEncoderRoute forced = tune.sdpa_encoder_route;
  const int64_t split_max_rows = tune.sdpa_encoder_split_max_rows, split_min_keys = tune.sdpa_encoder_split_min_keys;

  // Max sizes (the build-time dims).
  const int64_t BH = qd[0] * H, Sq = qd[2], Skv = kd[2];
  b.check(BH * Sq * std::max(D, Dv) < (int64_t(1) << 32) && BH * Skv * std::max(D, Dv) < (int64_t(1) << 32),
          "q {} / k {}: too many elements for 32-bit indexing", dims_str(qd), dims_str(kd));
  const Binding qb = Binding::tensor(b.arg(0)), kb = Binding::tensor(b.arg(1)), vb = Binding::tensor(b.arg(2)),
                ob = Binding::tensor(b.arg(5));
  const Binding mb = has_mask ? Binding::tensor(b.arg(3)) : qb;

  // Route 0: chunks of query rows.
  uint64_t bound = std::min<uint64_t>(tune.sdpa_encoder_score_bytes, b.device().limits().maxStorageBufferBindingSize);
  const uint64_t row_bytes = uint64_t(BH) * uint64_t(Skv) * 4;
  std::vector<Chunk> chunks;
  int64_t crow = 0;
  const GemmConfig gemm_cfg = gemm_config(b.device());
  if (forced != SdpaEncoderRoute::Split) {
    if (row_bytes > bound)
      throw LimitError(b.where() + fmt::format("one query row of scores for B*H = {} and Skv = {} takes {} bytes, beyond the "
                                               "scratch bound {}", BH, Skv, row_bytes, bound));
    crow = std::min<int64_t>(Sq, int64_t(bound / row_bytes));
    ScratchRef scores = b.scratch(uint64_t(crow) * row_bytes, "sdpa scores");
    const int64_t n = (Sq + crow - 1) / crow;
    for (int64_t c = 0; c < n; ++c) {
      Chunk ch;
      ch.qk_u = b.uniform<GemmParams>();
      ch.sm_u = b.uniform<SoftmaxParams>();
      ch.av_u = b.uniform<GemmParams>();
      ch.qk = b.dispatch(gemm_kernel(gemm_cfg, false, true), {qb, kb, qb, qb, scores, ch.qk_u}, 0);
      ch.sm = b.dispatch({"ops/attention/sdpa_encoder_softmax.wgsl", "main", {}, {}},
                         {scores, mb, ch.sm_u}, 0);
      ch.av = b.dispatch(gemm_kernel(gemm_cfg, false, false), {Binding(scores), vb, qb, qb, ob, ch.av_u}, 0);
      chunks.push_back(ch);
    }
  }
  // Route 1: split-K, SPLIT_KEYS keys per workgroup (the kernel's constant).
  const webgpu::KernelSpec split_spec{"ops/attention/sdpa_encoder_split.wgsl", "main", {}, {}};
  const int64_t split_keys = webgpu::PipelineCache::value(split_spec, "SPLIT_KEYS");
  const int64_t nsplit_max = (Skv + split_keys - 1) / split_keys;
  const bool split_possible = forced == SdpaEncoderRoute::Split || (forced == SdpaEncoderRoute::Auto && Skv >= split_min_keys);
  const int64_t split_rows_max = forced == SdpaEncoderRoute::Split ? BH * Sq : std::min<int64_t>(BH * Sq, split_max_rows);
  UniformRef split_u{}, comb_u{};
  DispatchRef split_d{}, comb_d{};
  if (split_possible) {
    ScratchRef part = b.scratch(uint64_t(split_rows_max) * uint64_t(nsplit_max) * uint64_t(Dv + 2) * 4, "sdpa split partials");
    split_u = b.uniform<SplitParams>();
    comb_u = b.uniform<CombineParams>();
    split_d = b.dispatch(split_spec, {qb, kb, vb, mb, part, split_u}, 1);
    comb_d = b.dispatch({"ops/attention/sdpa_encoder_combine.wgsl", "main", {}, {}},
                        {Binding(part), ob, comb_u}, 1);
  }

  b.on_resize([=](ResizeContext& r) {
    const Dims q = r.tensor(0).dims, k = r.tensor(1).dims, v = r.tensor(2).dims;
    if (q.size() != 4 || k.size() != 4 || v.size() != 4 || q[1] != H || q[3] != D || k[0] != q[0] || k[1] != H ||
        k[3] != D || v[0] != q[0] || v[1] != H || v[2] != k[2] || v[3] != Dv)
      r.fail("live dims q {} k {} v {} do not match [B, {}, Sq, {}], [B, {}, Skv, {}], [B, {}, Skv, {}]", dims_str(q),
             dims_str(k), dims_str(v), H, D, H, D, H, Dv);
    const int64_t bh = q[0] * H, sq = q[2], skv = k[2];
    if (skv <= 0) r.fail("k '{}' has no keys", r.tensor(1).name);
    r.set_dims(5, {q[0], H, sq, Dv});
    MaskStrides ms;
    if (has_mask) ms = mask_strides(r, r.tensor(3).dims, {q[0], H, sq, skv});
    const int64_t rows = bh * sq;
    bool split = forced == SdpaEncoderRoute::Split ||
                 (forced == SdpaEncoderRoute::Auto && split_possible && rows <= split_max_rows && skv >= split_min_keys);
    if (split) {
      const int64_t nsplit = (skv + split_keys - 1) / split_keys;
      SplitParams sp{uint32_t(rows), uint32_t(sq), uint32_t(skv), uint32_t(D), uint32_t(Dv), uint32_t(H), uint32_t(nsplit),
                     has_mask, ms.b, ms.h, ms.i, ms.j, float(scale), 0, 0, 0};
      r.set_uniform(split_u, sp);
      r.set_workgroups(split_d, uint64_t(rows) * uint64_t(nsplit));
      r.set_uniform(comb_u, CombineParams{uint32_t(rows), uint32_t(Dv), uint32_t(nsplit), 0});
      r.set_workgroups(comb_d, uint64_t(rows));
      r.select_route(1);
      return;
    }
    if (uint64_t(bh) > r.max_workgroups_per_dim())
      r.fail("B*H = {} exceeds the GEMM grid limit {}", bh, r.max_workgroups_per_dim());
    r.select_route(0);
    // Query rows per chunk at the live sizes: as many as the build-time scratch (crow rows at B*H*Skv max)
    // holds. Live B*H*Skv <= its build-time value, so step >= crow and ceil(sq / step) <= chunks.size().
    const int64_t step = std::max<int64_t>(
        1, std::min<int64_t>(sq, int64_t(uint64_t(crow) * row_bytes / (uint64_t(bh) * uint64_t(skv) * 4))));
    if ((sq + step - 1) / step > int64_t(chunks.size()))
      r.fail("live sizes need {} query-row chunks, {} were built", (sq + step - 1) / step, chunks.size());
    for (size_t c = 0; c < chunks.size(); ++c) {
      const int64_t i0 = int64_t(c) * step;
      const int64_t mc = std::max<int64_t>(0, std::min<int64_t>(step, sq - i0));
      GemmParams qk;
      qk.M = uint32_t(mc);
      qk.N = uint32_t(skv);
      qk.K = uint32_t(D);
      qk.batch = uint32_t(bh);
      qk.a_off = uint32_t(i0 * D);
      qk.a_sb = uint32_t(sq * D);
      qk.a_sm = uint32_t(D);
      qk.a_sk = 1;
      qk.b_sb = uint32_t(skv * D);
      qk.b_sk = 1;
      qk.b_sn = uint32_t(D);
      qk.c_sb = uint32_t(mc * skv);
      qk.c_sm = uint32_t(skv);
      qk.c_sn = 1;
      qk.alpha = float(scale);
      qk.beta = 0.0f;
      r.set_uniform(chunks[c].qk_u, qk);
      GemmParams av = contiguous_gemm(uint32_t(mc), uint32_t(Dv), uint32_t(skv), uint32_t(bh));
      av.c_off = uint32_t(i0 * Dv);  // this chunk's rows of out [bh, sq, Dv]
      av.c_sb = uint32_t(sq * Dv);
      av.beta = 0.0f;
      r.set_uniform(chunks[c].av_u, av);
      SoftmaxParams sm{uint32_t(bh * mc), uint32_t(std::max<int64_t>(mc, 1)), uint32_t(skv), uint32_t(i0), uint32_t(H),
                       has_mask, ms.b, ms.h, ms.i, ms.j, 0, 0};
      r.set_uniform(chunks[c].sm_u, sm);
      if (mc == 0) {
        r.set_grid(chunks[c].qk, {0, 1, 1});
        r.set_grid(chunks[c].av, {0, 1, 1});
        r.set_workgroups(chunks[c].sm, 0);
        continue;
      }
      r.set_grid(chunks[c].qk, gemm_grid(gemm_cfg, qk, r.max_workgroups_per_dim()));
      r.set_grid(chunks[c].av, gemm_grid(gemm_cfg, av, r.max_workgroups_per_dim()));
      r.set_workgroups(chunks[c].sm, uint64_t(bh * mc));
    }
  });
}

}  // namespace


void register_sdpa_encoder_ops(OpRegistry& r) {
  std::vector<std::string> k = gemm_kernel_names();
  k.insert(k.end(), {"ops/attention/sdpa_encoder_softmax.wgsl:main", "ops/attention/sdpa_encoder_split.wgsl:main",
                     "ops/attention/sdpa_encoder_combine.wgsl:main"});
  r.add({"et_vk.sdpa.default", build_sdpa, k, true});
}

}  // namespace wgrt::ops
