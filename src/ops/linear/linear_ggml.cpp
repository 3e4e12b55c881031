// Linear layer over weights kept in a ggml block format on the GPU (no f32 copy), f32 activations:
//   wgrt.linear_ggml.default(x [..., K] f32, w u32 [words], wtype int, N int, bias [N] f32 | None,
//                            out [..., N] f32)
//       out = x @ W^T + bias, W [N, K] stored row after row as the file's raw blocks (row n = its
//       K / block_elems blocks at byte n * row_bytes; src/formats/ggml_blocks.h), the buffer padded
//       to whole u32 words. wtype is the ggml type id of one of the types
//       ggml_gpu_block() lists (linear_ggml.h), or the int list [type_0, rows_0, type_1, rows_1] of a stack of two
//       types (rows_0 + rows_1 = N; the second part's bytes from the next 256-byte boundary: ggml_stack_layout);
//       K must be a multiple of the type's block size (build errors otherwise).
// Routes: a GEMV for M <= the tuning policy's gemv_max_rows and on CPU adapters: gemv_kq.wgsl for the types it
// has (ggml_gemv_blocks_type) when the policy's ggml_gemv_blocks is on, as four routes whose grid layers take 1,
// 2, 4 or the policy's ggml_gemv_max_mb (8; CPU adapters 4) rows of x (the smallest that holds M; the widest for
// larger M), else gemv_ggml.wgsl (one grid layer per 8
// rows of x); both re-read the weights once per grid layer; on GPUs (the Tiled GEMM kind) larger M takes the
// register-blocked GEMM with the block-format B loader (gemm_big.wgsl B_MODE 2), each weight decoded once per
// 128-row tile of x; where the device has packed int8 dot products, the type is one ggml_mmq_type lists and the
// output has >= the policy's gemm.mmq_ggml_min_tiles 128x128 tiles, M > gemv_max_rows and M >= the policy's
// gemm.mmq_ggml_min_rows instead takes the int8 GEMM: x quantized per 32-k block (quantize_q8.wgsl, natural byte
// order, into two scratch buffers, once per execute), then gemm_mmq_ggml.wgsl. With the policy's
// ggml_gemv_int8 (WGRT_GEMV_KQ_INT8) on a device with packed int8 dot products, the gemv_kq routes take int8 x
// (gemv_kq_i8.wgsl): quantized by each workgroup into workgroup memory (2, the fused norm inside), or read from that
// quantize pass (1, and where 2 does not fit the workgroup memory; the fused norm then its own dispatch).
// A two-type stack is one gemv_kq dispatch (WTYPE2) where it fits one binding and its first part's rows are whole
// workgroups; otherwise, and on the GEMM routes, every part (and every binding chunk) is its own dispatch.
// Weights larger than the tuning policy's max_binding_bytes (maxStorageBufferBindingSize or lower) are bound in
// chunks of whole multiples of 256 rows, one dispatch each, so every chunk starts 256-byte aligned.
//   wgrt.linear_ggml_fused.default(x [..., K] f32, w, wtype, N, bias [N] f32 | None, norm_weight [K] f32 | None,
//                                  eps double, residual [..., N] f32 | None, act int, out [..., N] (act 0) or
//                                  [..., N / 2] f32)
//       the block-format linear of the decoder's layer body with the neighbours of wgrt.linear_q4gsw_fused
//       (linear.cpp has the semantics: RMSNorm of x before, residual add or GLU of [gate; up] after; the same
//       argument checks, linear_fusion.h), for the types of the block GEMV only (ggml_gemv_blocks_type; other
//       types are a build error), which it always runs on its GEMV routes. With the policy's fused_gemv
//       (WGRT_FUSED_GEMV) the norm and the GLU run inside gemv_kq.wgsl (NORM / EPI hooks of gemv_q4_fuse.wgsl),
//       one dispatch in decode; otherwise, on the GEMM route and for a GLU over a weight split into binding
//       chunks they are their own dispatches (rms_norm.wgsl, swiglu.wgsl) through scratch. The residual is the
//       GEMV's epilogue (EPI 1) or the GEMM's bias term (row stride N).
//   wgrt.linear_ggml_rope_qkv.default(x [1, S, K] f32, w, wtype, N, norm_weight [K] | [Kb + N] f32 | None, eps double,
//                                     freqs_cos [C, D/2] | None, freqs_sin [C, D/2] | None, cos_sin [C, D] | None,
//                                     input_pos Int | SymInt, n_heads Hq, n_kv_heads Hkv, hf Bool,
//                                     k_cache [1, C_max, Hkv, D], v_cache [1, C_max, Hkv, D], q_out [1, S, Hq, D])
//       the decoder layer's q/k/v: y = rms_norm?(x) @ [Wq; Wk; Wv]^T (N = (Hq + 2 Hkv) D rows, one type or a
//       two-type stack), then what wgrt.rope_qkv_cache does with y (ops/rope/rope_qkv.cpp: q heads rotated into
//       q_out, k heads rotated and v heads copied into the caches at rows input_pos + s; hf rotate-half pairs,
//       else interleaved; the three tables None: no rotation). cos_sin holds each position's cos then sin row
//       (the GEMV epilogue reads one binding). On the GEMV routes RoPE and the cache write are the epilogue of
//       gemv_kq_rope.wgsl (one dispatch in decode; rows of W per invocation lowered until N is whole workgroups of
//       row pairs); where none fits (or a stack needs several GEMV dispatches, or the device binds fewer than 10
//       storage buffers), and on the GEMM routes, the projection goes to scratch and rope_qkv.wgsl follows.
//       norm_weight [Kb + N]: the norm weight, then from element Kb = K rounded up to a multiple of 64 the q/k/v
//       bias [N] (Qwen2's), added to y before RoPE (the epilogue reads it from the norm's binding: the kernel has no
//       11th storage binding; the other routes bind it as a 256-byte-aligned range). No bias without a norm.
//       The caches f32 or f16 (D % 4 == 0; both kernels are built for their dtype, kv_cache.h kv_prelude).
//       Errors: build-time shape mismatches (InvalidArgument); at execute input_pos < 0 or input_pos + S past
//       the cache or the tables (LimitError naming the node; nothing written, the graph usable).
// Build and resize run on the graph's build / execute thread.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <variant>

#include <wgrt/error.h>

#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "graph/uniform_layout.h"
#include "ops/families.h"
#include "ops/kv_cache/kv_cache.h"
#include "ops/linear/gemm.h"
#include "ops/linear/linear_fusion.h"
#include "ops/linear/linear_ggml.h"
#include "ops/rope/rope_qkv.h"
#include "webgpu/device.h"
#include "webgpu/pipeline_cache.h"

namespace wgrt::ops {

std::optional<GgmlBlockShape> ggml_gpu_block(int64_t wtype) {
  switch (wtype) {
    case 1: case 30: return GgmlBlockShape{1, 2};      // F16, BF16
    case 2: case 20: return GgmlBlockShape{32, 18};    // Q4_0, IQ4_NL
    case 3: return GgmlBlockShape{32, 20};             // Q4_1
    case 6: return GgmlBlockShape{32, 22};             // Q5_0
    case 7: return GgmlBlockShape{32, 24};             // Q5_1
    case 8: return GgmlBlockShape{32, 34};             // Q8_0
    case 39: return GgmlBlockShape{32, 17};            // MXFP4
    case 10: return GgmlBlockShape{256, 84};           // Q2_K
    case 11: return GgmlBlockShape{256, 110};          // Q3_K
    case 12: return GgmlBlockShape{256, 144};          // Q4_K
    case 13: return GgmlBlockShape{256, 176};          // Q5_K
    case 14: return GgmlBlockShape{256, 212};          // Q6_K, padded from 210 (ggml_to_gpu_layout)
    case 23: return GgmlBlockShape{256, 136};          // IQ4_XS
    case 16: return GgmlBlockShape{256, 66};           // IQ2_XXS (the grid i-quants: ggml_decode_iq.wgsl)
    case 17: return GgmlBlockShape{256, 74};           // IQ2_XS
    case 22: return GgmlBlockShape{256, 82};           // IQ2_S
    case 18: return GgmlBlockShape{256, 98};           // IQ3_XXS
    case 21: return GgmlBlockShape{256, 110};          // IQ3_S
    case 19: return GgmlBlockShape{256, 50};           // IQ1_S
    case 29: return GgmlBlockShape{256, 56};           // IQ1_M
    default: return std::nullopt;
  }
}

namespace {
constexpr int64_t kQ6KFileBytes = 210;
// Bytes per block in a file: the GPU's except Q6_K's.
int64_t file_block_bytes(int64_t wtype, const GgmlBlockShape& blk) { return wtype == 14 ? kQ6KFileBytes : blk.bytes; }
GgmlBlockShape checked_block(int64_t wtype, uint64_t file_bytes) {
  const auto blk = ggml_gpu_block(wtype);
  if (!blk) throw InvalidArgument(fmt::format("weight type id {} has no GPU kernel", wtype));
  if (file_bytes % uint64_t(file_block_bytes(wtype, *blk)) != 0)
    throw InvalidArgument(fmt::format("{} bytes of weight type id {} are not whole blocks of {} bytes", file_bytes, wtype,
                                      file_block_bytes(wtype, *blk)));
  return *blk;
}
}  // namespace

uint64_t ggml_gpu_bytes(int64_t wtype, uint64_t file_bytes) {
  const GgmlBlockShape blk = checked_block(wtype, file_bytes);
  return file_bytes / uint64_t(file_block_bytes(wtype, blk)) * uint64_t(blk.bytes);
}

uint64_t ggml_to_gpu_layout(int64_t wtype, std::span<const uint8_t> file, uint8_t* dst) {
  const GgmlBlockShape blk = checked_block(wtype, file.size());
  const size_t fb = size_t(file_block_bytes(wtype, blk)), gb = size_t(blk.bytes), n = file.size() / fb;
  if (fb == gb) {
    std::memcpy(dst, file.data(), file.size());
    return file.size();
  }
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(dst + i * gb, file.data() + i * fb, fb);
    std::memset(dst + i * gb + fb, 0, gb - fb);
  }
  return uint64_t(n * gb);
}

std::vector<uint8_t> ggml_to_gpu_layout(int64_t wtype, std::span<const uint8_t> file) {
  std::vector<uint8_t> out(size_t(ggml_gpu_bytes(wtype, file.size())));
  ggml_to_gpu_layout(wtype, file, out.data());
  return out;
}

std::vector<GgmlRowChunk> ggml_row_chunks(int64_t rows, uint64_t row_bytes, uint64_t max_binding_bytes) {
  const uint64_t total = uint64_t(rows) * row_bytes, padded = (total + 3) / 4 * 4;
  if (padded <= max_binding_bytes) return {{0, rows, 0, padded}};
  const int64_t per = int64_t(max_binding_bytes / row_bytes / 256 * 256);
  if (per == 0)
    throw LimitError(fmt::format("256 weight rows of {} bytes exceed maxStorageBufferBindingSize {}", row_bytes,
                                 max_binding_bytes));
  std::vector<GgmlRowChunk> c;
  for (int64_t r0 = 0; r0 < rows; r0 += per) {
    const int64_t n = std::min(per, rows - r0);
    const uint64_t off = uint64_t(r0) * row_bytes, end = std::min(off + uint64_t(n) * row_bytes + 3, total + 3) / 4 * 4;
    c.push_back({r0, n, off, end - off});
  }
  return c;
}

GgmlStack ggml_stack_layout(const std::vector<std::pair<int64_t, int64_t>>& type_rows, int64_t K) {
  GgmlStack st;
  int64_t row0 = 0;
  uint64_t end = 0;
  for (size_t i = 0; i < type_rows.size(); ++i) {
    const auto [t, rows] = type_rows[i];
    const auto blk = ggml_gpu_block(t);
    if (!blk) throw InvalidArgument(fmt::format("weight part {}: type id {} has no GPU kernel", i, t));
    if (K <= 0 || K % blk->elems != 0)
      throw InvalidArgument(fmt::format("weight part {}: K = {} must be a positive multiple of the block size {}", i, K,
                                        blk->elems));
    if (rows <= 0) throw InvalidArgument(fmt::format("weight part {} has {} rows", i, rows));
    const uint64_t offset = (end + 255) / 256 * 256, row_bytes = uint64_t(K / blk->elems) * uint64_t(blk->bytes);
    st.parts.push_back({t, row0, rows, offset, row_bytes});
    row0 += rows;
    end = offset + uint64_t(rows) * row_bytes;
  }
  st.bytes = (end + 3) / 4 * 4;
  return st;
}

bool ggml_gemv_blocks_type(int64_t wtype) {
  return wtype == 3 || wtype == 6 || wtype == 8 || wtype == 12 || wtype == 13 || wtype == 14;
}

bool ggml_mmq_type(int64_t wtype) {
  return wtype == 2 || wtype == 3 || wtype == 6 || wtype == 7 || wtype == 8 || wtype == 12 || wtype == 13 || wtype == 14;
}

namespace {

// Rows of x per grid layer of the gemv_kq.wgsl routes 0..3 (route 3: the policy's ggml_gemv_max_mb, 4 or 8).
int block_route(int64_t M) { return M <= 1 ? 0 : M <= 2 ? 1 : M <= 4 ? 2 : 3; }

struct Params {
  uint32_t N, K, has_bias, n_base, nwg, out_stride, row_bytes, M;
  float eps;  // fused RMSNorm
  uint32_t n_split, wg_split, off2, row_bytes2;  // a two-type stack in one dispatch (gemv_kq.wgsl WTYPE2)
};
WGRT_UNIFORM(Params, N, K, has_bias, n_base, nwg, out_stride, row_bytes, M, eps, n_split, wg_split, off2, row_bytes2);

// Argument 2: one type id for all N rows, or the int list [type_0, rows_0, type_1, rows_1] (ggml_stack_layout).
std::vector<std::pair<int64_t, int64_t>> weight_parts(OpBuilder& b, int64_t N) {
  if (!std::holds_alternative<IntList>(b.value(2))) return {{b.int_arg(2), N}};
  const IntList& l = b.int_list(2);
  b.check(l.size() == 2 || l.size() == 4, "wtype list {} must be [type, rows] or [type_0, rows_0, type_1, rows_1]",
          fmt::join(l, ", "));
  std::vector<std::pair<int64_t, int64_t>> v;
  int64_t rows = 0;
  for (size_t i = 0; i < l.size(); i += 2) v.push_back({l[i], l[i + 1]}), rows += l[i + 1];
  b.check(rows == N, "the weight parts' rows sum to {}, not N = {}", rows, N);
  b.check(v.size() == 1 || v[0].first != v[1].first, "the two weight parts have the same type {}: give one part of {} rows",
          v[0].first, N);
  return v;
}

struct RopeParams {  // gemv_kq_rope.wgsl's RopeParams
  uint32_t pos, hq, hkv, c_max;
};
WGRT_UNIFORM(RopeParams, pos, hq, hkv, c_max);

enum class Kind { Plain, Fused, RopeQkv };
// wgrt.linear_ggml_rope_qkv's arguments.
enum RopeArg : size_t { RX, RW, RWTYPE, RN, RNORM, REPS, RCOS, RSIN, RCS, RPOS, RHQ, RHKV, RHF, RKC, RVC, RQOUT, RNARGS };

// One binding range of one weight type: rows n0 .. n0 + rows - 1 of W.
struct Segment {
  int64_t wtype, n0, rows;
  uint64_t offset, size, row_bytes;
};

// wgrt.linear_ggml_rope_qkv: the norm weight (f32 [K], or [Kb + N] with the q/k/v bias from Kb = rope_bias_start(K);
// None: no norm, no bias) and eps as a Fusion (no residual, no GLU); *bias: whether the bias is there.
Fusion rope_fusion(OpBuilder& b, const Dims& xd, int64_t N, bool* bias) {
  Fusion fu;
  fu.eps = float(b.real_arg(REPS));
  b.check(fu.eps >= 0, "eps {} must be >= 0", fu.eps);
  *bias = false;
  if (!b.is_none(RNORM)) {
    b.check_dtype(RNORM, DType::F32);
    const int64_t K = xd.back(), kb = rope_bias_start(K);
    const Dims& nd = b.tensor(RNORM).dims;
    *bias = nd == Dims{kb + N};
    b.check(nd == Dims{K} || *bias, "norm_weight '{}' {} must be [{}] (the norm weight) or [{}] (then the q/k/v bias of "
            "{} rows from element {})", b.tensor(RNORM).name, dims_str(nd), K, kb + N, N, kb);
    fu.norm = int(RNORM);
  }
  return fu;
}

struct RopeShape {
  int64_t hq, hkv, D, c_max, rows;  // rows: positions the cache and the tables hold
  bool hf, rotate;
  DType kv_type;  // the caches' (f32, or f16 with D % 4 == 0)
};
RopeShape rope_shape(OpBuilder& b, const Dims& xd, int64_t N) {
  RopeShape r{};
  r.hq = b.int_arg(RHQ), r.hkv = b.int_arg(RHKV), r.hf = b.bool_arg(RHF), r.rotate = !b.is_none(RCOS);
  b.check(b.is_none(RSIN) != r.rotate && b.is_none(RCS) != r.rotate,
          "the RoPE tables cos, sin and cos_sin must all be given or all None");
  b.check(r.hq > 0 && r.hkv > 0 && r.hq % r.hkv == 0, "head counts {} / {}: Hq must be a positive multiple of Hkv", r.hq, r.hkv);
  for (size_t i : {RKC, RVC}) b.check_rank(i, 4, 4);
  r.kv_type = check_kv_cache_dtype(b, RKC, RVC);
  const Dims kc = b.tensor(RKC).dims;
  b.check(kc == b.tensor(RVC).dims && kc[0] == 1 && kc[2] == r.hkv, "caches {} / {} must be [1, C_max, Hkv = {}, D]",
          dims_str(kc), dims_str(b.tensor(RVC).dims), r.hkv);
  r.D = kc[3], r.c_max = kc[1], r.rows = kc[1];
  b.check(r.D > 0 && r.D % 2 == 0, "head dim {} (the caches' last dim) must be even", r.D);
  b.check(N == (r.hq + 2 * r.hkv) * r.D, "N = {} must be (Hq + 2 Hkv) * D = ({} + 2 * {}) * {}", N, r.hq, r.hkv, r.D);
  b.check(xd.size() == 3 && xd[0] == 1, "x {} must be [1, S, K]", dims_str(xd));
  b.check(b.tensor(RQOUT).dims == Dims{1, xd[1], r.hq, r.D}, "q_out {} must be [1, {}, {}, {}]",
          dims_str(b.tensor(RQOUT).dims), xd[1], r.hq, r.D);
  if (r.rotate) {
    for (size_t i : {RCOS, RSIN, RCS}) b.check_dtype(i, DType::F32);
    const Dims c = b.tensor(RCOS).dims;
    b.check(c.size() == 2 && c[1] == r.D / 2 && c == b.tensor(RSIN).dims && b.tensor(RCS).dims == Dims{c[0], r.D},
            "RoPE tables cos {} / sin {} / cos_sin {} must be [C, D/2], [C, D/2], [C, D] (D = {})", dims_str(c),
            dims_str(b.tensor(RSIN).dims), dims_str(b.tensor(RCS).dims), r.D);
    r.rows = std::min(r.rows, c[0]);
  }
  b.int_arg(RPOS);
  return r;
}

void build_linear_ggml(OpBuilder& b, Kind kind) {
  const bool fused_op = kind != Kind::Plain, rope = kind == Kind::RopeQkv;
  const size_t oi = rope ? RQOUT : fused_op ? 9 : 5;
  b.check_args(rope ? RNARGS : fused_op ? 10 : 6);
  b.check_dtype(0, DType::F32);
  b.check_dtype(oi, DType::F32);
  b.check_rank(0, 1, 8);
  const Dims xd = b.tensor(0).dims;
  const int64_t K = xd.back(), N = b.int_arg(3);
  b.check(N > 0 && N < (int64_t(1) << 31), "N = {} is out of range", N);
  GgmlStack stack;
  try {
    stack = ggml_stack_layout(weight_parts(b, N), K);
  } catch (const InvalidArgument& e) {
    b.check(false, "{} (x '{}')", e.what(), b.tensor(0).name);
  }
  const int64_t wtype = stack.parts[0].wtype;
  const bool mixed = stack.parts.size() == 2;
  const TensorValue& w = b.tensor(1);
  b.check(w.dtype == DType::U32 && w.dims.size() == 1 && uint64_t(w.dims[0]) == stack.bytes / 4,
          "weight '{}' must be u32 [{}] (N {} rows of {} bytes{}, padded to words), got {} {}", w.name, stack.bytes / 4, N,
          stack.parts[0].row_bytes, mixed ? " and more in the second part" : "", dtype_name(w.dtype), dims_str(w.dims));
  bool rope_bias = false;
  const Fusion fu = rope ? rope_fusion(b, xd, N, &rope_bias) : fused_op ? fusion_args(b, xd, N) : Fusion{};
  const bool has_bias = rope ? rope_bias : !b.is_none(4);
  if (has_bias && !rope) {
    b.check_dtype(4, DType::F32);
    b.check(b.tensor(4).dims == Dims{N}, "bias '{}' {} must be [{}]", b.tensor(4).name, dims_str(b.tensor(4).dims), N);
  }
  const uint64_t max_binding = b.device().tuning().max_binding_bytes;
  std::vector<Segment> segs;
  for (const GgmlStackPart& pt : stack.parts) {
    try {
      for (const GgmlRowChunk& c : ggml_row_chunks(pt.rows, pt.row_bytes, max_binding))
        segs.push_back({pt.wtype, pt.row0 + c.row0, c.rows, pt.offset + c.offset, c.size, pt.row_bytes});
    } catch (const LimitError& e) {
      b.check(false, "{}", e.what());
    }
  }
  bool all_blocks_types = true, all_mmq = true;
  for (const GgmlStackPart& pt : stack.parts) {
    all_blocks_types = all_blocks_types && ggml_gemv_blocks_type(pt.wtype);
    all_mmq = all_mmq && ggml_mmq_type(pt.wtype);
  }

  b.check(!fused_op || all_blocks_types,
          "weight type id {} has no fused kernel (Q4_1, Q5_0, Q8_0, Q4_K, Q5_K, Q6_K); use wgrt.linear_ggml{}",
          ggml_gemv_blocks_type(wtype) ? stack.parts.back().wtype : wtype, rope ? " and wgrt.rope_qkv_cache" : "");
  const std::optional<RopeShape> rs = rope ? std::optional<RopeShape>(rope_shape(b, xd, N)) : std::nullopt;
  b.check(!mixed || !fu.act, "a GLU pairs rows of one weight type; the stack has two");
  const int64_t Nout = fu.act ? N / 2 : N;
  const bool blocks = fused_op || (b.device().tuning().ggml_gemv_blocks && all_blocks_types);
  // Which fusions run inside the GEMV (the policy's fused_gemv; the GLU pairs rows of one unsplit weight).
  const bool fuse_gemv = rope || (fused_op && b.device().tuning().fused_gemv);
  const bool gemv_glu = fuse_gemv && fu.act && segs.size() == 1;
  const int n_gemv = blocks ? 4 : 1, gemm_route = n_gemv;  // GEMV routes 0 .. n_gemv - 1, then the GEMM
  const int mmq_route = gemm_route + 1;                     // then the int8 GEMM
  // gemv_kq's x per GEMV route before the workgroup-memory fit below (the policy's ggml_gemv_int8 where the device
  // has packed int8 dot products): 0 f32, 1 int8 from the quantize pass (the norm then its own dispatch: the pass
  // reads the normalized x), 2 int8 staged by each workgroup after the fused norm (routes wider than the policy's
  // ggml_gemv_int8_staged_rows rows of x take 1).
  const uint32_t want_xq = blocks && b.device().has_packed_dot() ? b.device().tuning().ggml_gemv_int8 : 0;
  const std::array<uint32_t, 4> block_rows = {1, 2, 4, b.device().tuning().ggml_gemv_max_mb == 4 ? 4u : 8u};
  uint32_t xq[4] = {0, 0, 0, 0};
  for (int r = 0; r < n_gemv; ++r)
    xq[r] = want_xq == 2 && block_rows[r] > b.device().tuning().ggml_gemv_int8_staged_rows ? 1 : want_xq;
  // gemv_kq rows of W per invocation per route: the policy's for this type (the fewer of the two types' in a stack)
  // and for whether the route's GEMV holds the norm (not where its x comes from the quantize pass), capped so that
  // MB * RPT <= 16.
  const bool norm_fused = fuse_gemv && fu.norm >= 0;
  auto rule_rpt = [&](bool norm) {
    uint32_t r = 16;
    for (const GgmlStackPart& pt : stack.parts) r = std::min(r, b.device().tuning().ggml_gemv_rpt_for(pt.wtype, N, norm));
    return r;
  };
  uint32_t rpt[4] = {1, 1, 1, 1};
  // The streamed chunks (gemv_kq.wgsl STREAM) on the one-row route with f32 x where the policy has them, at their
  // own rows of W per invocation.
  bool stream[4] = {false, false, false, false};
  for (int i = 0; i < n_gemv; ++i) stream[i] = b.device().tuning().ggml_gemv_stream && block_rows[i] == 1 && xq[i] == 0;
  // RoPE in the GEMV's epilogue (gemv_kq_rope.wgsl) needs N a whole number of workgroups (of pairs): rows of W per
  // invocation are lowered until it is; where even 1 does not fit (or the stack needs several GEMV dispatches,
  // below), the GEMV routes write the projection and rope_qkv.wgsl follows.
  auto rope_fits = [&](uint32_t r) { return N % (8 * r) == 0; };
  bool rope_epi = rope && b.device().limits().maxStorageBuffersPerShaderStage >= 10;  // gemv_kq_rope.wgsl binds 10
  for (int i = 0; i < 4; ++i) {
    rpt[i] = !blocks    ? 1
             : stream[i] ? b.device().tuning().ggml_gemv_stream_rpt
                         : std::min(rule_rpt(norm_fused && xq[i] != 1), 16 / block_rows[i]);
    // A streamed route's wide workgroups (8 * 16 rows) are lowered until a two-type stack's first part is whole
    // workgroups, so that the stack stays one dispatch (one_gemv below).
    while (stream[i] && mixed && rpt[i] > 1 && stack.parts[0].rows % (8 * rpt[i]) != 0) rpt[i] /= 2;
    while (rope_epi && rpt[i] > 1 && !rope_fits(rpt[i])) rpt[i] /= 2;
    if (rope_epi && !rope_fits(rpt[i])) rope_epi = false;
  }
  // gemv_kq's chunks per k lane as a constant (KCH) where K holds exactly KCH * TK chunks of both types (chunks of 64
  // elements for the K-quants, 32 for the others) and KCH is within the policy's ggml_gemv_const_chunks; else 0.
  auto const_chunks = [&](int64_t wt, int64_t wt2) -> double {
    const int64_t tk = int64_t(b.device().tuning().ggml_gemv_tk);
    auto per_lane = [&](int64_t t) {
      const int64_t chunks = K / (t >= 12 ? 64 : 32);
      return chunks % tk == 0 ? chunks / tk : 0;
    };
    const int64_t kch = per_lane(wt);
    return kch == per_lane(wt2) && kch <= int64_t(b.device().tuning().ggml_gemv_const_chunks) ? double(kch) : 0.0;
  };
  auto kq_spec = [&](int route, uint32_t xq, bool norm, int64_t wt, int64_t wt2) -> webgpu::KernelSpec {
    webgpu::KernelSpec k{"ops/linear/gemv_kq.wgsl", "main",
            {{"WTYPE", double(wt)}, {"WTYPE2", double(wt2)}, {"MB", double(block_rows[route])}, {"RPT", double(rpt[route])},
             {"NORM", norm ? 1.0 : 0.0}, {"EPI", gemv_glu ? 1.0 + fu.act : fu.res >= 0 ? 1.0 : 0.0},
             {"XQ", double(xq)}, {"XB", xq == 2 ? double(K / 32) : 1.0}, {"KCH", const_chunks(wt, wt2)},
             {"TK", double(b.device().tuning().ggml_gemv_tk)}, {"STREAM", stream[route] ? 1.0 : 0.0}}, {}};
    if (rope_epi) {
      k.shader = "ops/linear/gemv_kq_rope.wgsl";
      for (auto& [name, v] : k.constants)
        if (name == "EPI") v = rs->hf ? 4.0 : 5.0;
      k.constants.insert(k.constants.end(), {{"RHALF", double(rs->D / 2)}, {"ROTATE", rs->rotate ? 1.0 : 0.0}});
      k.prelude = kv_prelude(rs->kv_type);
    }
    return k;
  };
  // Where mode 2's staging does not fit the workgroup memory: 1 row of W per invocation, which shrinks the reduction
  // buffer, else mode 1.
  const uint64_t smem = b.device().limits().maxComputeWorkgroupStorageSize;
  bool gemv_norm[4] = {false, false, false, false}, glu_in[4] = {gemv_glu, gemv_glu, gemv_glu, gemv_glu};
  for (int r = 0; r < n_gemv; ++r) {
    auto fits = [&] { return webgpu::PipelineCache::reflect(kq_spec(r, 2, norm_fused, wtype, wtype)).workgroup_bytes <= smem; };
    if (xq[r] == 2 && !fits() && rpt[r] > 1) {
      const uint32_t policy_rpt = rpt[r];
      rpt[r] = 1;
      if (!fits()) rpt[r] = policy_rpt;
    }
    if (xq[r] == 2 && !fits()) xq[r] = 1;
    gemv_norm[r] = norm_fused && xq[r] != 1;
  }
  // A two-type stack runs as one GEMV dispatch (WTYPE2) where both parts fit one binding and the first part's rows
  // are whole workgroups on every route; else one dispatch per segment.
  uint32_t max_rpt = 1;
  for (int r = 0; r < n_gemv; ++r) max_rpt = std::max(max_rpt, rpt[r]);
  const bool one_gemv = blocks && mixed && segs.size() == 2 && stack.bytes <= max_binding &&
                        stack.parts[0].rows % (8 * max_rpt) == 0;
  if (segs.size() > 1 && !one_gemv) rope_epi = false;
  auto gemv_spec = [&](int route, int64_t wt, int64_t wt2) -> webgpu::KernelSpec {
    if (!blocks) return {"ops/linear/gemv_ggml.wgsl", "main", {{"WTYPE", double(wt)}}, {}};
    return kq_spec(route, xq[route], gemv_norm[route], wt, wt2);
  };
  const Binding x = Binding::tensor(b.arg(0)), out = Binding::tensor(b.arg(oi));
  // The bias (unused binding x when there is none); the rope op's is the tail of its norm-and-bias vector.
  const Binding bias = !has_bias ? x
                       : rope    ? Binding::tensor_range(b.arg(RNORM), uint64_t(rope_bias_start(K)) * 4, uint64_t(N) * 4)
                                 : Binding::tensor(b.arg(4));
  const Binding res = fu.res >= 0 ? Binding::tensor(b.arg(size_t(fu.res))) : x;
  const Binding nw = fu.norm >= 0 ? Binding::tensor(b.arg(size_t(fu.norm))) : x;
  const bool has_gemm = gemm_config(b.device()).kind == GemmConfig::Kind::Tiled;
  const uint32_t mmq_min_tiles =
      b.device().has_packed_dot() && all_mmq ? b.device().tuning().gemm.mmq_ggml_min_tiles : 0;
  const bool has_mmq = mmq_min_tiles > 0;
  const int64_t mmq_min_rows = b.device().tuning().gemm.mmq_ggml_min_rows;
  // The norm and the GLU as their own dispatches through scratch (routes: side_routes below).
  const int64_t max_m = numel(xd) / K;
  std::optional<ScratchRef> xn, y;
  if (fu.norm >= 0) xn = b.scratch(uint64_t(max_m * K) * 4, "normalized x");
  if (fu.act) y = b.scratch(uint64_t(max_m * N) * 4, "gate and up");
  if (rope && (!rope_epi || has_gemm || has_mmq))
    y = b.scratch(uint64_t(max_m * N) * 4, "q/k/v before RoPE");  // the routes that run rope_qkv.wgsl after them
  std::vector<SideDispatch> norms, glus;
  auto gemv_x = [&](int route) { return xn && !gemv_norm[route] ? Binding(*xn) : x; };
  const Binding gemm_x = xn ? Binding(*xn) : x;
  const Binding gemv_out = y && !gemv_glu && !rope_epi ? Binding(*y) : out, gemm_out = y ? Binding(*y) : out;
  const Binding gemm_bias = fu.res >= 0 ? res : bias;
  auto gemm_spec = [](int64_t wt) -> webgpu::KernelSpec {
    return {"ops/linear/gemm_big.wgsl", "main", {{"B_MODE", 2}, {"WTYPE", double(wt)}}, {}};
  };
  const GemmConfig big_cfg = gemm_big_config();
  const int64_t gemv_max_rows = b.device().tuning().gemv_max_rows;
  const webgpu::MmqTile mmq_tile = b.device().tuning().gemm_mmq_ggml_tile(max_m, N);
  const GemmConfig mmq_cfg = has_mmq ? gemm_mmq_config(mmq_tile) : GemmConfig{};
  if (has_mmq)
    for (const GgmlStackPart& pt : stack.parts) check_mmq_fits(b.device(), gemm_mmq_ggml_kernel(pt.wtype, mmq_tile));
  // Routes of a side dispatch (in_gemv: whether each GEMV route fuses it): every route (-1) when no GEMV route
  // fuses it, else each GEMV route that does not and each GEMM route's group (the f32 GEMM, the int8 GEMM), one
  // dispatch per route.
  auto side_routes = [&](const bool* in_gemv) {
    if (std::count(in_gemv, in_gemv + n_gemv, true) == 0) return std::vector<int>{-1};
    std::vector<int> v;
    for (int r = 0; r < n_gemv; ++r)
      if (!in_gemv[r]) v.push_back(r);
    if (has_gemm) v.push_back(gemm_route);
    if (has_mmq) v.push_back(mmq_route);
    return v;
  };
  if (fu.norm >= 0) for (int rt : side_routes(gemv_norm)) norms.push_back(add_side_norm(b, x, nw, *xn, rt));
  UniformRef q8_u;
  std::vector<DispatchRef> q8_d;  // x quantized once for all chunks: one dispatch per route that reads it (the
  Binding qa = x, da = x;         // XQ 1 GEMV routes, the int8 GEMM), of the normalized x when fused
  std::vector<int> q8_routes;
  for (int r = 0; r < n_gemv; ++r)
    if (xq[r] == 1) q8_routes.push_back(r);
  if (has_mmq) q8_routes.push_back(mmq_route);
  if (!q8_routes.empty()) {
    qa = b.scratch(q8_bytes(uint64_t(max_m), uint64_t(K)), "int8 activations");
    da = b.scratch(q8_scale_bytes(uint64_t(max_m), uint64_t(K)), "int8 activation scales");
    q8_u = b.uniform<Q8Params>();
    for (int rt : q8_routes) q8_d.push_back(b.dispatch(quantize_q8_kernel(true), {gemm_x, qa, da, q8_u}, rt));
  }
  auto seg_binding = [&](const Segment& sg) {
    return segs.size() == 1 ? Binding::tensor(b.arg(1)) : Binding::tensor_range(b.arg(1), sg.offset, sg.size);
  };
  const UniformRef rope_u = rope_epi ? b.uniform<RopeParams>() : UniformRef{};
  // The GEMV dispatches: one over both segments (one_gemv), else one per segment.
  struct GemvPart {
    Segment a;
    std::optional<Segment> b2;  // the second type's rows (one_gemv)
    UniformRef u;
    std::vector<DispatchRef> d;  // per GEMV route
  };
  std::vector<GemvPart> gemvs;
  for (size_t i = 0; i < segs.size(); ++i) {
    GemvPart gp{segs[i], std::nullopt, b.uniform<Params>(), {}};
    Binding wb = seg_binding(segs[i]);
    if (one_gemv) gp.b2 = segs[1], wb = Binding::tensor(b.arg(1));
    const int64_t wt2 = gp.b2 ? gp.b2->wtype : gp.a.wtype;
    for (int route = 0; route < n_gemv; ++route) {
      const webgpu::KernelSpec k = gemv_spec(route, gp.a.wtype, wt2);
      if (rope_epi)  // gemv_kq_rope.wgsl: the table at 2, q_out at 3, the caches at 6 and 10, its uniform at 11
        gp.d.push_back(b.dispatch(k, {gemv_x(route), wb, rs->rotate ? Binding::tensor(b.arg(RCS)) : x, out, gp.u, nw,
                                      Binding::tensor(b.arg(RKC)), qa, da, wb, Binding::tensor(b.arg(RVC)), rope_u}, route));
      else if (blocks)
        gp.d.push_back(b.dispatch(k, {gemv_x(route), wb, bias, gemv_out, gp.u, nw, res, qa, da, wb}, route));
      else
        gp.d.push_back(b.dispatch(k, {x, wb, bias, out, gp.u}, route));
    }
    gemvs.push_back(gp);
    if (one_gemv) break;
  }
  struct GemmPart {
    Segment s;
    UniformRef gu;
    DispatchRef gd, md;
  };
  std::vector<GemmPart> gemms;
  for (const Segment& sg : segs) {
    if (!has_gemm && !has_mmq) break;
    GemmPart gp{sg, b.uniform<GemmParams>(), {}, {}};
    const Binding wb = seg_binding(sg);
    if (has_gemm) gp.gd = b.dispatch(gemm_spec(sg.wtype), {gemm_x, wb, x, gemm_bias, gemm_out, gp.gu}, gemm_route);
    if (has_mmq) gp.md = b.dispatch(gemm_mmq_ggml_kernel(sg.wtype, mmq_tile), {qa, wb, gemm_bias, gemm_out, gp.gu, da}, mmq_route);
    gemms.push_back(gp);
  }
  if (fu.act) for (int rt : side_routes(glu_in)) glus.push_back(add_side_glu(b, fu.act, *y, out, rt));
  // RoPE and the cache write after the GEMM routes, and after the GEMV routes where their epilogue does not have it.
  std::vector<RopeQkvDispatch> ropes;
  for (int rt = 0; rope && rt <= mmq_route; ++rt) {
    if ((rt < n_gemv && rope_epi) || (rt == gemm_route && !has_gemm) || (rt == mmq_route && !has_mmq)) continue;
    auto tab = [&](size_t i) { return rs->rotate ? std::optional<Binding>(Binding::tensor(b.arg(i))) : std::nullopt; };
    ropes.push_back(add_rope_qkv(b, *y, tab(RCOS), tab(RSIN), std::nullopt, out, Binding::tensor(b.arg(RKC)),
                                 Binding::tensor(b.arg(RVC)), rs->hf, rs->kv_type, rt));
  }
  b.on_resize([=](ResizeContext& r) {
    Dims d = r.tensor(0).dims;
    if (d.empty() || d.back() != K)
      r.fail("x '{}' has live dims {}; the last dim must stay {} (K)", r.tensor(0).name, dims_str(d), K);
    const int64_t M = numel(d) / K;
    if (rope) {
      const int64_t pos = r.int_arg(RPOS);
      if (d.size() != 3 || d[0] != 1) r.fail("live x {} must be [1, S, {}]", dims_str(d), K);
      check_rope_positions(r, pos, M, rs->rows);
      resize_fusion(r, fu, norms, glus, d, N);
      r.set_dims(oi, {1, M, rs->hq, rs->D});
      if (rope_epi) r.set_uniform(rope_u, RopeParams{uint32_t(pos), uint32_t(rs->hq), uint32_t(rs->hkv), uint32_t(rs->c_max)});
      for (const RopeQkvDispatch& rd : ropes) set_rope_qkv(r, rd, 1, M, pos, rs->hq, rs->hkv, rs->D, rs->c_max, false);
    } else {
      r.set_dims(oi, resize_fusion(r, fu, norms, glus, d, N));
    }
    const uint64_t tiles = div_up(uint64_t(M), 128) * div_up(uint64_t(N), 128);
    const bool mmq = has_mmq && M > gemv_max_rows && M >= mmq_min_rows && tiles >= mmq_min_tiles;
    const bool gemm = !mmq && has_gemm && M > gemv_max_rows;
    const int route = mmq ? mmq_route : gemm ? gemm_route : blocks ? block_route(M) : 0;
    const uint32_t rows_per_layer = blocks ? block_rows[block_route(M)] : 8;
    r.select_route(route);
    if (!q8_d.empty()) {  // (only the selected route's runs)
      r.set_uniform(q8_u, Q8Params{uint32_t(uint64_t(M) * uint64_t(K) / 32), 0, 0, 0});
      for (const DispatchRef& d : q8_d) r.set_invocations(d, uint64_t(M) * uint64_t(K) / 32);
    }
    // Rows of W per workgroup; with the GLU inside, half of them gate and half up rows of as many outputs.
    const uint32_t wg_rows = 8 * (blocks && route < n_gemv ? rpt[route] : 1), wg_outs = gemv_glu ? wg_rows / 2 : wg_rows;
    const uint32_t layers = uint32_t(std::max<int64_t>((M + rows_per_layer - 1) / rows_per_layer, 1));
    for (const GemvPart& p : gemvs) {
      const int64_t rows = p.a.rows + (p.b2 ? p.b2->rows : 0);
      const uint32_t nwg_a = uint32_t(((gemv_glu ? Nout : p.a.rows) + wg_outs - 1) / wg_outs);
      const uint32_t nwg = p.b2 ? nwg_a + uint32_t((p.b2->rows + wg_rows - 1) / wg_rows) : nwg_a;
      Params u{uint32_t(rows), uint32_t(K), has_bias, uint32_t(p.a.n0), nwg, uint32_t(gemv_glu ? Nout : N),
               uint32_t(p.a.row_bytes), uint32_t(M), fu.eps, uint32_t(rows), 0xffffffffu, 0, 0};
      if (p.b2) u.n_split = uint32_t(p.a.rows), u.wg_split = nwg_a, u.off2 = uint32_t(p.b2->offset), u.row_bytes2 = uint32_t(p.b2->row_bytes);
      r.set_uniform(p.u, u);
      for (int i = 0; i < n_gemv; ++i) r.set_workgroups(p.d[size_t(i)], i == route ? nwg : 0, layers);
    }
    for (const GemmPart& p : gemms) {
      GemmParams g;
      g.M = uint32_t(M);
      g.N = uint32_t(p.s.rows);
      g.K = uint32_t(K);
      g.a_sm = uint32_t(K);
      g.b_sn = uint32_t(p.s.row_bytes);
      g.c_off = uint32_t(p.s.n0);
      g.c_sm = uint32_t(N);
      g.bias_off = uint32_t(p.s.n0);
      g.has_bias = has_bias || fu.res >= 0;
      if (fu.res >= 0) g.bias_sm = uint32_t(N);  // the residual as the bias term: row m of [M, N]
      r.set_uniform(p.gu, g);
      Grid grid{0, 1, 1};
      if (gemm || mmq) {
        try {
          grid = gemm_grid(mmq ? mmq_cfg : big_cfg, g, r.max_workgroups_per_dim());
        } catch (const InvalidArgument& e) {
          r.fail("{}", e.what());
        }
      }
      if (has_gemm) r.set_grid(p.gd, gemm ? grid : Grid{0, 1, 1});
      if (has_mmq) r.set_grid(p.md, mmq ? grid : Grid{0, 1, 1});
    }
  });
}

}  // namespace

int64_t rope_bias_start(int64_t K) { return (K + 63) / 64 * 64; }

void register_linear_ggml_ops(OpRegistry& r) {
  const std::vector<std::string> kernels = {"ops/linear/gemv_ggml.wgsl:main", "ops/linear/gemv_kq.wgsl:main",
                                            "ops/linear/gemm_big.wgsl:main", "ops/linear/gemm_mmq_ggml.wgsl:main",
                                            "ops/linear/quantize_q8.wgsl:main"};
  r.add({"wgrt.linear_ggml.default", [](OpBuilder& b) { build_linear_ggml(b, Kind::Plain); }, kernels, true});
  std::vector<std::string> fused = kernels;
  fused.insert(fused.end(), {"ops/norm/rms_norm.wgsl:main", "ops/elementwise/swiglu.wgsl:main"});
  r.add({"wgrt.linear_ggml_fused.default", [](OpBuilder& b) { build_linear_ggml(b, Kind::Fused); }, fused, true});
  std::vector<std::string> roped = fused;
  roped.insert(roped.end(), {"ops/linear/gemv_kq_rope.wgsl:main", "ops/rope/rope_qkv.wgsl:main"});
  r.add({"wgrt.linear_ggml_rope_qkv.default", [](OpBuilder& b) { build_linear_ggml(b, Kind::RopeQkv); }, roped, true});
}

}  // namespace wgrt::ops
