// Matrix products on f32 (PyTorch semantics), all through the shared tiled GEMM core (ops/linear/gemm.wgsl):
//   aten.mm.default(a [M, K], b [K, N], out [M, N])                       out = a @ b
//   aten.bmm.default(a [B, M, K], b [B, K, N], out [B, M, N])             out[z] = a[z] @ b[z]
//   aten.addmm.default(bias, a [M, K], b [K, N], beta, alpha, out [M, N]) out = beta * bias + alpha * (a @ b)
//       bias broadcastable to [M, N] ([N], [1, N], [M, 1], [M, N], [1] or a 0-d tensor), read with stride 0
//       along broadcast dims (no copy).
// B is read in its natural [K, N] layout (gemm B_KFAST = false). Kernel per execute, by the tuning policy's shape
// rules (webgpu/tuning.h): CPU adapters gemm_cpu.wgsl; GPUs gemm_big.wgsl (128x128), or gemm.wgsl (64x64 tiles)
// when gemm.big_min_tiles is 0 (WGRT_GEMM_BIG=0); mm / addmm (batch 1) whose grid has fewer than
// gemm.split_target_workgroups workgroups split K (ops/linear/gemm.h gemm_splits: partials in scratch, then
// gemm_splitk_reduce.wgsl applies alpha, the bias and beta). Every dim may change between executes
// (resize hook): K must agree between a and b, bmm batches must match, bias must still broadcast; otherwise
// InvalidArgument naming the node. bmm's batch is the GEMM grid's z (<= maxComputeWorkgroupsPerDimension).
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"
#include "ops/linear/gemm.h"
#include "webgpu/device.h"

namespace wgrt::ops {

namespace {

enum class Kind { Mm, Bmm, Addmm };

void build_matmul(OpBuilder& b, Kind kind) {
  b.check_args(kind == Kind::Mm ? 3 : kind == Kind::Bmm ? 3 : 6);
  const size_t ai = kind == Kind::Addmm ? 1 : 0, bi = ai + 1, oi = b.num_args() - 1;
  const size_t rank = kind == Kind::Bmm ? 3 : 2;
  for (size_t i : {ai, bi, oi}) b.check_dtype(i, DType::F32);
  b.check_rank(ai, rank, rank);
  b.check_rank(bi, rank, rank);
  const bool has_bias = kind == Kind::Addmm;
  float alpha = 1.0f, beta = 0.0f;
  if (has_bias) {
    b.check_dtype(0, DType::F32);
    b.check_rank(0, 0, 2);
    beta = float(b.real_arg(3));
    alpha = float(b.real_arg(4));
  }
  UniformRef u = b.uniform<GemmParams>();
  const Binding A = Binding::tensor(b.arg(ai)), B = Binding::tensor(b.arg(bi)), C = Binding::tensor(b.arg(oi));
  const Binding bias = has_bias ? Binding::tensor(b.arg(0)) : A;
  const GemmConfig cfg = gemm_config(b.device());
  DispatchRef d = b.dispatch(gemm_kernel(cfg, false, false), {A, B, A, bias, C, u});
  // GPUs: the 128x128 kernel, and split-K (the partial GEMMs of either kernel, then the reduce pass).
  const webgpu::GemmTuning& gt = b.device().tuning().gemm;
  const bool gpu = cfg.kind == GemmConfig::Kind::Tiled;
  // gemm_big at every size where the policy has it (big_min_tiles > 0): with split-K making up the workgroups it
  // measured fastest at the ViT's 197 and 1576 rows (H200 run 22; tuning.h).
  const uint32_t big_min = gpu && gt.big_min_tiles ? 1 : 0;
  const uint32_t split_target = gpu && rank == 2 ? gt.split_target_workgroups : 0;
  const GemmConfig big_cfg = gemm_big_config();
  // Partials for up to kGemmMaxSplits slices of the output at its build dims, at most 64 MiB (gemm_splits caps S
  // by the scratch's size at every execute, so larger live dims only split less).
  const Dims& ma = b.tensor(ai).dims;
  const Dims& mb = b.tensor(bi).dims;
  const uint64_t max_mn = uint64_t(ma[rank - 2]) * uint64_t(mb[rank - 1]);
  const uint64_t part_bytes = split_target ? std::min<uint64_t>(max_mn * 4 * kGemmMaxSplits, uint64_t(64) << 20) : 0;
  DispatchRef big_d, part_d, part_big_d, red_d;
  UniformRef part_u, red_u;
  if (big_min) big_d = b.dispatch(gemm_big_kernel(false, false, false), {A, B, A, bias, C, u});
  if (split_target && max_mn * 8 <= part_bytes) {
    const ScratchRef part = b.scratch(part_bytes, "split-K partial products");
    part_u = b.uniform<GemmParams>();
    red_u = b.uniform<GemmParams>();
    part_d = b.dispatch(gemm_kernel(cfg, false, false), {A, B, A, A, part, part_u});
    if (big_min) part_big_d = b.dispatch(gemm_big_kernel(false, false, false), {A, B, A, A, part, part_u});
    red_d = b.dispatch(gemm_splitk_reduce_kernel(), {part, bias, C, red_u});
  }
  const bool has_split = red_d.index >= 0;
  b.on_resize([=](ResizeContext& r) {
    const Dims& da = r.tensor(ai).dims;
    const Dims& db = r.tensor(bi).dims;
    const int64_t Z = rank == 3 ? da[0] : 1;
    const int64_t M = da[rank - 2], K = da[rank - 1], Kb = db[rank - 2], N = db[rank - 1];
    if (K != Kb) r.fail("a {} and b {}: inner dims {} and {} differ", dims_str(da), dims_str(db), K, Kb);
    if (rank == 3 && db[0] != Z) r.fail("a {} and b {}: batch dims differ", dims_str(da), dims_str(db));
    if (uint64_t(Z) * M * std::max(K, N) >= (uint64_t(1) << 32) || uint64_t(Z) * K * N >= (uint64_t(1) << 32))
      r.fail("a {} b {}: too many elements for 32-bit indexing", dims_str(da), dims_str(db));
    r.set_dims(oi, rank == 3 ? Dims{Z, M, N} : Dims{M, N});
    GemmParams p = contiguous_gemm(uint32_t(M), uint32_t(N), uint32_t(K), uint32_t(Z));
    p.alpha = alpha;
    p.beta = beta;
    if (has_bias) {
      const Dims& dc = r.tensor(0).dims;
      Dims full(2 - dc.size(), 1);
      full.insert(full.end(), dc.begin(), dc.end());
      if ((full[0] != 1 && full[0] != M) || (full[1] != 1 && full[1] != N))
        r.fail("bias '{}' {} does not broadcast to [{}, {}]", r.tensor(0).name, dims_str(dc), M, N);
      p.has_bias = 1;
      p.bias_sm = full[0] == 1 ? 0 : uint32_t(full[1]);
      p.bias_sn = full[1] == 1 ? 0 : 1;
    }
    r.set_uniform(u, p);
    const uint64_t tiles128 = div_up(uint64_t(M), 128) * div_up(uint64_t(N), 128);
    const bool big = big_min && tiles128 >= big_min;
    const GemmConfig& kc = big ? big_cfg : cfg;
    const uint64_t wgs = div_up(uint64_t(M), kc.tile_m) * div_up(uint64_t(N), kc.tile_n) * uint64_t(Z);
    const uint32_t S = has_split && Z == 1 ? gemm_splits(wgs, uint32_t(K), uint64_t(M) * uint64_t(N), split_target,
                                                          part_bytes)
                                           : 1;
    const Grid off{0, 1, 1};
    try {
      r.set_grid(d, !big && S == 1 ? gemm_grid(cfg, p, r.max_workgroups_per_dim()) : off);
      if (big_min) r.set_grid(big_d, big && S == 1 ? gemm_grid(big_cfg, p, r.max_workgroups_per_dim()) : off);
      if (has_split) {
        // Slice s of k as batch entry s: A columns and B rows offset by s * K / S, partial s at s * M * N.
        GemmParams q = contiguous_gemm(uint32_t(M), uint32_t(N), uint32_t(K) / S, S);
        q.a_sb = uint32_t(K) / S;
        q.a_sm = uint32_t(K);  // rows of a keep their full length
        q.b_sb = uint32_t(K) / S * uint32_t(N);
        GemmParams red = p;
        red.K = S;
        r.set_uniform(part_u, q);
        r.set_uniform(red_u, red);
        r.set_grid(part_d, S > 1 && !big ? gemm_grid(cfg, q, r.max_workgroups_per_dim()) : off);
        if (big_min) r.set_grid(part_big_d, S > 1 && big ? gemm_grid(big_cfg, q, r.max_workgroups_per_dim()) : off);
        r.set_invocations(red_d, S > 1 ? uint64_t(M) * uint64_t(N) : 0);
      }
    } catch (const InvalidArgument& e) {
      r.fail("{}", e.what());
    }
  });
}

}  // namespace

void register_matmul_ops(OpRegistry& r) {
  std::vector<std::string> k = gemm_kernel_names();
  k.push_back(gemm_big_kernel(false).shader + ":main");
  k.push_back(gemm_splitk_reduce_kernel().shader + ":main");
  r.add({"aten.mm.default", [](OpBuilder& b) { build_matmul(b, Kind::Mm); }, k, true});
  r.add({"aten.bmm.default", [](OpBuilder& b) { build_matmul(b, Kind::Bmm); }, k, true});
  r.add({"aten.addmm.default", [](OpBuilder& b) { build_matmul(b, Kind::Addmm); }, k, true});
}

}  // namespace wgrt::ops
