// Linear layers, f32 activations:
//   aten.linear.default(x [..., K] f32, weight [N, K] f32, bias [N] f32 | None, out [..., N] f32)
//       out = x @ weight^T + bias (PyTorch nn.Linear layout).
//   et_vk.linear_q4gsw.default(x [..., K] f32, qweight u32 [N, K/8] (or q4 [N, K]), scales f32 [N, K/G],
//                              group_size int G, bias [N] f32 | None, out [..., N] f32)
//       the same with W[n][k] = (code - 8) * scales[n][k/G] in the q4gsw layout (ops/linear/q4gsw.h);
//       G in {32, 64, 128}, K a multiple of G (build errors otherwise).
// Routes, chosen at every execute from the live M = numel(x) / K:
//   0 (M <= 8: decode, short prompts): cooperative GEMV, one grid layer per row (gemv_f32.wgsl; q4: one of three
//     kernels, see q4_gemv_kernel below); f32 needs K % 4 == 0, else the GEMM route also serves M == 1;
//   1 (M != 1, prefill): the tiled GEMM core (gemm.wgsl), 64x64 output tiles.
// Weights larger than maxStorageBufferBindingSize (e.g. a 128256-row output layer) are split along N into
// chunks of whole multiples of 256 rows; each chunk is one dispatch per route binding a byte range of the
// weight (and scales) and writing its own column range of out. WGRT_MAX_BINDING_BYTES (tests, experiments)
// lowers the limit used for this split. x, bias and out are bound whole: if they exceed the limit the build
// fails with a LimitError naming the tensor.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "ops/families.h"
#include "ops/linear/gemm.h"
#include "webgpu/device.h"

namespace wgrt::ops {

namespace {

struct GemvParams {
  uint32_t N, K, group, has_bias, n_base, nwg, out_stride, pad1;
};

constexpr uint32_t kRptF32 = 4;      // f32 GEMV rows per invocation; a workgroup covers 8 * RPT rows
constexpr int64_t kGemvMaxRows = 8;  // M up to this takes the GEMV route (one grid layer per row)

// Tuning knobs: "a,b,c[,d]" of whole numbers 0..65536 (digits and commas only). Returns the values, or an empty
// vector when the text is malformed (the knob is then ignored).
std::vector<uint32_t> parse_knob(const char* e, size_t min_n, size_t max_n) {
  std::vector<uint32_t> v;
  uint64_t cur = 0;
  bool digit = false;
  for (const char* c = e;; ++c) {
    if (*c >= '0' && *c <= '9') {
      cur = cur * 10 + uint64_t(*c - '0');
      digit = true;
      if (cur > 65536) return {};
    } else if ((*c == ',' || *c == '\0') && digit) {
      v.push_back(uint32_t(cur));
      cur = 0;
      digit = false;
      if (*c == '\0') break;
    } else {
      return {};
    }
  }
  if (v.size() < min_n || v.size() > max_n) return {};
  return v;
}

// q4 GEMV, workgroup-memory kernels (gemv_q4.wgsl, gemv_q4_i8.wgsl): k lanes x row lanes x rows per invocation,
// and whether x is staged in workgroup memory (the f32 kernel; the int8 kernel always stages). Shape rule (H200
// and lavapipe sweeps, bench/README.md):
//   int8 kernel (GPUs): 8 x 32 x 4 (128 rows per workgroup) when N >= 32768, else 32 x 8 x 2 (16 rows: more
//         workgroups for small N). H200, K 2048 x N 128256: 56.8 us (32 x 8 x 8: 60.1; the f32 kernel: 76.6);
//         K x N 2048 x 2048 / 2048 x 8192 / 8192 x 2048: 9.2 / 12.2 / 12.9 us (f32 kernel 10.1 / 13.6 / 14.2).
//   f32 kernel, GPUs (where the int8 one cannot run): x staged (when K * 4 bytes fit beside the reduction
//         buffer), 32 x 8 x 8 when N >= 32768, else 64 x 4 x 4.
//   CPU adapters: the f32 kernel, 16 x 8 x 8 unstaged at every N: each x load then serves 8 rows instead of 4
//         (2.3-2.8x faster on lavapipe than 64 x 4 x 4), and staging would add a workgroup barrier, which CPU
//         drivers pay for (the int8 kernel measured 1.2-1.35x slower than the f32 one on lavapipe).
// WGRT_GEMV_Q4="TK,TR,RPT[,STAGE]" overrides it (tuning experiments; TK * TR <= 256, TR * RPT * (TK + 1) <= 2112,
// RPT <= min(8, TK), TK % RPT == 0, STAGE 0 or 1, default 0; anything else is ignored).
constexpr uint64_t kGemvQ4PartFloats = 2112;  // the reduction buffer part[], [TR * RPT][TK + 1] floats
struct GemvQ4Shape {
  uint32_t tk = 64, tr = 4, rpt = 4, stage = 0;  // stage: x staged in workgroup memory (f32 kernel: XV = K / 4)
};
GemvQ4Shape gemv_q4_shape(int64_t N, bool cpu_adapter, bool int8) {
  GemvQ4Shape s;
  if (cpu_adapter) s = {16, 8, 8, 0};
  else if (int8) s = N >= 32768 ? GemvQ4Shape{8, 32, 4} : GemvQ4Shape{32, 8, 2};  // always stages x
  else if (N >= 32768) s = {32, 8, 8, 1};
  else s = {64, 4, 4, 1};
  if (const char* e = std::getenv("WGRT_GEMV_Q4")) {
    const std::vector<uint32_t> v = parse_knob(e, 3, 4);
    if (!v.empty()) {
      const GemvQ4Shape t{v[0], v[1], v[2], v.size() > 3 ? v[3] : 0};
      const uint64_t tk = t.tk, tr = t.tr, rpt = t.rpt;  // 64-bit products: no wrap-around
      if (t.stage <= 1 && tk >= 1 && tr >= 1 && tk * tr <= 256 && rpt >= 1 && rpt <= 8 && rpt <= tk && tk % rpt == 0 &&
          tr * rpt * (tk + 1) <= kGemvQ4PartFloats)
        s = t;
    }
  }
  return s;
}

// q4 GEMV, subgroup route (gemv_q4_sg.wgsl): RPT rows per block, BW blocks per workgroup, KS K-slices per
// block. Chosen from the shape (N rows, K): enough subgroup tasks in flight for small N (split K), more rows
// per subgroup (more independent loads, x reused) for large N. WGRT_GEMV_Q4_SG="RPT,BW,KS" overrides it
// (RPT 1..8, BW * KS 1..64, BW * RPT * KS <= 1024; anything else is ignored).
struct GemvQ4SgShape {
  uint32_t rpt = 4, bw = 8, ks = 1;
};
GemvQ4SgShape gemv_q4_sg_shape(int64_t N, int64_t K) {
  GemvQ4SgShape s;
  const int64_t nv = K / 32;  // vec4<u32> per row
  if (N >= 32768) {
    s = {4, 8, 1};
  } else if (N >= 4096) {
    s = {2, 8, 1};
  } else {
    s = {1, 8, 1};
  }
  // Split K when a row is long (more than 2 steps per lane of a 32-wide subgroup).
  if (N < 32768 && nv >= 128) s.ks = 2, s.bw = 4;
  if (const char* e = std::getenv("WGRT_GEMV_Q4_SG")) {
    const std::vector<uint32_t> v = parse_knob(e, 3, 3);
    if (!v.empty()) {
      const uint64_t rpt = v[0], bw = v[1], ks = v[2];  // 64-bit products: no wrap-around
      if (rpt >= 1 && rpt <= 8 && bw >= 1 && ks >= 1 && bw * ks <= 64 && bw * rpt * ks <= 1024) s = {v[0], v[1], v[2]};
    }
  }
  return s;
}

// Which q4 GEMV kernel (M <= kGemvMaxRows):
//   Int8 (gemv_q4_i8.wgsl): packed int8 dot products against x converted to 22-bit block floating point in
//     workgroup memory (error bound in the kernel's header); the default on GPUs (H200, K 2048 x N 128256: see
//     bench/README.md) when the device has WGSL's packed_4x8_integer_dot_product and the staged x fits
//     (gemv_q4_i8_smem).
//   Workgroup (gemv_q4.wgsl): f32 decode; CPU adapters, and GPUs where Int8 does not fit.
//   Subgroup (gemv_q4_sg.wgsl): opt-in only (measured slower on an H200).
// WGRT_GEMV_Q4_ROUTE=wg | i8 | sg forces one (tests, experiments; i8 falls back to wg where it cannot run, sg
// where the device has no subgroups; other values are ignored).
enum class Q4Gemv { Workgroup, Int8, Subgroup };
// Workgroup memory of gemv_q4_i8.wgsl for K as Dawn counts it (each variable rounded up to 16 bytes): per 32-k
// block 96 bytes of planes, 16 of word sums, 16 of word exponents and 4 of scale, plus the reduction buffer.
uint64_t gemv_q4_i8_smem(int64_t K) {
  const uint64_t blocks = uint64_t(K) / 32;
  return 128 * blocks + (4 * blocks + 15) / 16 * 16 + kGemvQ4PartFloats * 4;
}
bool gemv_q4_i8_fits(const OpBuilder& b, int64_t K) {
  return b.device().has_packed_dot() && gemv_q4_i8_smem(K) <= b.device().limits().maxComputeWorkgroupStorageSize;
}
Q4Gemv q4_gemv_kernel(const OpBuilder& b, int64_t K, bool cpu_adapter) {
  Q4Gemv k = !cpu_adapter && gemv_q4_i8_fits(b, K) ? Q4Gemv::Int8 : Q4Gemv::Workgroup;
  if (const char* e = std::getenv("WGRT_GEMV_Q4_ROUTE")) {
    const std::string_view v(e);
    if (v == "wg") k = Q4Gemv::Workgroup;
    else if (v == "i8") k = gemv_q4_i8_fits(b, K) ? Q4Gemv::Int8 : Q4Gemv::Workgroup;
    else if (v == "sg" && b.device().has_subgroups()) k = Q4Gemv::Subgroup;
  }
  return k;
}

struct Chunk {
  int64_t n0, rows;
};

// Splits N rows so that rows * row_bytes (and rows * scale_row_bytes) fit one storage binding.
std::vector<Chunk> plan_chunks(const OpBuilder& b, int64_t N, uint64_t row_bytes, uint64_t scale_row_bytes) {
  uint64_t lim = b.device().limits().maxStorageBufferBindingSize;
  if (const char* e = std::getenv("WGRT_MAX_BINDING_BYTES")) {
    uint64_t v = std::strtoull(e, nullptr, 10);
    if (v > 0) lim = std::min(lim, v);
  }
  uint64_t widest = std::max(row_bytes, scale_row_bytes);
  if (uint64_t(N) * widest <= lim) return {{0, N}};
  uint64_t per = lim / widest / 256 * 256;
  if (per == 0)
    throw LimitError(b.where() + fmt::format("256 weight rows of {} bytes exceed maxStorageBufferBindingSize {}", widest, lim));
  std::vector<Chunk> c;
  for (int64_t n0 = 0; n0 < N; n0 += int64_t(per)) c.push_back({n0, std::min<int64_t>(int64_t(per), N - n0)});
  return c;
}

void build_linear(OpBuilder& b, bool q4) {
  b.check_args(q4 ? 6 : 4);
  const size_t wi = 1, si = 2, bi = q4 ? 4 : 2, oi = q4 ? 5 : 3;
  b.check_dtype(0, DType::F32);
  b.check_dtype(oi, DType::F32);
  b.check_rank(0, 1, 8);
  const Dims xd = b.tensor(0).dims;
  const int64_t K = xd.back();
  b.check(K > 0, "x '{}' {} has an empty last dim", b.tensor(0).name, dims_str(xd));
  b.check(numel(xd) < (int64_t(1) << 32), "x '{}' {} has too many elements", b.tensor(0).name, dims_str(xd));
  int64_t N = 0, G = 0;
  uint64_t row_bytes = 0, scale_row_bytes = 0;
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
    b.check(s.dtype == DType::F32, "scales '{}' must be f32, got {}", s.name, dtype_name(s.dtype));
    b.check(s.dims == Dims{N, K / G}, "scales '{}' {} must be [{}, {}]", s.name, dims_str(s.dims), N, K / G);
    row_bytes = uint64_t(K) / 2;
    scale_row_bytes = uint64_t(K / G) * 4;
  } else {
    b.check(w.dtype == DType::F32, "weight '{}' must be f32, got {}", w.name, dtype_name(w.dtype));
    b.check(w.dims.size() == 2 && w.dims[1] == K, "weight '{}' {} must be [N, {}] (nn.Linear layout, K = last dim of x)",
            w.name, dims_str(w.dims), K);
    N = w.dims[0];
    row_bytes = uint64_t(K) * 4;
  }
  b.check(N > 0, "weight '{}' has no rows", w.name);
  const bool has_bias = !b.is_none(bi);
  if (has_bias) {
    b.check_dtype(bi, DType::F32);
    b.check(b.tensor(bi).dims == Dims{N}, "bias '{}' {} must be [{}]", b.tensor(bi).name, dims_str(b.tensor(bi).dims), N);
  }
  const bool has_gemv = q4 || K % 4 == 0;
  const std::vector<Chunk> chunks = plan_chunks(b, N, row_bytes, scale_row_bytes);
  const bool split = chunks.size() > 1;

  using webgpu::BindingType;
  webgpu::KernelSpec gemv_spec;
  uint32_t gemv_rows = 8 * kRptF32;  // rows per GEMV workgroup
  if (q4) {
    const std::vector<BindingType> bt = {BindingType::ReadOnlyStorage, BindingType::ReadOnlyStorage,
                                         BindingType::ReadOnlyStorage, BindingType::ReadOnlyStorage,
                                         BindingType::Storage,         BindingType::Uniform};
    const bool cpu_adapter = b.device().adapter_info().type == WGPUAdapterType_CPU;
    const Q4Gemv kernel = q4_gemv_kernel(b, K, cpu_adapter);
    if (kernel == Q4Gemv::Subgroup) {
      const GemvQ4SgShape sg = gemv_q4_sg_shape(N, K);
      gemv_spec = {"ops/linear/gemv_q4_sg.wgsl", "main", bt,
                   {{"RPT", double(sg.rpt)}, {"BW", double(sg.bw)}, {"KS", double(sg.ks)}}, {}};
      gemv_rows = sg.rpt * sg.bw;
    } else {
      const GemvQ4Shape q4s = gemv_q4_shape(N, cpu_adapter, kernel == Q4Gemv::Int8);
      if (kernel == Q4Gemv::Int8) {
        gemv_spec = {"ops/linear/gemv_q4_i8.wgsl", "main", bt,
                     {{"RPT", double(q4s.rpt)}, {"TK", double(q4s.tk)}, {"TR", double(q4s.tr)}, {"XB", double(K / 32)}}, {}};
      } else {
        // Staged x needs K * 4 bytes of workgroup memory beside the reduction buffer.
        const bool stage =
            q4s.stage && uint64_t(K) * 4 + kGemvQ4PartFloats * 4 <= b.device().limits().maxComputeWorkgroupStorageSize;
        gemv_spec = {"ops/linear/gemv_q4.wgsl", "main", bt,
                     {{"RPT", double(q4s.rpt)}, {"TK", double(q4s.tk)}, {"TR", double(q4s.tr)}, {"XV", stage ? double(K / 4) : 0.0}}, {}};
      }
      gemv_rows = q4s.tr * q4s.rpt;
    }
  } else {
    gemv_spec = {"ops/linear/gemv_f32.wgsl", "main",
                 {BindingType::ReadOnlyStorage, BindingType::ReadOnlyStorage, BindingType::ReadOnlyStorage,
                  BindingType::Storage, BindingType::Uniform},
                 {{"RPT", double(kRptF32)}}, {}};
  }

  struct ChunkRefs {
    Chunk c;
    UniformRef gemv_u, gemm_u;
    DispatchRef gemv_d, gemm_d;
  };
  std::vector<ChunkRefs> refs;
  const Binding x = Binding::tensor(b.arg(0)), out = Binding::tensor(b.arg(oi));
  const Binding bias = has_bias ? Binding::tensor(b.arg(bi)) : x;  // unused binding when there is no bias
  const GemmConfig gemm_cfg = gemm_config(b.device());
  for (const Chunk& c : chunks) {
    ChunkRefs r{c, {}, {}, {}, {}};
    Binding wb = split ? Binding::tensor_range(b.arg(wi), uint64_t(c.n0) * row_bytes, uint64_t(c.rows) * row_bytes)
                       : Binding::tensor(b.arg(wi));
    Binding sb = x;
    if (q4)
      sb = split ? Binding::tensor_range(b.arg(si), uint64_t(c.n0) * scale_row_bytes, uint64_t(c.rows) * scale_row_bytes)
                 : Binding::tensor(b.arg(si));
    if (has_gemv) {
      r.gemv_u = b.uniform(sizeof(GemvParams));
      if (q4) r.gemv_d = b.dispatch(gemv_spec, {x, wb, sb, bias, out, r.gemv_u}, 0);
      else r.gemv_d = b.dispatch(gemv_spec, {x, wb, bias, out, r.gemv_u}, 0);
    }
    r.gemm_u = b.uniform(sizeof(GemmParams));
    r.gemm_d = b.dispatch(gemm_kernel(gemm_cfg, q4), {x, wb, sb, bias, out, r.gemm_u}, 1);
    refs.push_back(r);
  }

  b.on_resize([=](ResizeContext& r) {
    Dims d = r.tensor(0).dims;
    if (d.empty() || d.back() != K)
      r.fail("x '{}' has live dims {}; the last dim must stay {} (K)", r.tensor(0).name, dims_str(d), K);
    const int64_t M = numel(d) / K;
    d.back() = N;
    r.set_dims(oi, d);
    // Small batches (decode, short prompts) run the GEMV once per row (grid layers): for M <= kGemvMaxRows
    // re-reading the weights M times costs less than the GEMM's tile set-up and barriers.
    const bool gemv = has_gemv && M >= 1 && M <= kGemvMaxRows;
    r.select_route(gemv ? 0 : 1);
    for (const ChunkRefs& c : refs) {
      if (has_gemv) {
        uint32_t nwg = uint32_t(div_up(uint64_t(c.c.rows), gemv_rows));
        r.set_uniform(c.gemv_u, GemvParams{uint32_t(c.c.rows), uint32_t(K), uint32_t(G), has_bias, uint32_t(c.c.n0), nwg,
                                           uint32_t(N), 0});
        r.set_workgroups(c.gemv_d, nwg, uint32_t(std::max<int64_t>(M, 1)));
      }
      GemmParams p;
      p.M = uint32_t(M);
      p.N = uint32_t(c.c.rows);
      p.K = uint32_t(K);
      p.a_sm = uint32_t(K);
      p.b_sn = uint32_t(q4 ? K / 8 : K);
      p.c_off = uint32_t(c.c.n0);
      p.c_sm = uint32_t(N);
      p.bias_off = uint32_t(c.c.n0);
      p.has_bias = has_bias;
      p.group = uint32_t(q4 ? G : 32);
      p.s_sn = uint32_t(q4 ? K / G : 0);
      r.set_uniform(c.gemm_u, p);
      Grid g;
      try {
        g = gemm_grid(gemm_cfg, p, r.max_workgroups_per_dim());
      } catch (const InvalidArgument& e) {
        r.fail("{}", e.what());
      }
      r.set_grid(c.gemm_d, g);
    }
  });
}

}  // namespace

void register_linear_ops(OpRegistry& r) {
  r.add({"aten.linear.default", [](OpBuilder& b) { build_linear(b, false); },
         {"ops/linear/gemv_f32.wgsl:main", "ops/linear/gemm.wgsl:main"}, true});
  r.add({"et_vk.linear_q4gsw.default", [](OpBuilder& b) { build_linear(b, true); },
         {"ops/linear/gemv_q4.wgsl:main", "ops/linear/gemv_q4_i8.wgsl:main", "ops/linear/gemv_q4_sg.wgsl:main",
          "ops/linear/gemm.wgsl:main"}, true});
}

}  // namespace wgrt::ops
