#include "webgpu/tuning.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "wgrt/error.h"

namespace wgrt::webgpu {

const char* q4_gemv_kernel_name(Q4GemvKernel k) {
  switch (k) {
    case Q4GemvKernel::Int8: return "i8";
    case Q4GemvKernel::Subgroup: return "sg";
    case Q4GemvKernel::Stream: return "s8";
    default: return "wg";
  }
}

GemvQ4Shape Tuning::gemv_q4_shape(Q4GemvKernel kernel, int64_t N) const {
  if (gemv_q4_forced) return *gemv_q4_forced;
  if (cpu_adapter) return {16, 8, 8, 0};
  if (kernel == Q4GemvKernel::Int8) return N >= 32768 ? GemvQ4Shape{8, 32, 4, 0} : GemvQ4Shape{32, 8, 2, 0};  // stages x
  return N >= 32768 ? GemvQ4Shape{32, 8, 8, 1} : GemvQ4Shape{64, 4, 4, 1};
}

uint32_t Tuning::ggml_gemv_rpt_for(int64_t wtype, int64_t n, bool norm) const {
  if (ggml_gemv_wide_rpt != 0 && n >= ggml_gemv_wide_n) return ggml_gemv_wide_rpt;
  if (ggml_gemv_norm_rpt != 0 && norm && n >= ggml_gemv_norm_n) return ggml_gemv_norm_rpt;
  if (n < ggml_gemv_narrow_n) return 1;
  return ggml_gemv_rpt_by_type && wtype != 14 ? 4u : ggml_gemv_rpt;
}

void Tuning::force_ggml_gemv_rpt(uint32_t rpt) {
  ggml_gemv_rpt = rpt;
  ggml_gemv_rpt_by_type = false;
  ggml_gemv_wide_rpt = 0;
  ggml_gemv_norm_rpt = 0;
  ggml_gemv_narrow_n = 0;
  ggml_gemv_stream_rpt = rpt;
}

GemvQ4Shape Tuning::gemv_q4_multi_shape(Q4GemvKernel kernel, int64_t N) const {
  if (gemv_q4_multi_forced) return *gemv_q4_multi_forced;
  // More rows per invocation and fewer k lanes: each workgroup's weight loads serve 64 rows of W for the x row
  // of its grid layer, and the layers of one weight tile run close together, so the tile is read from DRAM once.
  if (!cpu_adapter && kernel == Q4GemvKernel::Int8 && !gemv_q4_forced) return {16, 16, 4, 0};
  return gemv_q4_shape(kernel, N);
}

GemvQ4SgShape Tuning::gemv_q4_sg_shape(int64_t N, int64_t K) const {
  if (gemv_q4_sg_forced) return *gemv_q4_sg_forced;
  // Enough subgroup tasks in flight for small N (split K), more rows per subgroup (more independent loads, x
  // reused) for large N.
  GemvQ4SgShape s = N >= 32768 ? GemvQ4SgShape{4, 8, 1} : N >= 4096 ? GemvQ4SgShape{2, 8, 1} : GemvQ4SgShape{1, 8, 1};
  const int64_t nv = K / 32;  // vec4<u32> per row
  if (N < 32768 && nv >= 128) s.ks = 2, s.bw = 4;  // split K when a row is long (> 2 steps per lane of 32)
  return s;
}

GemvQ4S8Shape Tuning::gemv_q4_s8_shape(int64_t N, int64_t K) const {
  if (gemv_q4_s8_forced) return *gemv_q4_s8_forced;
  // >= 256 workgroups over the H200's 132 SMs where N allows (2..32 rows each; 64 for output layers, N >= 65536,
  // where x's staging per workgroup is the overhead to amortize), and about one step of U loads per row per lane
  // of 32 covering the row (K / 1024 vec4 each).
  const int64_t most = N >= 65536 ? 64 : 32;
  const int64_t rows = int64_t(std::bit_floor(uint64_t(std::clamp<int64_t>(N / 256, 2, most))));  // even: GLU pairs
  GemvQ4S8Shape s;
  s.tr = uint32_t(std::min<int64_t>(8, rows));
  s.rpt = uint32_t(rows / s.tr);
  s.u = uint32_t(std::clamp<int64_t>(K / 1024, 1, 16 / s.rpt));
  return s;
}

MmqTile Tuning::gemm_mmq_ggml_tile(int64_t M, int64_t N) const {
  MmqTile t = gemm_mmq_tile(M, N);
  if (!gemm_mmq_forced && !cpu_adapter) {
    t.pf = 0;
    t.wg = 256;
  }
  return t;
}

MmqTile Tuning::gemm_mmq_tile(int64_t M, int64_t N) const {
  // The last of the rule's order, where no tile reaches the target: on GPUs with 128 invocations (8x4 outputs each;
  // H200 run 23, 1B Q4_0 pp512 / pp2048 19,433 / 17,355 against 17,820 / 16,040 with 256, both pipelined).
  // CPU adapters: 64x128 with 128 invocations at every shape (lavapipe, SmolLM2-135M Q4_K_M pp64 / pp128: 90-100 /
  // 105 tok/s, against 54-60 / 87 for 64x64 with 256 and 68-78 / 80-87 for 64x64 with 128; 32-row tiles win only
  // below 33 rows of x, and the tile is chosen from the op's largest M).
  MmqTile t = cpu_adapter ? MmqTile{64, 128, 2, 1, 0, 128} : MmqTile{64, 64, 2, 1, 0, 128};
  if (gemm_mmq_forced) {
    t = *gemm_mmq_forced;
  } else if (!cpu_adapter) {
    for (const MmqTile& o : {MmqTile{128, 128, 2, 1}, MmqTile{64, 128, 2, 1}}) {
      const uint64_t wg = uint64_t((std::max<int64_t>(M, 1) + o.tm - 1) / o.tm) * uint64_t((std::max<int64_t>(N, 1) + o.tn - 1) / o.tn);
      if (wg >= gemm_mmq_target_workgroups) {
        t = o;
        break;
      }
    }
  }
  t.pf = gemm_mmq_pipeline;
  return t;
}

Tuning Tuning::for_device(const DeviceFacts& f, const TuningOverrides& o) {
  Tuning t;
  t.cpu_adapter = f.cpu_adapter;
  t.gemm_cpu_supported = f.subgroups && f.subgroup_min >= 8;
  // CPU drivers emulate workgroup memory and barriers and gather every lane-varying load (gemm_cpu.wgsl).
  if (f.cpu_adapter && t.gemm_cpu_supported) t.gemm.kind = GemmTuning::Kind::Cpu;
  t.gemm.big_min_tiles = 64;
  // mm / addmm split K below 512 workgroups on GPUs (H200 run 22: ViT-B/16 batch 1 9.7 -> 5.2 ms with gemm_big and
  // 512, 5.4 with 256; the 197-row linear shapes 78-92 us vs 149-553 unsplit); CPU adapters keep gemm_cpu.wgsl.
  t.gemm.split_target_workgroups = f.cpu_adapter ? 0 : 512;
  t.gemm.mmq_min_tiles = !f.cpu_adapter && f.packed_dot ? 1 : 0;
  // Block formats: every GEMM-route linear on devices with packed int8 dot products, CPU adapters included
  // (lavapipe, SmolLM2-135M Q4_K_M pp64: 23 tok/s on the GEMV layers, 90-100 through the int8 GEMM with the CPU
  // tile below; Llama-3.2-1B Q4_K_M pp16 3.21 -> 3.56, pp64 3.29 -> 10.8). q4gsw keeps gemm_cpu.wgsl there (107
  // tok/s pp64 on the Q4_0 file against 104 through its int8 GEMM).
  t.gemm.mmq_ggml_min_tiles = f.packed_dot ? 1 : 0;
  t.gemm.mmq_ggml_min_rows = f.cpu_adapter ? 17 : 0;  // tuning.h: short prompts stay on the GEMV layers there
  // The int8 kernel measured 1.2-1.35x slower than the f32 one on lavapipe; on GPUs it is the fastest.
  t.q4_gemv = !f.cpu_adapter && f.packed_dot ? Q4GemvKernel::Int8 : Q4GemvKernel::Workgroup;
  t.max_binding_bytes = f.max_storage_binding;
  // A CPU adapter runs its "GPU" work on the same cores that would record the next step: overlap only adds
  // contention there (lavapipe measured slower pipelined, BENCHMARKS.md); on GPUs the CPU recording hides.
  t.decode_pipeline = !f.cpu_adapter;
  t.gpu_sampling = !f.cpu_adapter;
  // The fused layer body: fewer dispatches is the GPU lever (Dawn's 1.9 us floor, no overlap); on lavapipe it
  // measured no faster (within the noise of a loaded 2-core machine), so CPU adapters keep the separate ops.
  t.fused_gemv = !f.cpu_adapter;
  // Int8 GEMM tile target on GPUs: many small tiles. H200 run 22 (mid batch 2), whole 1B prefill pp512 with the
  // tile forced: 64x64 16,384 tok/s (Q4_K_M 14,147), 64x128 15,708, 128x128 12,405; 64x64 was best or tied per
  // GEMM at M 512 for N 512..8192. 2048 workgroups (~16 per SM of 132) keeps 64x64 through M 512 and larger tiles
  // only where M and N are both large. CPU adapters keep the default (lavapipe runs the int8 GEMM for q4gsw only).
  if (!f.cpu_adapter) t.gemm_mmq_target_workgroups = 2048;
  // The pipelined int8 GEMM main loop on GPUs (H200 run 23, 1B Q4_0 pp512 17,820 vs 13,136-16,4xx off); the
  // block-format kernel does not take it (Q4_K_M measured 11,196 on vs 12,759 off: linear_ggml.cpp).
  if (!f.cpu_adapter) t.gemm_mmq_pipeline = 1;
  // Int8 x in the block GEMV: one dot4I8Packed per 4 codes instead of 4 conversions and FMAs per row of x, the
  // same trade as the q4 GEMV's i8 kernel (CPU adapters: see tuning.h).
  t.ggml_gemv_int8 = !f.cpu_adapter && f.packed_dot ? 2 : 0;
  t.ggml_gemv_rpt_by_type = f.cpu_adapter;  // tuning.h: the lavapipe rows
  t.ggml_gemv_wide_rpt = f.cpu_adapter ? 0 : 4;  // tuning.h: the LM heads on GPUs
  t.ggml_gemv_norm_rpt = f.cpu_adapter ? 0 : 4;  // tuning.h: the fused norm's gate/up on GPUs
  t.ggml_gemv_narrow_n = f.cpu_adapter ? 0 : 4096;  // tuning.h: q/k/v, o and down of the small models on GPUs
  t.ggml_gemv_max_mb = f.cpu_adapter ? 4 : 8;        // tuning.h: the 8-row layers spill on lavapipe
  // tuning.h: lavapipe's 16 k lanes and streamed chunks (the constant chunk loop, measured at 32 k lanes, is off).
  t.ggml_gemv_tk = f.cpu_adapter ? 16 : 32;
  t.ggml_gemv_stream = f.cpu_adapter;
  t.sdpa_prefill_max_d = f.cpu_adapter ? 64 : 128;
  // Decode attention on sdpa_decode_sg.wgsl, 16 lanes per key, on GPUs with subgroups (H100, run 39s: 1B Q4_K_M
  // tg128 at depth 2048 814 -> 899 tok/s, depth 128 925 -> 971; 0.5B Q4_K_M 735 -> 840 and 763 -> 866; lanes 8
  // within 1% on the 1B, 1.5-2% slower on the 0.5B). CPU adapters keep sdpa_decode.wgsl (lavapipe: no gain in a model).
  t.sdpa_decode_lanes = !f.cpu_adapter && f.subgroups ? 16 : 0;
  // Prefill chunk: on GPUs a 2048-token prompt in one execute (H100, run 35, 1B pp2048: Q4_0 19,179 tok/s against
  // 17,437 in chunks of 512 and 18,508 in chunks of 1024; Q4_K_M 16,590 / 14,101 / 15,669): the GEMMs take larger
  // tiles and each layer's attention runs once over the whole prompt. pp512 is unchanged. CPU adapters keep 512
  // (lavapipe binds at most 128 MiB).
  t.prefill_chunk = f.cpu_adapter ? 512 : 2048;
  // Decode split-KV on GPUs: from 128 keys, chunks of multiples of 64 keys, at most about 512 workgroups. H200 run
  // 23 final (tg128 pipelined, same binary): 1B Q4_0 d128 924 -> 1,023 tok/s, d2048 859 -> 867; 0.5B d128 714 ->
  // 862, d2048 715 -> 766; against 128,64,512 (d2048 850 / 765) and 128,64,64 (800 / 759). A short context split
  // 2-4 ways keeps the SMs busy where one workgroup per kv head walked every key. CPU adapters keep 256,128,512. Target 512 since
  // chunks are whole multiples of the minimum chunk (key_split.h) and the combine issues its loads in parallel:
  // H200 run 28e, 1B at depth 2048 (33 chunks of 64 keys) Q4_0 896.0 tok/s, Q4_K_M 795.4, against 880.1 / 777.0
  // at 256 (17 chunks of 128) and 857-865 for the old rule; 128,32,* no better. Depth 128 (2-4 chunks) unchanged.
  // A serving batch's q4 GEMV in the multi-row shape from 3 rows on GPUs with the int8 kernel (tuning.h).
  if (!f.cpu_adapter && f.packed_dot) t.gemv_q4_multi_min_rows = 3;
  if (!f.cpu_adapter) {
    t.sdpa_split_min_context = 128;
    t.sdpa_split_min_chunk = 64;
    t.sdpa_split_target_workgroups = 512;
    t.sdpa_combine_loop_splits = 4;
  }

  if (o.q4_gemv) {
    // i8 and sg where the device cannot run them: the op falls back (i8 -> wg); sg without subgroups is ignored.
    // s8 without subgroups or packed dot products is ignored too.
    const bool sg = *o.q4_gemv == Q4GemvKernel::Subgroup, s8 = *o.q4_gemv == Q4GemvKernel::Stream;
    if ((!sg || f.subgroups) && (!s8 || (f.subgroups && f.packed_dot))) t.q4_gemv = *o.q4_gemv;
  }
  t.gemv_q4_forced = o.gemv_q4_shape;
  t.gemv_q4_sg_forced = o.gemv_q4_sg_shape;
  t.gemv_q4_s8_forced = o.gemv_q4_s8_shape;
  if (o.gemv_q4_multi_shape) t.gemv_q4_multi_forced = o.gemv_q4_multi_shape;
  if (o.gemv_q4_multi_min_rows) t.gemv_q4_multi_min_rows = *o.gemv_q4_multi_min_rows;
  if (o.gemm) {
    if (o.gemm->kind == GemmTuning::Kind::Cpu && !t.gemm_cpu_supported)
      throw InvalidArgument(
          "WGRT_GEMM selects the cpu GEMM kernel, which needs subgroups of at least 8 invocations; this adapter has "
          "none (unset WGRT_GEMM or use tiled)");
    const uint32_t big = t.gemm.big_min_tiles, mmq = t.gemm.mmq_min_tiles;  // WGRT_GEMM picks the kernel;
    const uint32_t mmq_ggml = t.gemm.mmq_ggml_min_tiles;                   // WGRT_GEMM_BIG/_MMQ the tile rules
    const int64_t mmq_ggml_rows = t.gemm.mmq_ggml_min_rows;
    const uint32_t split = t.gemm.split_target_workgroups;
    t.gemm = *o.gemm;
    t.gemm.split_target_workgroups = split;
    t.gemm.big_min_tiles = big;
    t.gemm.mmq_min_tiles = mmq;
    t.gemm.mmq_ggml_min_tiles = mmq_ggml;
    t.gemm.mmq_ggml_min_rows = mmq_ggml_rows;
  }
  if (o.sdpa_legacy) t.sdpa_legacy = *o.sdpa_legacy;
  if (o.sdpa_prefill_rpt) t.sdpa_prefill_rpt = *o.sdpa_prefill_rpt;
  if (o.sdpa_decode_kernel) t.sdpa_decode_kernel = *o.sdpa_decode_kernel;
  if (o.sdpa_decode_lanes) t.sdpa_decode_lanes = f.subgroups ? *o.sdpa_decode_lanes : 0;
  if (o.sdpa_batched_decode_rows) t.sdpa_batched_decode_rows = *o.sdpa_batched_decode_rows;
  if (o.sdpa_prefill_split) {
    t.sdpa_prefill_split_min_chunk = (*o.sdpa_prefill_split)[0];
    t.sdpa_prefill_split_target_workgroups = (*o.sdpa_prefill_split)[1];
  }
  if (o.sdpa_split) {
    t.sdpa_split_min_context = (*o.sdpa_split)[0];
    t.sdpa_split_min_chunk = (*o.sdpa_split)[1];
    t.sdpa_split_target_workgroups = (*o.sdpa_split)[2];
  }
  if (o.gemm_big_min_tiles) t.gemm.big_min_tiles = *o.gemm_big_min_tiles;
  if (o.gemm_mmq_min_tiles) t.gemm.mmq_min_tiles = *o.gemm_mmq_min_tiles;
  if (o.gemm_mmq_ggml_min_tiles) t.gemm.mmq_ggml_min_tiles = *o.gemm_mmq_ggml_min_tiles;
  if (o.gemm_mmq_tile) t.gemm_mmq_forced = *o.gemm_mmq_tile;
  if (o.gemm_mmq_target_workgroups) t.gemm_mmq_target_workgroups = *o.gemm_mmq_target_workgroups;
  if (o.gemm_mmq_pipeline) t.gemm_mmq_pipeline = *o.gemm_mmq_pipeline;
  if (o.gemm_mmq_split_target) t.gemm_mmq_split_target = *o.gemm_mmq_split_target;
  if (o.gemm_split_target) t.gemm.split_target_workgroups = *o.gemm_split_target;
  if (o.max_binding_bytes && *o.max_binding_bytes < t.max_binding_bytes) t.max_binding_bytes = *o.max_binding_bytes;
  if (o.submit_chunk) t.submit_chunk = *o.submit_chunk;
  if (o.decode_pipeline) t.decode_pipeline = *o.decode_pipeline;
  if (o.gpu_sampling) t.gpu_sampling = *o.gpu_sampling;
  if (o.gemv_max_rows) t.gemv_max_rows = *o.gemv_max_rows;
  if (o.fused_gemv) t.fused_gemv = *o.fused_gemv;
  if (o.fused_qkv) t.fused_qkv = *o.fused_qkv;
  if (o.ggml_gemv_blocks) t.ggml_gemv_blocks = *o.ggml_gemv_blocks;
  if (o.ggml_gemv_rpt) t.force_ggml_gemv_rpt(*o.ggml_gemv_rpt);
  if (o.ggml_gemv_norm_rpt) t.ggml_gemv_norm_rpt = *o.ggml_gemv_norm_rpt;
  if (o.ggml_gemv_narrow_n) t.ggml_gemv_narrow_n = *o.ggml_gemv_narrow_n;
  if (o.ggml_gemv_tk) t.ggml_gemv_tk = *o.ggml_gemv_tk;
  if (o.ggml_gemv_stream) t.ggml_gemv_stream = *o.ggml_gemv_stream;
  if (o.ggml_gemv_const_chunks) t.ggml_gemv_const_chunks = *o.ggml_gemv_const_chunks;
  if (o.ggml_gemv_int8) t.ggml_gemv_int8 = f.packed_dot ? *o.ggml_gemv_int8 : 0;
  return t;
}

std::string Tuning::describe() const {
  std::string s;
  s += fmt::format("q4 GEMV kernel: {}{}\n", q4_gemv_kernel_name(q4_gemv), cpu_adapter ? " (CPU shape table)" : "");
  if (gemv_q4_forced)
    s += fmt::format("q4 GEMV shape (forced): {},{},{},{}\n", gemv_q4_forced->tk, gemv_q4_forced->tr, gemv_q4_forced->rpt,
                     gemv_q4_forced->stage);
  if (gemv_q4_multi_min_rows) {
    const GemvQ4Shape m = gemv_q4_multi_shape(q4_gemv, 0);
    s += fmt::format("q4 GEMV shape from {} rows of x{}: {},{},{},{}\n", gemv_q4_multi_min_rows,
                     gemv_q4_multi_forced ? " (forced)" : "", m.tk, m.tr, m.rpt, m.stage);
  }
  if (gemv_q4_sg_forced)
    s += fmt::format("q4 subgroup GEMV shape (forced): {},{},{}\n", gemv_q4_sg_forced->rpt, gemv_q4_sg_forced->bw,
                     gemv_q4_sg_forced->ks);
  if (gemv_q4_s8_forced)
    s += fmt::format("q4 stream GEMV shape (forced): {},{},{},{}\n", gemv_q4_s8_forced->rpt, gemv_q4_s8_forced->tr,
                     gemv_q4_s8_forced->u, gemv_q4_s8_forced->planes);
  s += gemm.kind == GemmTuning::Kind::Cpu ? fmt::format("GEMM kernel: cpu (rq {}, wg {})\n", gemm.rq, gemm.wg)
                                          : fmt::format("GEMM kernel: tiled (linear: 128x128 register blocks from {} tiles)\n",
                                                        gemm.big_min_tiles);
  if (gemm.kind == GemmTuning::Kind::Tiled)
    s += gemm.split_target_workgroups
             ? fmt::format("split-K GEMM (mm / addmm) below {} workgroups\n", gemm.split_target_workgroups)
             : std::string("split-K GEMM: off\n");
  s += gemm.mmq_min_tiles ? fmt::format("int8 GEMM (q4 linear prefill) from {} tiles\n", gemm.mmq_min_tiles)
                          : std::string("int8 GEMM: off\n");
  s += gemm_mmq_forced ? fmt::format("int8 GEMM tile (forced): {}x{}, {} blocks per slice, conversion {}, {} invocations\n",
                                     gemm_mmq_forced->tm, gemm_mmq_forced->tn, gemm_mmq_forced->kb, gemm_mmq_forced->cvt,
                                     gemm_mmq_forced->wg)
                       : fmt::format("int8 GEMM tile: the largest of 128x128, 64x128, 64x64 with >= {} workgroups\n",
                                     gemm_mmq_target_workgroups);
  s += fmt::format("int8 GEMM pipeline (next slice loaded during this one): {}\n", gemm_mmq_pipeline ? "on" : "off");
  s += gemm_mmq_split_target ? fmt::format("split-K int8 GEMM (q4 linear) below {} workgroups\n", gemm_mmq_split_target)
                             : std::string("split-K int8 GEMM: off\n");
  s += gemm.mmq_ggml_min_tiles
           ? fmt::format("int8 GEMM (block-format linear prefill) from {} tiles and {} rows of x\n", gemm.mmq_ggml_min_tiles,
                         std::max<int64_t>(gemm.mmq_ggml_min_rows, gemv_max_rows + 1))
           : std::string("int8 GEMM for block formats: off\n");
  s += fmt::format("GEMV route up to M = {}; weight bindings up to {} bytes; fused GEMV (norm, GLU): {}; stacked q/k/v + "
                   "RoPE/KV write: {}\n", gemv_max_rows, max_binding_bytes, fused_gemv ? "on" : "off", fused_qkv ? "on" : "off");
  s += fmt::format("block-format GEMV: {}\n", ggml_gemv_blocks ? fmt::format("blocks (gemv_kq, RPT {}, {} x, up to {} rows of x per layer) where the type has it",
                                                                       (ggml_gemv_rpt_by_type ? fmt::format("4 (Q6_K {})", ggml_gemv_rpt) : std::to_string(ggml_gemv_rpt)) +
                                                                           (ggml_gemv_wide_rpt ? fmt::format(", {} from N {}", ggml_gemv_wide_rpt, ggml_gemv_wide_n) : std::string()) +
                                                                           (ggml_gemv_norm_rpt ? fmt::format(", {} with the norm from N {}", ggml_gemv_norm_rpt, ggml_gemv_norm_n) : std::string()) +
                                                                           (ggml_gemv_narrow_n ? fmt::format(", 1 below N {}", ggml_gemv_narrow_n) : std::string()),
                                                                       ggml_gemv_int8 == 2 ? "int8 staged" : ggml_gemv_int8 ? "int8 pass" : "f32", ggml_gemv_max_mb)
                                                           : std::string("generic"));
  if (ggml_gemv_blocks)
    s += fmt::format("block-format GEMV shape: {} k lanes; one-row route {}; constant chunk loop {}\n", ggml_gemv_tk,
                     ggml_gemv_stream ? fmt::format("streamed, RPT {}", ggml_gemv_stream_rpt) : std::string("interleaved"),
                     ggml_gemv_const_chunks ? fmt::format("up to {} chunks per lane", ggml_gemv_const_chunks) : std::string("off"));
  s += fmt::format("attention: {}{}; split-KV decode from {} keys (chunks of multiples of {} keys, <= ~{} workgroups; combine "
                   "loops over <= {} splits); prefill chunk {} tokens\n",
                   sdpa_legacy ? "legacy (scores in scratch) where it fits" : "flash",
                   !sdpa_decode_kernel ? std::string()
                   : sdpa_decode_lanes
                       ? fmt::format(" (decode kernel where D % 4 == 0; on subgroups, {} lanes per key)",
                                     sdpa_decode_lanes)
                       : std::string(" (decode kernel where D % 4 == 0)"),
                   sdpa_split_min_context,
                   sdpa_split_min_chunk, sdpa_split_target_workgroups, sdpa_combine_loop_splits, prefill_chunk);
  s += sdpa_batched_decode_rows > 0
           ? fmt::format("serving-batch attention: decode route up to {} rows (D % 4 == 0, no soft cap / window)\n",
                         sdpa_batched_decode_rows)
           : std::string("serving-batch attention: scores route\n");
  s += sdpa_prefill_rpt ? fmt::format("prefill attention: register-blocked, {} rows per block (D % 4 == 0, D <= {}); {}\n",
                                      16 * sdpa_prefill_rpt, sdpa_prefill_max_d,
                                      sdpa_prefill_split_target_workgroups
                                          ? fmt::format("keys split below {} workgroups (chunks >= {} keys)",
                                                        sdpa_prefill_split_target_workgroups, sdpa_prefill_split_min_chunk)
                                          : std::string("no key split"))
                        : std::string("prefill attention: wide flash route\n");
  s += fmt::format("submit chunk: {}; decode pipeline: {}; sampling: {}\n",
                   submit_chunk ? fmt::format("{} dispatches", submit_chunk) : std::string("one submit per execute"),
                   decode_pipeline ? "on" : "off", gpu_sampling ? "GPU" : "CPU");
  return s;
}

}  // namespace wgrt::webgpu
