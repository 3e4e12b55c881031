// Linear layers, f32 activations:
//   aten.linear.default(x [..., K] f32, weight [N, K] f32, bias [N] f32 | None, out [..., N] f32)
//       out = x @ weight^T + bias (PyTorch nn.Linear layout).
//   et_vk.linear_q4gsw.default(x [..., K] f32, qweight u32 [N, K/8] (or q4 [N, K]), scales f16 or f32 [N, K/G],
//                              group_size int G, bias [N] f32 | None, out [..., N] f32)
//       the same with W[n][k] = (code - 8) * scales[n][k/G] in the q4gsw layout (ops/linear/q4gsw.h);
//       G in {32, 64, 128}, K a multiple of G (build errors otherwise). f16 scales (what the GGUF loader uploads:
//       Q4_0's own block scales) halve the scale bytes; every kernel reads either through q4gsw_scale
//       (q4gsw_scale.wgsl, override SCALE_F16).
//   wgrt.linear_q4gsw_fused.default(x [..., K] f32, qweight, scales, group_size, bias [N] | None,
//                                   norm_weight [K] f32 | None, eps double, residual [..., N] f32 | None,
//                                   act int, out [..., N] (act 0) or [..., N / 2] f32)
//       the q4gsw linear of the decoder's layer body with its neighbours folded in (wgrt's own op):
//         h = norm_weight ? x / sqrt(mean(x^2) + eps) * norm_weight : x      (RMSNorm of each row of x)
//         y = h @ W^T + bias
//         out = act == 0 ? y (+ residual) : glu(y[..., :N/2]) * y[..., N/2:]  (act 1 silu, 2 gelu-tanh)
//       residual with act, or with a bias, is an error (no layer needs them). On the GEMV route with the tuning
//       policy's fused_gemv (WGRT_FUSED_GEMV) this is one dispatch (the NORM / EPI hooks of
//       gemv_q4_fuse.wgsl); otherwise the norm and the GLU are their own dispatches around the GEMV or GEMM
//       (rms_norm.wgsl, swiglu.wgsl) through scratch, and the residual is the GEMV's epilogue or the GEMM's bias
//       term (beta 1, row stride N). A weight split into binding chunks keeps the GLU as its own dispatch.
// Routes, chosen at every execute from the live M = numel(x) / K:
//   0 (M <= 8: decode, short prompts): cooperative GEMV, one grid layer per row (gemv_f32.wgsl; q4: one of four
//     kernels, see q4_gemv_spec below); f32 needs K % 4 == 0, else the GEMM route also serves M == 1;
//   4 (q4, gemv_q4_multi_min_rows <= M <= 8: serving batches): the same GEMV in the policy's multi-row shape,
//     where that differs from route 0's;
//   1 (M != 1, prefill): the tiled GEMM core (gemm.wgsl), 64x64 output tiles;
//   2 (GPUs, outputs of >= gemm.big_min_tiles 128x128 tiles): the register-blocked gemm_big.wgsl;
//   3 (q4, packed int8 dot products, outputs of >= gemm.mmq_min_tiles tiles): x quantized per 32-k block to
//     int8 (quantize_q8.wgsl, into two scratch buffers, once per execute) and the int8 GEMM gemm_mmq.wgsl; where
//     its grid has fewer workgroups than the policy's gemm_mmq_split_target, split K (mmq_splits): S partial
//     products into scratch, summed with the bias or residual by gemm_splitk_reduce.wgsl.
// Weights larger than maxStorageBufferBindingSize (e.g. a 128256-row output layer) are split along N into
// chunks of whole multiples of 256 rows; each chunk is one dispatch per route binding a byte range of the
// weight (and scales) and writing its own column range of out. The tuning policy's max_binding_bytes
// (WGRT_MAX_BINDING_BYTES; tests, experiments) may lower the limit used for this split. x, bias and out are bound whole: if they exceed the limit the build
// fails with a LimitError naming the tensor.
#include <algorithm>
#include <optional>
#include <vector>

#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"
#include "ops/linear/gemm.h"
#include "ops/linear/linear_fusion.h"
#include "webgpu/device.h"

namespace wgrt::ops {

namespace {

struct GemvParams {
  uint32_t N, K, group, has_bias, n_base, nwg, out_stride;
  float eps;  // fused RMSNorm
};
WGRT_UNIFORM(GemvParams, N, K, group, has_bias, n_base, nwg, out_stride, eps);

// The GEMV kernel and shape for a q4 weight of N rows and K columns, from the device's tuning policy
// (webgpu/tuning.h has the rules and their measurements), falling back to the workgroup-memory f32-decode kernel
// where the policy's choice cannot run here: the int8 kernel's staged x does not fit the device's workgroup memory
// (reflected from the kernel's WGSL at these overrides), or no subgroups. x is staged for the f32-decode kernel
// where the shape asks for it and it fits. A forced shape (WGRT_GEMV_Q4 / _SG) that does not fit is an error.
// `multi`: the shape for GEMV routes of several rows of x (the policy's gemv_q4_multi_shape; the Subgroup and
// Stream kernels have one shape for every M).
webgpu::KernelSpec q4_gemv_spec(const OpBuilder& b, int64_t N, int64_t K, bool scale_f16, bool fused, bool multi = false) {
  const webgpu::Tuning& t = b.device().tuning();
  const uint64_t smem = b.device().limits().maxComputeWorkgroupStorageSize;
  auto fits = [&](const webgpu::KernelSpec& s) { return webgpu::PipelineCache::reflect(s).workgroup_bytes <= smem; };
  const double f16 = scale_f16 ? 1.0 : 0.0;
  auto shaped = [f16](const char* shader, const webgpu::GemvQ4Shape& q, const char* extra, double extra_v) {
    return webgpu::KernelSpec{shader, "main", {{"RPT", double(q.rpt)}, {"TK", double(q.tk)}, {"TR", double(q.tr)}, {extra, extra_v},
                                               {"SCALE_F16", f16}}, {}};
  };
  webgpu::Q4GemvKernel k = t.q4_gemv;
  if (k == webgpu::Q4GemvKernel::Subgroup && fused) k = webgpu::Q4GemvKernel::Workgroup;  // no fusion hooks there
  if (k == webgpu::Q4GemvKernel::Stream) {
    const webgpu::GemvQ4S8Shape q = t.gemv_q4_s8_shape(N, K);
    const webgpu::KernelSpec s{"ops/linear/gemv_q4_s8.wgsl", "main", {{"RPT", double(q.rpt)}, {"TR", double(q.tr)},
                               {"U", double(q.u)}, {"PLANES", double(q.planes)}, {"XB", double(K / 32)},
                               {"SCALE_F16", f16}}, {}};
    if (b.device().has_subgroups() && b.device().has_packed_dot() && fits(s)) return s;
    b.check(!t.gemv_q4_s8_forced, "the forced stream GEMV shape {},{},{},{} does not fit this device", q.rpt, q.tr,
            q.u, q.planes);
    k = webgpu::Q4GemvKernel::Int8;
  }
  if (k == webgpu::Q4GemvKernel::Subgroup) {
    const webgpu::GemvQ4SgShape sg = t.gemv_q4_sg_shape(N, K);
    webgpu::KernelSpec s{"ops/linear/gemv_q4_sg.wgsl", "main", {{"RPT", double(sg.rpt)}, {"BW", double(sg.bw)}, {"KS", double(sg.ks)}, {"SCALE_F16", f16}}, {}};
    if (b.device().has_subgroups() && fits(s)) return s;
    b.check(!t.gemv_q4_sg_forced, "the forced subgroup GEMV shape {},{},{} does not fit this device", sg.rpt, sg.bw, sg.ks);
    k = webgpu::Q4GemvKernel::Workgroup;
  }
  auto shape = [&](webgpu::Q4GemvKernel kk) { return multi ? t.gemv_q4_multi_shape(kk, N) : t.gemv_q4_shape(kk, N); };
  if (k == webgpu::Q4GemvKernel::Int8 && b.device().has_packed_dot()) {
    const webgpu::KernelSpec s = shaped("ops/linear/gemv_q4_i8.wgsl", shape(k), "XB", double(K / 32));
    if (fits(s)) return s;
  }
  const webgpu::GemvQ4Shape q = shape(webgpu::Q4GemvKernel::Workgroup);
  webgpu::KernelSpec s = shaped("ops/linear/gemv_q4.wgsl", q, "XV", q.stage ? double(K / 4) : 0.0);
  if (q.stage && !fits(s)) s = shaped("ops/linear/gemv_q4.wgsl", q, "XV", 0.0);  // x read from the buffer instead
  b.check(fits(s), "the q4 GEMV shape {},{},{} needs more workgroup memory than the device's {} bytes", q.tk, q.tr,
          q.rpt, smem);
  return s;
}

struct Chunk {
  int64_t n0, rows;
};

// Splits N rows so that rows * row_bytes (and rows * scale_row_bytes) fit one storage binding.
std::vector<Chunk> plan_chunks(const OpBuilder& b, int64_t N, uint64_t row_bytes, uint64_t scale_row_bytes) {
  const uint64_t lim = b.device().tuning().max_binding_bytes;  // maxStorageBufferBindingSize or lower
  uint64_t widest = std::max(row_bytes, scale_row_bytes);
  if (uint64_t(N) * widest <= lim) return {{0, N}};
  uint64_t per = lim / widest / 256 * 256;
  if (per == 0)
    throw LimitError(b.where() + fmt::format("256 weight rows of {} bytes exceed maxStorageBufferBindingSize {}", widest, lim));
  std::vector<Chunk> c;
  for (int64_t n0 = 0; n0 < N; n0 += int64_t(per)) c.push_back({n0, std::min<int64_t>(int64_t(per), N - n0)});
  return c;
}

void build_linear(OpBuilder& b, bool q4, bool fused_op = false) {
  b.check_args(fused_op ? 10 : q4 ? 6 : 4);
  const size_t wi = 1, si = 2, bi = q4 ? 4 : 2, oi = fused_op ? 9 : q4 ? 5 : 3;
  b.check_dtype(0, DType::F32);
  b.check_dtype(oi, DType::F32);
  b.check_rank(0, 1, 8);
  const Dims xd = b.tensor(0).dims;
  const int64_t K = xd.back();
  b.check(K > 0, "x '{}' {} has an empty last dim", b.tensor(0).name, dims_str(xd));
  b.check(numel(xd) < (int64_t(1) << 32), "x '{}' {} has too many elements", b.tensor(0).name, dims_str(xd));
  int64_t N = 0, G = 0;
  uint64_t row_bytes = 0, scale_row_bytes = 0;
  bool scale_f16 = false;
  const TensorValue& w = b.tensor(wi);
  if (q4) {
    G = b.int_arg(3);
    b.check(G == 32 || G == 64 || G == 128, "group_size must be 32, 64 or 128, got {}", G);
    b.check(K % G == 0, "K = {} (last dim of x '{}') must be a multiple of group_size {}", K, b.tensor(0).name, G);
    b.check(w.dims.size() == 2, "qweight '{}' must be 2-D, got {}", w.name, dims_str(w.dims));
    if (w.dtype == DType::Q4) {
      b.check(w.dims[1] == K, "qweight '{}' {} must be [N, {}] (q4 codes)", w.name, dims_str(w.dims), K);
    } else {
      b.check(w.dtype == DType::U32, "qweight '{}' must be u32 (or q4), got {}", w.name, dtype_name(w.dtype));
      b.check(w.dims[1] * 8 == K, "qweight '{}' {} must be [N, {}] u32 words for K = {}", w.name, dims_str(w.dims), K / 8, K);
    }
    N = w.dims[0];
    const TensorValue& s = b.tensor(si);
    b.check(s.dtype == DType::F32 || s.dtype == DType::F16, "scales '{}' must be f16 or f32, got {}", s.name,
            dtype_name(s.dtype));
    b.check(s.dims == Dims{N, K / G}, "scales '{}' {} must be [{}, {}]", s.name, dims_str(s.dims), N, K / G);
    scale_f16 = s.dtype == DType::F16;
    row_bytes = uint64_t(K) / 2;
    scale_row_bytes = uint64_t(K / G) * (scale_f16 ? 2 : 4);
  } else {
    b.check(w.dtype == DType::F32, "weight '{}' must be f32, got {}", w.name, dtype_name(w.dtype));
    b.check(w.dims.size() == 2 && w.dims[1] == K, "weight '{}' {} must be [N, {}] (nn.Linear layout, K = last dim of x)",
            w.name, dims_str(w.dims), K);
    N = w.dims[0];
    row_bytes = uint64_t(K) * 4;
  }
  b.check(N > 0, "weight '{}' has no rows", w.name);
  const Fusion fu = fused_op ? fusion_args(b, xd, N) : Fusion{};
  const int64_t Nout = fu.act ? N / 2 : N;
  const bool has_bias = !b.is_none(bi);
  if (has_bias) {
    b.check_dtype(bi, DType::F32);
    b.check(b.tensor(bi).dims == Dims{N}, "bias '{}' {} must be [{}]", b.tensor(bi).name, dims_str(b.tensor(bi).dims), N);
  }
  const bool has_gemv = q4 || K % 4 == 0;
  const std::vector<Chunk> chunks = plan_chunks(b, N, row_bytes, scale_row_bytes);
  const bool split = chunks.size() > 1;

  // Which fusions run inside the GEMV (the tuning policy's rule; the GLU needs unsplit weights and row pairs).
  const bool fuse_gemv = fused_op && b.device().tuning().fused_gemv;
  webgpu::KernelSpec gemv_spec =
      q4 ? q4_gemv_spec(b, N, K, scale_f16, fused_op)
         : webgpu::KernelSpec{"ops/linear/gemv_f32.wgsl", "main", {{"RPT", double(b.device().tuning().gemv_f32_rpt)}}, {}};
  // Rows per GEMV workgroup: the kernel's ROWS_PER_WG at these overrides (its WGSL is the one source).
  uint32_t gemv_rows = webgpu::PipelineCache::value(gemv_spec, "ROWS_PER_WG");
  const bool gemv_norm = fuse_gemv && fu.norm >= 0, gemv_glu = fuse_gemv && fu.act && !split && gemv_rows % 2 == 0;
  // Route 4: the GEMV in the policy's shape for several rows of x (from gemv_q4_multi_min_rows), where that differs
  // from the one-row shape and keeps the GLU pairing.
  const int64_t gemv_max_rows = b.device().tuning().gemv_max_rows;
  const int64_t multi_min_rows = b.device().tuning().gemv_q4_multi_min_rows;
  webgpu::KernelSpec multi_spec;
  uint32_t multi_rows = 0;
  if (q4 && multi_min_rows >= 2 && std::min<int64_t>(numel(xd) / K, gemv_max_rows) >= multi_min_rows) {
    multi_spec = q4_gemv_spec(b, N, K, scale_f16, fused_op, true);
    multi_rows = webgpu::PipelineCache::value(multi_spec, "ROWS_PER_WG");
    if ((multi_spec.shader == gemv_spec.shader && multi_spec.constants == gemv_spec.constants) ||
        (gemv_glu && multi_rows % 2 != 0))
      multi_rows = 0;
  }
  const bool has_multi = multi_rows > 0;
  if (fused_op)
    for (webgpu::KernelSpec* spec : {&gemv_spec, &multi_spec}) {
      spec->constants.push_back({"NORM", gemv_norm ? 1.0 : 0.0});
      spec->constants.push_back({"EPI", gemv_glu ? 1.0 + fu.act : fu.res >= 0 ? 1.0 : 0.0});
    }
  // Pairs of rows per workgroup with the GLU in the epilogue: ROWS_PER_WG / 2 outputs.
  const uint32_t gemv_outs = gemv_glu ? gemv_rows / 2 : gemv_rows, multi_outs = gemv_glu ? multi_rows / 2 : multi_rows;

  struct ChunkRefs {
    Chunk c;
    UniformRef gemv_u, gemm_u, part_u, red_u, multi_u;
    DispatchRef gemv_d, gemm_d, big_d, mmq_d, part_d, red_d, multi_d;  // part_d, red_d: route 3 with split K
  };
  std::vector<ChunkRefs> refs;
  const Binding x = Binding::tensor(b.arg(0)), out = Binding::tensor(b.arg(oi));
  const Binding bias = has_bias ? Binding::tensor(b.arg(bi)) : x;  // unused binding when there is no bias
  const Binding res = fu.res >= 0 ? Binding::tensor(b.arg(size_t(fu.res))) : x;
  const Binding nw = fu.norm >= 0 ? Binding::tensor(b.arg(size_t(fu.norm))) : x;
  // The norm and the GLU as their own dispatches, through scratch: always where the GEMV does not fuse them,
  // else on the GEMM routes only (one dispatch per route, so each route group holds its own).
  const int64_t max_m = numel(xd) / K;
  // Route 3: the int8 GEMM for q4 weights (K % 32 == 0 follows from G).
  const uint32_t mmq_min_tiles = q4 && b.device().has_packed_dot() ? b.device().tuning().gemm.mmq_min_tiles : 0;
  const bool has_mmq = mmq_min_tiles > 0;
  std::vector<SideDispatch> norms, glus;
  std::optional<ScratchRef> xn, y;
  if (fu.norm >= 0) xn = b.scratch(uint64_t(max_m * K) * 4, "normalized x");
  if (fu.act) y = b.scratch(uint64_t(max_m * N) * 4, "gate and up");
  auto add_norm = [&](int route) { norms.push_back(add_side_norm(b, x, nw, *xn, route)); };
  auto add_glu = [&](int route) { glus.push_back(add_side_glu(b, fu.act, *y, out, route)); };
  if (fu.norm >= 0) {
    if (!gemv_norm) add_norm(-1);
    else for (int route : {1, 2, 3}) if (route != 3 || has_mmq) add_norm(route);
  }
  const Binding gemv_x = xn && !gemv_norm ? Binding(*xn) : x, gemm_x = xn ? Binding(*xn) : x;
  const Binding gemv_out = y && !gemv_glu ? Binding(*y) : out, gemm_out = y ? Binding(*y) : out;
  const Binding gemm_bias = fu.res >= 0 ? res : bias;
  const GemmConfig gemm_cfg = gemm_config(b.device());
  // GPUs: outputs with >= big_min_tiles 128x128 tiles take the register-blocked kernel (route 2).
  const uint32_t big_min_tiles = gemm_cfg.kind == GemmConfig::Kind::Tiled ? b.device().tuning().gemm.big_min_tiles : 0;
  const bool has_big = big_min_tiles > 0 && (!q4 || (K % 16 == 0 && G % 16 == 0));
  const GemmConfig big_cfg = gemm_big_config();
  // Route 3 (the int8 GEMM): x quantized once for all chunks.
  const webgpu::MmqTile mmq_tile = b.device().tuning().gemm_mmq_tile(max_m, N);
  const GemmConfig mmq_cfg = has_mmq ? gemm_mmq_config(mmq_tile) : GemmConfig{};
  if (has_mmq) check_mmq_fits(b.device(), gemm_mmq_kernel(scale_f16, mmq_tile));
  UniformRef q8_u;
  DispatchRef q8_d;
  Binding qa = x, da = x;
  if (has_mmq) {
    const uint64_t max_m = b.tensor(0).max_bytes() / 4 / uint64_t(K);
    const ScratchRef qs = b.scratch(q8_bytes(max_m, uint64_t(K)), "int8 activations");
    const ScratchRef ds = b.scratch(q8_scale_bytes(max_m, uint64_t(K)), "int8 activation scales");
    qa = qs;
    da = ds;
    q8_u = b.uniform<Q8Params>();
    q8_d = b.dispatch(quantize_q8_kernel(), {gemm_x, qa, da, q8_u}, 3);
  }
  // Route 3 with split K (the policy's gemm_mmq_split_target): partial sums of up to kMmqMaxSplits K ranges of the
  // largest chunk at the build's rows, at most 64 MiB (mmq_splits caps S by this size at every execute).
  const uint32_t mmq_split_target = has_mmq ? b.device().tuning().gemm_mmq_split_target : 0;
  int64_t max_rows = 0;
  for (const Chunk& c : chunks) max_rows = std::max(max_rows, c.rows);
  const uint64_t part_bytes =
      mmq_split_target ? std::min<uint64_t>({uint64_t(max_m) * uint64_t(max_rows) * 4 * kMmqMaxSplits, uint64_t(64) << 20,
                                             b.device().limits().maxStorageBufferBindingSize})
                       : 0;
  const bool has_mmq_split = mmq_split_target > 0 && part_bytes >= uint64_t(max_m) * uint64_t(max_rows) * 8;
  std::optional<ScratchRef> part;
  if (has_mmq_split) part = b.scratch(part_bytes, "int8 GEMM split-K partial sums");
  for (const Chunk& c : chunks) {
    ChunkRefs r{c, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
    Binding wb = split ? Binding::tensor_range(b.arg(wi), uint64_t(c.n0) * row_bytes, uint64_t(c.rows) * row_bytes)
                       : Binding::tensor(b.arg(wi));
    Binding sb = x;
    // Chunks start at multiples of 256 rows, so an f16 slice starts on a word (and a 256-byte offset); the last
    // one may end mid-word: its size is rounded up to the word, which the buffer (4-byte padded) holds.
    if (q4)
      sb = split ? Binding::tensor_range(b.arg(si), uint64_t(c.n0) * scale_row_bytes,
                                         (uint64_t(c.rows) * scale_row_bytes + 3) / 4 * 4)
                 : Binding::tensor(b.arg(si));
    if (has_gemv) {
      r.gemv_u = b.uniform<GemvParams>();
      if (q4) r.gemv_d = b.dispatch(gemv_spec, {gemv_x, wb, sb, bias, gemv_out, r.gemv_u, nw, res}, 0);
      else r.gemv_d = b.dispatch(gemv_spec, {x, wb, bias, out, r.gemv_u}, 0);
    }
    if (has_multi) {
      r.multi_u = b.uniform<GemvParams>();
      r.multi_d = b.dispatch(multi_spec, {gemv_x, wb, sb, bias, gemv_out, r.multi_u, nw, res}, 4);
    }
    r.gemm_u = b.uniform<GemmParams>();
    r.gemm_d = b.dispatch(gemm_kernel(gemm_cfg, q4, true, scale_f16), {gemm_x, wb, sb, gemm_bias, gemm_out, r.gemm_u}, 1);
    if (has_big) r.big_d = b.dispatch(gemm_big_kernel(q4, scale_f16), {gemm_x, wb, sb, gemm_bias, gemm_out, r.gemm_u}, 2);
    if (has_mmq)
      r.mmq_d = b.dispatch(gemm_mmq_kernel(scale_f16, mmq_tile), {qa, wb, sb, gemm_bias, gemm_out, r.gemm_u, da}, 3);
    if (has_mmq_split) {
      r.part_u = b.uniform<GemmParams>();
      r.red_u = b.uniform<GemmParams>();
      r.part_d = b.dispatch(gemm_mmq_kernel(scale_f16, mmq_tile), {qa, wb, sb, x, *part, r.part_u, da}, 3);
      r.red_d = b.dispatch(gemm_splitk_reduce_kernel(), {*part, gemm_bias, gemm_out, r.red_u}, 3);
    }
    refs.push_back(r);
  }
  if (fu.act) {
    if (!gemv_glu) add_glu(-1);
    else for (int route : {1, 2, 3}) if (route != 3 || has_mmq) add_glu(route);
  }

  b.on_resize([=](ResizeContext& r) {
    Dims d = r.tensor(0).dims;
    if (d.empty() || d.back() != K)
      r.fail("x '{}' has live dims {}; the last dim must stay {} (K)", r.tensor(0).name, dims_str(d), K);
    const int64_t M = numel(d) / K;
    r.set_dims(oi, resize_fusion(r, fu, norms, glus, d, N));
    // Small batches (decode, short prompts) run the GEMV once per row (grid layers): for M <= gemv_max_rows
    // re-reading the weights M times costs less than the GEMM's tile set-up and barriers.
    const bool gemv = has_gemv && M >= 1 && M <= gemv_max_rows, multi = gemv && has_multi && M >= multi_min_rows;
    const uint64_t tiles = div_up(uint64_t(M), 128) * div_up(uint64_t(N), 128);
    const bool mmq = !gemv && has_mmq && M >= 1 && tiles >= mmq_min_tiles;
    const bool big = !gemv && !mmq && has_big && tiles >= big_min_tiles;
    r.select_route(multi ? 4 : gemv ? 0 : mmq ? 3 : big ? 2 : 1);
    if (has_mmq) {
      r.set_uniform(q8_u, Q8Params{uint32_t(uint64_t(M) * uint64_t(K) / 32), 0, 0, 0});
      r.set_invocations(q8_d, mmq ? uint64_t(M) * uint64_t(K) / 32 : 0);
    }
    for (const ChunkRefs& c : refs) {
      // The GEMV routes (0, 4): `outs` outputs per workgroup, one grid layer per row of x.
      auto set_gemv = [&](UniformRef u, DispatchRef d, uint32_t outs) {
        const uint32_t nwg = uint32_t(div_up(uint64_t(gemv_glu ? Nout : c.c.rows), outs));
        r.set_uniform(u, GemvParams{uint32_t(c.c.rows), uint32_t(K), uint32_t(G), has_bias, uint32_t(c.c.n0), nwg,
                                    uint32_t(gemv_glu ? Nout : N), fu.eps});
        r.set_workgroups(d, nwg, uint32_t(std::max<int64_t>(M, 1)));
      };
      if (has_gemv) set_gemv(c.gemv_u, c.gemv_d, gemv_outs);
      if (has_multi) set_gemv(c.multi_u, c.multi_d, multi_outs);
      GemmParams p;
      p.M = uint32_t(M);
      p.N = uint32_t(c.c.rows);
      p.K = uint32_t(K);
      p.a_sm = uint32_t(K);
      p.b_sn = uint32_t(q4 ? K / 8 : K);
      p.c_off = uint32_t(c.c.n0);
      p.c_sm = uint32_t(N);
      p.bias_off = uint32_t(c.c.n0);
      p.has_bias = has_bias || fu.res >= 0;
      if (fu.res >= 0) p.bias_sm = uint32_t(N);  // the residual as the bias term: row m of [M, N]
      p.group = uint32_t(q4 ? G : 32);
      p.s_sn = uint32_t(q4 ? K / G : 0);
      r.set_uniform(c.gemm_u, p);
      Grid g, gb, gq;
      try {
        g = gemm_grid(gemm_cfg, p, r.max_workgroups_per_dim());
        if (has_big) gb = gemm_grid(big_cfg, p, r.max_workgroups_per_dim());
        if (has_mmq) gq = gemm_grid(mmq_cfg, p, r.max_workgroups_per_dim());
      } catch (const InvalidArgument& e) {
        r.fail("{}", e.what());
      }
      // Split K: partial s over 32-k blocks s * per .. (s + 1) * per - 1 into part[s][m][n] (no bias), then the
      // reduce pass sums them and adds the bias (or residual) through p's strides.
      const MmqSplit sp = has_mmq_split && mmq ? mmq_splits(uint64_t(gq.x) * gq.y * gq.z, uint32_t(K), mmq_tile.kb,
                                                              uint64_t(M) * uint64_t(c.c.rows), mmq_split_target, part_bytes)
                                               : MmqSplit{};
      r.set_grid(c.gemm_d, big || mmq ? Grid{0, 1, 1} : g);
      if (has_big) r.set_grid(c.big_d, big ? gb : Grid{0, 1, 1});
      if (has_mmq) r.set_grid(c.mmq_d, mmq && sp.splits == 1 ? gq : Grid{0, 1, 1});
      if (has_mmq_split) {
        GemmParams q = p;
        q.batch = sp.splits;
        q.k_split = sp.per;
        q.c_off = 0;
        q.c_sb = uint32_t(M) * uint32_t(c.c.rows);
        q.c_sm = uint32_t(c.c.rows);
        q.has_bias = 0;
        GemmParams red = p;
        red.K = sp.splits;
        r.set_uniform(c.part_u, q);
        r.set_uniform(c.red_u, red);
        Grid gp{0, 1, 1};
        if (sp.splits > 1) {
          try {
            gp = gemm_grid(mmq_cfg, q, r.max_workgroups_per_dim());
          } catch (const InvalidArgument& e) {
            r.fail("{}", e.what());
          }
        }
        r.set_grid(c.part_d, gp);
        r.set_invocations(c.red_d, sp.splits > 1 ? uint64_t(M) * uint64_t(c.c.rows) : 0);
      }
    }
  });
}

}  // namespace

void register_linear_ops(OpRegistry& r) {
  std::vector<std::string> f32 = {"ops/linear/gemv_f32.wgsl:main"}, q4 = {"ops/linear/gemv_q4.wgsl:main",
                                    "ops/linear/gemv_q4_i8.wgsl:main", "ops/linear/gemv_q4_sg.wgsl:main",
                                    "ops/linear/gemv_q4_s8.wgsl:main"};
  std::vector<std::string> gemm = gemm_kernel_names();
  gemm.push_back(gemm_big_kernel(false).shader + ":main");
  for (auto* k : {&f32, &q4}) k->insert(k->end(), gemm.begin(), gemm.end());
  q4.push_back(gemm_mmq_kernel().shader + ":main");
  q4.push_back(quantize_q8_kernel().shader + ":main");
  q4.push_back(gemm_splitk_reduce_kernel().shader + ":main");
  r.add({"aten.linear.default", [](OpBuilder& b) { build_linear(b, false); }, f32, true});
  r.add({"et_vk.linear_q4gsw.default", [](OpBuilder& b) { build_linear(b, true); }, q4, true});
  std::vector<std::string> fused = q4;
  fused.insert(fused.end(), {"ops/norm/rms_norm.wgsl:main", "ops/elementwise/swiglu.wgsl:main"});
  r.add({"wgrt.linear_q4gsw_fused.default", [](OpBuilder& b) { build_linear(b, true, true); }, fused, true});
}

}  // namespace wgrt::ops
