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
// wgrt.sdpa_qkv.default(qkv [B, S, 3 * H * D] f32, heads int H, scale double | None, out [B, S, H * D] f32)
//   the same attention (no mask, Sq = Skv = S) with q, k, v read in place from a packed projection: row (b, s) of
//   qkv holds q, k, v one after the other, each H heads of D ([B, S, 3, H, D]: timm / torchvision ViT's qkv
//   linear), and the output written as [B, S, H, D], the layout the output projection reads: no head split or
//   merge copies. Route 0 only (self-attention never meets the split route's rows <= 512 with >= 1024 keys);
//   the GEMMs address the heads through GemmParams' two-level batch (b, h). B and S may change between executes.
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

// Element offsets of a [B, H, S, D] operand with d contiguous: (b, h, s, d) at off + b * sb + h * sh + s * ss + d.
struct HeadLayout {
  uint32_t off = 0, sb = 0, sh = 0, ss = 0;
};
HeadLayout contiguous_heads(int64_t H, int64_t S, int64_t D) {
  return {0, uint32_t(H * S * D), uint32_t(S * D), uint32_t(D)};
}

// Route 0's dispatches: per chunk of `crow` query rows, q k^T into the scores scratch, the softmax, scores v.
struct GemmRoute {
  std::vector<Chunk> chunks;
  int64_t crow = 0;
  uint64_t row_bytes = 0;  // one query row of scores for all B*H at the build-time sizes
  GemmConfig cfg;
};

GemmRoute build_gemm_route(OpBuilder& b, Binding qb, Binding kb, Binding vb, Binding mb, Binding ob, int64_t BH,
                           int64_t Sq, int64_t Skv) {
  GemmRoute g;
  const uint64_t bound =
      std::min<uint64_t>(b.device().tuning().sdpa_encoder_score_bytes, b.device().limits().maxStorageBufferBindingSize);
  g.row_bytes = uint64_t(BH) * uint64_t(Skv) * 4;
  g.cfg = gemm_config(b.device());
  if (g.row_bytes > bound)
    throw LimitError(b.where() + fmt::format("one query row of scores for B*H = {} and Skv = {} takes {} bytes, beyond the "
                                             "scratch bound {}", BH, Skv, g.row_bytes, bound));
  g.crow = std::min<int64_t>(Sq, int64_t(bound / g.row_bytes));
  ScratchRef scores = b.scratch(uint64_t(g.crow) * g.row_bytes, "sdpa scores");
  const int64_t n = (Sq + g.crow - 1) / g.crow;
  for (int64_t c = 0; c < n; ++c) {
    Chunk ch;
    ch.qk_u = b.uniform<GemmParams>();
    ch.sm_u = b.uniform<SoftmaxParams>();
    ch.av_u = b.uniform<GemmParams>();
    ch.qk = b.dispatch(gemm_kernel(g.cfg, false, true), {qb, kb, qb, qb, scores, ch.qk_u}, 0);
    ch.sm = b.dispatch({"ops/attention/sdpa_encoder_softmax.wgsl", "main", {}, {}}, {scores, mb, ch.sm_u}, 0);
    ch.av = b.dispatch(gemm_kernel(g.cfg, false, false), {Binding(scores), vb, qb, qb, ob, ch.av_u}, 0);
    g.chunks.push_back(ch);
  }
  return g;
}

// Route 0's uniforms and grids at the live sizes, q / k / v / out addressed through their layouts (the GEMMs' batch
// is B * H as the two-level batch (b, h), GemmParams::zdiv = H).
template <typename Ctx>
void resize_gemm_route(Ctx& r, const GemmRoute& g, HeadLayout q, HeadLayout k, HeadLayout v, HeadLayout o, int64_t H,
                       int64_t bh, int64_t sq, int64_t skv, int64_t D, int64_t Dv, double scale, bool has_mask,
                       MaskStrides ms) {
  if (uint64_t(bh) > r.max_workgroups_per_dim())
    r.fail("B*H = {} exceeds the GEMM grid limit {}", bh, r.max_workgroups_per_dim());
  // Query rows per chunk at the live sizes: as many as the build-time scratch (crow rows at B*H*Skv max)
  // holds. Live B*H*Skv <= its build-time value, so step >= crow and ceil(sq / step) <= chunks.size().
  const int64_t step = std::max<int64_t>(
      1, std::min<int64_t>(sq, int64_t(uint64_t(g.crow) * g.row_bytes / (uint64_t(bh) * uint64_t(skv) * 4))));
  if ((sq + step - 1) / step > int64_t(g.chunks.size()))
    r.fail("live sizes need {} query-row chunks, {} were built", (sq + step - 1) / step, g.chunks.size());
  for (size_t c = 0; c < g.chunks.size(); ++c) {
    const Chunk& ch = g.chunks[c];
    const int64_t i0 = int64_t(c) * step;
    const int64_t mc = std::max<int64_t>(0, std::min<int64_t>(step, sq - i0));
    const uint32_t score_sb = uint32_t(mc * skv);  // scores [B, H, mc, skv]
    GemmParams qk;
    qk.M = uint32_t(mc);
    qk.N = uint32_t(skv);
    qk.K = uint32_t(D);
    qk.batch = uint32_t(bh);
    qk.zdiv = uint32_t(H);
    qk.a_off = q.off + uint32_t(i0) * q.ss;
    qk.a_sb = q.sh;
    qk.a_sbo = q.sb;
    qk.a_sm = q.ss;
    qk.a_sk = 1;
    qk.b_off = k.off;
    qk.b_sb = k.sh;
    qk.b_sbo = k.sb;
    qk.b_sk = 1;
    qk.b_sn = k.ss;
    qk.c_sb = score_sb;
    qk.c_sbo = score_sb * uint32_t(H);
    qk.c_sm = uint32_t(skv);
    qk.c_sn = 1;
    qk.alpha = float(scale);
    qk.beta = 0.0f;
    r.set_uniform(ch.qk_u, qk);
    GemmParams av;
    av.M = uint32_t(mc);
    av.N = uint32_t(Dv);
    av.K = uint32_t(skv);
    av.batch = uint32_t(bh);
    av.zdiv = uint32_t(H);
    av.a_sb = score_sb;
    av.a_sbo = score_sb * uint32_t(H);
    av.a_sm = uint32_t(skv);
    av.a_sk = 1;
    av.b_off = v.off;
    av.b_sb = v.sh;
    av.b_sbo = v.sb;
    av.b_sk = v.ss;
    av.b_sn = 1;
    av.c_off = o.off + uint32_t(i0) * o.ss;  // this chunk's rows of out
    av.c_sb = o.sh;
    av.c_sbo = o.sb;
    av.c_sm = o.ss;
    av.c_sn = 1;
    av.beta = 0.0f;
    r.set_uniform(ch.av_u, av);
    SoftmaxParams sm{uint32_t(bh * mc), uint32_t(std::max<int64_t>(mc, 1)), uint32_t(skv), uint32_t(i0), uint32_t(H),
                     has_mask, ms.b, ms.h, ms.i, ms.j, 0, 0};
    r.set_uniform(ch.sm_u, sm);
    if (mc == 0) {
      r.set_grid(ch.qk, {0, 1, 1});
      r.set_grid(ch.av, {0, 1, 1});
      r.set_workgroups(ch.sm, 0);
      continue;
    }
    r.set_grid(ch.qk, gemm_grid(g.cfg, qk, r.max_workgroups_per_dim()));
    r.set_grid(ch.av, gemm_grid(g.cfg, av, r.max_workgroups_per_dim()));
    r.set_workgroups(ch.sm, uint64_t(bh * mc));
  }
}

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
  const GemmRoute gr = forced != SdpaEncoderRoute::Split ? build_gemm_route(b, qb, kb, vb, mb, ob, BH, Sq, Skv) : GemmRoute{};
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
    r.select_route(0);
    resize_gemm_route(r, gr, contiguous_heads(H, sq, D), contiguous_heads(H, skv, D), contiguous_heads(H, skv, Dv),
                      contiguous_heads(H, sq, Dv), H, bh, sq, skv, D, Dv, scale, has_mask, ms);
  });
}

// wgrt.sdpa_qkv: route 0 on the packed projection; q / k / v / out element strides of the layouts in the header.
void build_sdpa_qkv(OpBuilder& b) {
  b.check_args(4);
  b.check_dtype(0, DType::F32);
  b.check_dtype(3, DType::F32);
  b.check_rank(0, 3, 3);
  const Dims xd = b.tensor(0).dims;
  const int64_t H = b.int_arg(1);
  b.check(H > 0 && xd[2] > 0 && xd[2] % (3 * H) == 0,
          "qkv '{}' {}: the last dim must be 3 * heads * head dim, with heads = {}", b.tensor(0).name, dims_str(xd), H);
  const int64_t D = xd[2] / (3 * H);
  b.check(numel(xd) < (int64_t(1) << 32), "qkv '{}' {}: too many elements for 32-bit indexing", b.tensor(0).name,
          dims_str(xd));
  b.check(xd[0] > 0 && xd[1] > 0, "qkv '{}' {} has no rows", b.tensor(0).name, dims_str(xd));
  const double scale = b.is_none(2) ? 1.0 / std::sqrt(double(D)) : b.real_arg(2);
  const Binding x = Binding::tensor(b.arg(0)), o = Binding::tensor(b.arg(3));
  const GemmRoute gr = build_gemm_route(b, x, x, x, x, o, xd[0] * H, xd[1], xd[1]);
  b.on_resize([=](ResizeContext& r) {
    const Dims d = r.tensor(0).dims;
    if (d.size() != 3 || d[2] != 3 * H * D || d[1] <= 0)
      r.fail("qkv '{}' has live dims {}; they must be [B, S > 0, {}]", r.tensor(0).name, dims_str(d), 3 * H * D);
    const int64_t s = d[1];
    r.set_dims(3, {d[0], s, H * D});
    const uint32_t row = uint32_t(3 * H * D), hd = uint32_t(H * D), sd = uint32_t(D);
    const uint32_t xb = uint32_t(s) * row;
    const HeadLayout q{0, xb, sd, row}, k{hd, xb, sd, row}, v{2 * hd, xb, sd, row}, out{0, uint32_t(s) * hd, sd, hd};
    r.select_route(0);
    resize_gemm_route(r, gr, q, k, v, out, H, d[0] * H, s, s, D, D, scale, false, MaskStrides{});
  });
}

}  // namespace


void register_sdpa_encoder_ops(OpRegistry& r) {
  std::vector<std::string> k = gemm_kernel_names();
  k.insert(k.end(), {"ops/attention/sdpa_encoder_softmax.wgsl:main", "ops/attention/sdpa_encoder_split.wgsl:main",
                     "ops/attention/sdpa_encoder_combine.wgsl:main"});
  r.add({"et_vk.sdpa.default", build_sdpa, k, true});
  std::vector<std::string> packed = gemm_kernel_names();
  packed.push_back("ops/attention/sdpa_encoder_softmax.wgsl:main");
  r.add({"wgrt.sdpa_qkv.default", build_sdpa_qkv, packed, true});
}

}  // namespace wgrt::ops
