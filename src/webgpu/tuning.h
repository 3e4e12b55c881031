// The tuning policy: every kernel choice and shape table of the ops, in one struct built once per Device from
// the adapter (type, vendor, subgroup sizes, limits, features) and the WGRT_* tuning overrides. Ops read it
// through OpBuilder::device().tuning() and never test the adapter or read the environment themselves.
//
// Rules (measurements in bench/README.md; H200 and lavapipe sweeps):
//   q4 GEMV kernel (M <= gemv_max_rows): Int8 (gemv_q4_i8.wgsl) on GPUs with packed_4x8_integer_dot_product,
//     Workgroup (gemv_q4.wgsl, f32 decode) on CPU adapters and elsewhere; Subgroup (gemv_q4_sg.wgsl) and Stream
//     (gemv_q4_s8.wgsl: int8 x, subgroup reductions, for bandwidth; falls back to Int8 without subgroups) opt-in.
//     The op falls back to Workgroup where the chosen kernel does not fit the device (its workgroup memory,
//     reflected from the WGSL, or no subgroups).
//   q4 GEMV shapes (TK k lanes x TR row lanes x RPT rows per invocation, stage = x staged in workgroup memory):
//     Int8: 8 x 32 x 4 when N >= 32768, else 32 x 8 x 2; Workgroup on GPUs: 32 x 8 x 8 staged when N >= 32768,
//     else 64 x 4 x 4 staged; CPU adapters: 16 x 8 x 8 unstaged (each x load serves 8 rows; a barrier costs
//     a CPU driver more than the reuse gains). Subgroup: RPT x BW x KS by N and K (gemv_q4_sg_shape).
//     Stream: N / 256 rows per workgroup (>= 256 workgroups; clamped to 2..32, 64 from N 65536, rounded down to a
//     power of two) as
//     TR = min(8, rows) tasks of RPT, U = K / 1024 loads per row per lane in flight (1 .. 16 / RPT), x in 3 byte
//     planes (the i8 kernel's error bound; 1 plane, llama.cpp's int8 activations, only when forced).
//   q4 GEMV shape for several rows of x (serving batches, short prompts: M >= gemv_q4_multi_min_rows): Int8 on
//     GPUs 16 x 16 x 4 from 3 rows (every N), a second GEMV dispatch per linear routed by the live M, so one row
//     keeps its shape; elsewhere, and where WGRT_GEMV_Q4 forces a shape (unless WGRT_GEMV_Q4_MULTI forces
//     this one too), the one shape for every M.
//   Block-format GEMV: gemv_kq.wgsl (chunks of whole sub-blocks, x rows in grid layers of 1, 2, 4 or 8, the
//     smallest that holds M) for Q4_1, Q5_0, Q8_0, Q4_K, Q5_K, Q6_K on every adapter; gemv_ggml.wgsl otherwise.
//     k lanes 32, CPU adapters 16; CPU adapters stream the rows of W past each chunk's x on the one-row route with
//     f32 x (16 rows of W per invocation there).
//     gemv_kq rows of W per invocation (each x load serves them): 2, GPUs 4 from 32768 rows of W (LM heads) and
//     with the RMSNorm folded in from 8192 rows (gate/up), 1 below 4096 rows (narrow q/k/v, o and down); CPU
//     adapters 4 except Q6_K (ggml_gemv_rpt_for, by weight type, rows and the norm). Its int8 activations (x quantized per 32-k
//     block, codes times x by dot4I8Packed; WGRT_GEMV_KQ_INT8): staged per workgroup (2) on GPUs with packed int8
//     dot products (keeps the fused norm inside the GEMV; routes whose staging does not fit workgroup memory take
//     the quantize pass, 1), off on CPU adapters (lavapipe measured the f32 decode faster).
//   GEMM: the Cpu kernel (gemm_cpu.wgsl, rq 4, wg 64) on CPU adapters with subgroups of >= 8 lanes, else
//     Tiled (gemm.wgsl); Tiled linear layers with >= 64 128x128 output tiles take gemm_big.wgsl, mm / addmm / bmm
//     always (big_min_tiles > 0); Tiled mm / addmm (batch 1) below 512 workgroups split K (gemm_splits).
//   Int8 GEMM (q4gsw linear prefill): on GPUs with packed_4x8_integer_dot_product from 1 output tile (every
//     GEMM-route q4 linear); off on CPU adapters (lavapipe keeps gemm_cpu.wgsl; WGRT_GEMM_MMQ forces it).
//   Int8 GEMM for block formats (linear_ggml prefill, gemm_mmq_ggml.wgsl): from 1 output tile on every device
//     with packed int8 dot products, CPU adapters included (WGRT_GEMM_MMQ_GGML).
//   Int8 GEMM tile (both kernels): on GPUs 128x128 where the op's largest M gives >= 128 workgroups (about one per
//     SM of an H200's 132: at M 512 a 128x128 grid has only 64 for N 2048 and 16 for N 512), else 64x128, else
//     64x64 with 128 invocations; on CPU adapters 64x128 with 128 invocations; 2 blocks (64 k) per staged slice,
//     block sums to f32 through the exponent bits (CVT 1). WGRT_GEMM_MMQ_TILE forces one, WGRT_GEMM_MMQ_TARGET
//     moves the GPUs' target.
//   Decode/prefill attention: flash attention (no score buffer); decode splits the keys from 128 keys of
//     context into chunks of multiples of 64 keys for at most ~512 workgroups on GPUs (from 256 keys, 128-key
//     chunks on CPU adapters): see for_device.
//     Encoder attention: 64 MiB of score scratch.
//   Prefill chunk (tokens per prefill execute, when the caller gives none): 2048 on GPUs, 512 on CPU adapters
//     (Llm::load caps it by the context and halves it, not below 512, until the prefill activations fit one
//     binding: models::default_prefill_chunk).
//   Submit chunk (dispatches per submit within one execute): 0 = one submit per execute, on every adapter.
//   Decode pipeline (greedy generation keeps the token on the GPU and records step N+1 while step N runs): on
//     GPUs; off on CPU adapters (the recording competes with the adapter's own threads for the same cores).
// Environment overrides (tuning_env.cpp; README's table) replace single entries; a malformed value throws
// InvalidArgument at Device creation. Tests and tools build or modify a Tuning and install it with
// Device::set_tuning. Plain data: copyable, no locking (one thread drives a Device).
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace wgrt::webgpu {

enum class Q4GemvKernel { Workgroup, Int8, Subgroup, Stream };
const char* q4_gemv_kernel_name(Q4GemvKernel k);  // "wg", "i8", "sg", "s8" (as WGRT_GEMV_Q4_ROUTE spells them)

struct GemvQ4Shape {
  uint32_t tk = 64, tr = 4, rpt = 4, stage = 0;
  bool operator==(const GemvQ4Shape&) const = default;
};
struct GemvQ4SgShape {
  uint32_t rpt = 4, bw = 8, ks = 1;
  bool operator==(const GemvQ4SgShape&) const = default;
};
// Stream kernel (gemv_q4_s8.wgsl): RPT rows per subgroup task, TR tasks (32 * TR invocations) per workgroup, U
// vec4 loads per row per lane per step, x in PLANES byte planes (3: 22-bit blocks as gemv_q4_i8.wgsl; 1: int8).
struct GemvQ4S8Shape {
  uint32_t rpt = 4, tr = 8, u = 2, planes = 3;
  bool operator==(const GemvQ4S8Shape&) const = default;
};

// Int8 prefill GEMM tile (gemm_mmq_body.wgsl, both int8 kernels): TM x TN outputs per workgroup of WG invocations
// (WG 256: TM, TN 64 or 128; WG 128: TM 32 or 64, TN 64 or 128; 4 or 8 rows / columns per invocation), KB 32-k
// blocks per staged slice (1, 2, 4; WG 128 with TN 128: 1, 2),
// CVT how the exact block sums become f32 (0: a conversion; 1: through the exponent bits, gemm_mmq_body's mmq_f32),
// PF the main loop's software pipeline (1: the next slice's loads in flight during this slice's products; the
// policy's gemm_mmq_pipeline, not part of the forced tile).
struct MmqTile {
  uint32_t tm = 128, tn = 128, kb = 2, cvt = 1, pf = 0, wg = 256;
  bool operator==(const MmqTile&) const = default;
};

// Encoder attention (et_vk.sdpa): Auto picks per execute; Gemm / Split force one route (tests, benchmarks).
enum class SdpaEncoderRoute { Auto, Gemm, Split };

struct GemmTuning {
  enum class Kind { Tiled, Cpu };
  Kind kind = Kind::Tiled;
  uint32_t rq = 4;   // Cpu: row quads per workgroup (rows = 4 * rq), 1..4
  uint32_t wg = 64;  // Cpu: invocations (= columns) per workgroup, 8..256, a multiple of 8
  // Tiled: the linear layers take the register-blocked 128x128 kernel (gemm_big.wgsl) when their output has at
  // least this many 128x128 tiles (0: never).
  uint32_t big_min_tiles = 0;
  // q4gsw linear layers on the GEMM route (M > gemv_max_rows) take the int8 kernel (gemm_mmq.wgsl, activations
  // quantized per 32-k block) when their output has at least this many 128x128 tiles (0: never) and the device
  // has packed int8 dot products; it replaces the f32 kernels there (tiled, big, or cpu when forced).
  uint32_t mmq_min_tiles = 0;
  // Block-format linear layers (wgrt.linear_ggml, the types ops::ggml_mmq_type lists) on the GEMM route take the
  // int8 kernel (gemm_mmq_ggml.wgsl) from this many 128x128 output tiles (0: never; needs packed int8 dot
  // products); otherwise GPUs take gemm_big.wgsl's block-format loader in f32 and CPU adapters the GEMV layers
  // (their batched rows of x).
  uint32_t mmq_ggml_min_tiles = 0;
  // ... and from this many rows of x (below it, and above gemv_max_rows, the route the int8 GEMM would replace).
  // CPU adapters 17: lavapipe, Llama-3.2-1B Q4_K_M, a 9-token prompt 2.3 tok/s on the GEMV layers (4 rows of x
  // each) against 1.5 through the int8 GEMM, whose 64-row tiles cost about the same from 1 to 64 rows (pp16 3.56,
  // pp64 10.8 tok/s); GPUs 0.
  int64_t mmq_ggml_min_rows = 0;
  // Tiled: aten.mm / addmm (batch 1) whose output has fewer workgroups than this split K into up to 16 slices
  // run as a batch, then sum the partials (ops/linear/gemm.h gemm_splits; 0: never). WebGPU does not report
  // the adapter's compute units: the target stands for ~4 workgroups per SM of a big GPU (H200: 132 SMs).
  uint32_t split_target_workgroups = 0;
  bool operator==(const GemmTuning&) const = default;
};

// What the policy is built from (Device fills it from the adapter and the granted features).
struct DeviceFacts {
  bool cpu_adapter = false;   // WGPUAdapterType_CPU (lavapipe, SwiftShader)
  uint32_t vendor_id = 0;
  bool subgroups = false;
  uint32_t subgroup_min = 0, subgroup_max = 0;
  bool packed_dot = false;    // WGSL packed_4x8_integer_dot_product
  uint64_t max_storage_binding = 0;         // maxStorageBufferBindingSize
  uint64_t max_workgroup_storage = 0;       // maxComputeWorkgroupStorageSize
};

// The WGRT_* tuning variables, parsed (tuning_env.cpp). Unset fields keep the rule's choice.
struct TuningOverrides {
  std::optional<Q4GemvKernel> q4_gemv;            // WGRT_GEMV_Q4_ROUTE = wg | i8 | sg
  std::optional<GemvQ4Shape> gemv_q4_shape;       // WGRT_GEMV_Q4 = TK,TR,RPT[,STAGE]
  std::optional<GemvQ4SgShape> gemv_q4_sg_shape;  // WGRT_GEMV_Q4_SG = RPT,BW,KS
  std::optional<GemvQ4S8Shape> gemv_q4_s8_shape;  // WGRT_GEMV_Q4_S8 = RPT,TR,U[,PLANES]
  std::optional<GemvQ4Shape> gemv_q4_multi_shape;  // WGRT_GEMV_Q4_MULTI = TK,TR,RPT[,STAGE]
  std::optional<int64_t> gemv_q4_multi_min_rows;   // WGRT_GEMV_Q4_MULTI_ROWS = 0 (off) | 2..8
  std::optional<GemmTuning> gemm;                 // WGRT_GEMM = tiled | cpu | cpu,RQ,WG
  std::optional<uint64_t> max_binding_bytes;      // WGRT_MAX_BINDING_BYTES = bytes (> 0)
  std::optional<uint32_t> submit_chunk;           // WGRT_SUBMIT_CHUNK = dispatches per submit (0: one submit)
  std::optional<bool> decode_pipeline;            // WGRT_DECODE_PIPELINE = 0 | 1
  std::optional<bool> gpu_sampling;               // WGRT_GPU_SAMPLING = 0 | 1
  std::optional<int64_t> gemv_max_rows;           // WGRT_GEMV_MAX_ROWS = 0..8 (rows above take the GEMM)
  std::optional<bool> fused_gemv;                 // WGRT_FUSED_GEMV = 0 | 1
  std::optional<bool> fused_qkv;                  // WGRT_FUSED_QKV = 0 | 1
  std::optional<bool> ggml_gemv_blocks;           // WGRT_GEMV_GGML = blocks[,RPT] | generic
  std::optional<uint32_t> ggml_gemv_rpt;          // ... its RPT (1, 2, 4 or 8)
  std::optional<uint32_t> ggml_gemv_int8;         // WGRT_GEMV_KQ_INT8 = 0 | 1 | 2
  std::optional<uint32_t> ggml_gemv_norm_rpt;     // WGRT_GEMV_KQ_NORM_RPT = 0 | 1 | 2 | 4 (0: the rule off)
  std::optional<int64_t> ggml_gemv_narrow_n;      // WGRT_GEMV_KQ_NARROW_N = rows (0: off)
  std::optional<uint32_t> ggml_gemv_tk;           // WGRT_GEMV_KQ_TK = 16 | 32
  std::optional<bool> ggml_gemv_stream;           // WGRT_GEMV_KQ_STREAM = 0 | 1
  std::optional<uint32_t> ggml_gemv_const_chunks; // WGRT_GEMV_KQ_CONST_CHUNKS = 0..8
  std::optional<bool> sdpa_legacy;                // WGRT_SDPA = flash | legacy
  std::optional<uint32_t> sdpa_prefill_rpt;       // WGRT_SDPA_PREFILL = 0 | 1 | 2 | 4 (rows per invocation, 0: off)
  std::optional<bool> sdpa_decode_kernel;         // WGRT_SDPA_DECODE = 0 | 1
  std::optional<uint32_t> sdpa_decode_lanes;      // WGRT_SDPA_DECODE_LANES = 0 | 1 | 2 | 4 | 8 | 16 | 32
  std::optional<int64_t> sdpa_batched_decode_rows;  // WGRT_SDPA_BATCHED = ROWS (0: the scores route always)
  std::optional<std::array<int64_t, 3>> sdpa_split;  // WGRT_SDPA_SPLIT = MIN_CONTEXT,MIN_CHUNK,TARGET_WORKGROUPS
  std::optional<std::array<int64_t, 2>> sdpa_prefill_split;  // WGRT_SDPA_PREFILL_SPLIT = MIN_CHUNK,TARGET_WORKGROUPS
  std::optional<uint32_t> gemm_big_min_tiles;     // WGRT_GEMM_BIG = tiles (0 = off)
  std::optional<uint32_t> gemm_mmq_min_tiles;     // WGRT_GEMM_MMQ = tiles (0 = off)
  std::optional<uint32_t> gemm_mmq_ggml_min_tiles;  // WGRT_GEMM_MMQ_GGML = tiles (0 = off)
  std::optional<MmqTile> gemm_mmq_tile;           // WGRT_GEMM_MMQ_TILE = TM,TN[,KB[,CVT[,WG]]]
  std::optional<uint32_t> gemm_mmq_target_workgroups;  // WGRT_GEMM_MMQ_TARGET = workgroups (0: always 128x128)
  std::optional<uint32_t> gemm_mmq_pipeline;      // WGRT_GEMM_MMQ_PIPELINE = 0 | 1
  std::optional<uint32_t> gemm_mmq_split_target;  // WGRT_GEMM_MMQ_SPLITK = workgroups (0 = off)
  std::optional<uint32_t> gemm_split_target;      // WGRT_GEMM_SPLITK = workgroups (0 = off)
};

// Parses the tuning variables through `get` (name -> value or nullptr; std::getenv by default). Throws
// InvalidArgument naming the variable, its value and the accepted form when a value is malformed.
TuningOverrides parse_tuning_env(const std::function<const char*(const char*)>& get = {});

struct Tuning {
  // ---- linear (ops/linear) ----
  int64_t gemv_max_rows = 8;       // M up to this takes the GEMV route (one grid layer per row of x)
  uint32_t gemv_f32_rpt = 4;       // f32 GEMV rows per invocation (gemv_f32.wgsl RPT, 1..4)
  // Block-format (ggml) GEMV: the layout-aware kernel (gemv_kq.wgsl, weights decoded once for up to 8 rows of
  // x) for the types it has (linear_ggml.h), else the generic one (gemv_ggml.wgsl) for every type.
  bool ggml_gemv_blocks = true;
  uint32_t ggml_gemv_rpt = 2;      // gemv_kq.wgsl rows of W per invocation (1, 2, 4; the op caps MB * RPT at 16)
  // CPU adapters: 4 rows of W per invocation for every gemv_kq type but Q6_K, whose chunk holds the most values in
  // registers (lavapipe, K 2048 x N 8192, 1 row of x, RPT 2 -> 4: Q4_K 4.3 -> 3.0 ms, Q8_0 10.9 -> 8.3 ms, Q6_K
  // 6.3 -> 7.6 ms; fewer, wider workgroups, whose reduction lavapipe runs on the CPU). Off where WGRT_GEMV_GGML
  // sets RPT. Read through ggml_gemv_rpt_for.
  bool ggml_gemv_rpt_by_type = false;
  // GPUs: 4 rows of W per invocation from ggml_gemv_wide_n rows of W (LM heads: half the workgroups, each staging x
  // once for twice the rows; H200 run 26b, Q6_K 2048 x 128256 with int8 x staged, fresh processes: RPT 2 435 / 365 /
  // 448 us, RPT 4 286 / 346 / 354 us). 0: off (CPU adapters, and where WGRT_GEMV_GGML sets RPT).
  uint32_t ggml_gemv_wide_rpt = 0;
  int64_t ggml_gemv_wide_n = 32768;
  // GPUs: 4 rows of W per invocation for a GEMV with the RMSNorm folded in (wgrt.linear_ggml_fused's NORM: each
  // workgroup recomputes the row's norm and stages x, so more rows per workgroup pay that once for more weights)
  // from ggml_gemv_norm_n rows of W (256 workgroups of 32 rows: about 2 per SM of an H100 / H200's 132; fewer
  // rows keep the narrower workgroups to fill the GPU). Run 34 (H100, gemv_kq int8 x staged, K 896 x 2 * 4864 Q5_0
  // with the norm and SwiGLU: Qwen2-0.5B's gate/up): RPT 1 25.2 us, 2 17.9-18.1 us, 4 14.9 us (the fused q4gsw GEMV
  // 13.1 us); without the norm (K 896, 896 rows) RPT 4 was slower (12.3 vs 11.5 us). 0: off (CPU adapters, and
  // where WGRT_GEMV_GGML sets RPT). WGRT_GEMV_KQ_NORM_RPT sets it (0 off).
  uint32_t ggml_gemv_norm_rpt = 0;
  int64_t ggml_gemv_norm_n = 8192;
  // GPUs: 1 row of W per invocation below ggml_gemv_narrow_n rows of W: twice the workgroups of RPT 2 for the
  // narrow GEMVs (q/k/v, o- and down-projections of the small models: 896 to 3072 rows), where RPT 2 gives a few
  // workgroups per SM or fewer than one (the 0.5B's down-projection: 56 workgroups of 16 rows). Run 34c (H100,
  // same binary, WGRT_GEMV_KQ_NARROW_N=4096 vs 0, both with the norm rule above; tg128 pipelined, two rounds each):
  // 0.5B Q4_K_M 719.4 -> 759.6 tok/s at depth 128, 681.0 -> 729.8 at 2048; 1B Q4_K_M 885.0 -> 920.9, 783.8 ->
  // 815.3. Alone, the 0.5B's down (K 4864 x 896) takes 12.9 -> 12.0 us (Q4_K), 15.8 -> 13.4 us (Q6_K), while the
  // 1B's (K 8192 x 2048) takes 14.1 -> 15.2 us (Q4_K): the decode gain is the sum over the narrow GEMVs. 0: off (CPU
  // adapters, and where WGRT_GEMV_GGML sets RPT). WGRT_GEMV_KQ_NARROW_N sets it.
  int64_t ggml_gemv_narrow_n = 0;
  // gemv_kq.wgsl's widest route: rows of x per grid layer (4 or 8; routes of 1, 2, 4 and this many rows). CPU
  // adapters 4: lavapipe, Llama-3.2-1B Q4_K_M, 8 rows of x in one layer of 8 took 3.2 s against 1.0 s for 4 rows
  // in one layer of 4 (the 8-row kernel's registers spill); 8 on GPUs.
  uint32_t ggml_gemv_max_mb = 8;
  // gemv_kq's chunk loop with a constant trip count (override KCH) where K holds exactly KCH * TK chunks of every
  // type of the dispatch with KCH <= this; 0: the loop over K always (every adapter; WGRT_GEMV_KQ_CONST_CHUNKS).
  // With 32 k lanes lavapipe emits code without per-lane execution masks at KCH 1 (K 2048 x N 8192 Q4_K and Q6_K
  // about 0.75x the time; no gain at KCH 4). With the CPU adapters' 16 k lanes and streamed chunks, KCH 2 (K
  // 2048) measured slower than the loop (Llama-3.2-1B Q4_K_M decode 1.09 / 1.15 against 1.45 / 1.54 tok/s), so it
  // is off there too (BENCHMARKS.md).
  uint32_t ggml_gemv_const_chunks = 0;
  // gemv_kq.wgsl's k lanes per row lane (override TK, 16 or 32; 8 row lanes): GPUs 32; CPU adapters 16, which
  // gives each invocation twice the chunks (lavapipe runs a workgroup's invocations in SIMD groups of 8 on one
  // thread: fewer, longer invocations; the same trend as the q4 GEMV's CPU shape). WGRT_GEMV_KQ_TK.
  uint32_t ggml_gemv_tk = 32;
  // gemv_kq.wgsl's streamed chunks (STREAM) on its one-row route with f32 x, at ggml_gemv_stream_rpt rows of W per
  // invocation (1..16; WGRT_GEMV_GGML=blocks,RPT sets it too). CPU adapters on: lavapipe, Llama-3.2-1B Q4_K_M decode
  // with 16 k lanes at 8 rows 1.43-1.56 tok/s against 0.88-1.13 for the interleaved chunks (RPT 4, Q6_K 2, 32 k
  // lanes) and 1.02-1.07 for 16 k lanes without streaming; 16 rows then 1.73-2.01 against 1.31-1.93 for 8 in three
  // alternating rounds (BENCHMARKS.md). GPUs off (their decode takes int8 x, or is unmeasured). WGRT_GEMV_KQ_STREAM.
  bool ggml_gemv_stream = false;
  uint32_t ggml_gemv_stream_rpt = 16;
  // gemv_kq.wgsl's x: 0 f32; 1 int8 from a quantize_q8.wgsl pass per execute (the fused norm then its own
  // dispatch); 2 int8 quantized by each workgroup into workgroup memory (the fused norm inside; routes where it does
  // not fit take 1). Needs packed int8 dot products (without them the op keeps f32 x).
  uint32_t ggml_gemv_int8 = 0;
  // Mode 2's staging is a win for few rows of x and a loss for many (H200 run 22, gemv_kq K 2048 N 8192: Q4_K at
  // 1 row 13.2 us staged vs 19.6 us pass vs 18.6 us f32; at 8 rows 74.6 us staged vs 36.8 us pass): GEMV routes
  // wider than this many rows of x take mode 1 instead.
  uint32_t ggml_gemv_int8_staged_rows = 2;
  Q4GemvKernel q4_gemv = Q4GemvKernel::Workgroup;  // preferred q4 GEMV kernel (the op may fall back)
  std::optional<GemvQ4Shape> gemv_q4_forced;       // shape override (every N, K) for the Workgroup/Int8 kernels
  std::optional<GemvQ4SgShape> gemv_q4_sg_forced;  // shape override for the Subgroup kernel
  std::optional<GemvQ4S8Shape> gemv_q4_s8_forced;  // shape override for the Stream kernel
  // GEMV routes of at least this many rows of x (2..gemv_max_rows; 0: never) take gemv_q4_multi_shape instead,
  // as a second dispatch of the q4 linear chosen by the live M (Workgroup / Int8 kernels). H200 run 24, 1B Q4_0
  // serving step (wgrt_bench_batch, depth 128) at 1 / 2 / 3 / 4 / 8 rows: one shape (32x8x2) 2.19 / 2.51 / 2.84 /
  // 3.22 / 4.74 ms; 16x16x4 from 2 rows 2.15 / 2.57 / 2.66 / 2.81 / 3.61 (32x8x4 2.46 at 2 rows, 3.95 at 8; 8x32x4
  // 2.88 / 3.56): from 3 rows.
  int64_t gemv_q4_multi_min_rows = 0;
  std::optional<GemvQ4Shape> gemv_q4_multi_forced;  // its shape override (every N)
  // Int8 GEMM tile (both int8 kernels, gemm_mmq_tile): the forced one, else on CPU adapters 64x128 with 128
  // invocations, else the largest of 128x128, 64x128, 64x64 (KB 2) whose grid at the op's largest M has >= this
  // many workgroups (the last where none has; the target is the GPUs' rule, set to 2048 by for_device).
  std::optional<MmqTile> gemm_mmq_forced;
  uint32_t gemm_mmq_target_workgroups = 128;
  uint32_t gemm_mmq_pipeline = 0;  // the tile's PF (both int8 kernels): 1 loads the next slice during this one's products
  // q4gsw int8 GEMM (route 3 of the q4 linear) whose grid has fewer workgroups than this splits K into up to
  // kMmqMaxSplits slices summed by gemm_splitk_reduce.wgsl (ops/linear/gemm.h mmq_splits; 0: never).
  uint32_t gemm_mmq_split_target = 0;
  bool cpu_adapter = false;        // selects the CPU shape table of the q4 GEMV
  GemmTuning gemm;                 // the GEMM kernel (linear prefill, matmul, encoder attention)
  bool gemm_cpu_supported = false; // subgroups of >= 8 lanes (the Cpu GEMM broadcasts lanes 0..7)
  uint64_t max_binding_bytes = 0;  // weights are split along N into bindings of at most this many bytes
  // wgrt.linear_q4gsw_fused and wgrt.linear_ggml_fused on the GEMV route (M <= gemv_max_rows): RMSNorm and GLU
  // inside the GEMV dispatch (gemv_q4_fuse.wgsl's hooks); off: the norm and the GLU run as their own dispatches
  // (the residual stays in the GEMV), and Llm builds the unfused layer body (so wgrt.linear_ggml_rope_qkv, whose
  // GEMV routes always keep the norm inside where x is not int8 from a quantize pass, is not built).
  bool fused_gemv = true;
  // The decoder layer's q/k/v as one GEMV over the stacked weight [Wq; Wk; Wv], then wgrt.rope_qkv_cache (RoPE of q
  // and k and the KV-cache write in one dispatch; the SDPA then skips its cache write): 2 dispatches instead of
  // 3 GEMVs + RoPE + cache write, where the three weights stack (LlamaGraphOptions::fuse_qkv); in the fused body
  // block formats take wgrt.linear_ggml_rope_qkv instead (1 dispatch; a q/k/v bias after the norm weight).
  bool fused_qkv = true;
  // ---- attention (ops/attention) ----
  // llama.sdpa_with_kv_cache (flash attention, ops/attention/sdpa.cpp plan_flash):
  int64_t sdpa_split_min_context = 256;      // decode (S == 1) splits the keys from this many keys of context
  int64_t sdpa_split_min_chunk = 128;        // ... into chunks of a multiple of this many keys (ops/attention/key_split.h)
  int64_t sdpa_split_target_workgroups = 512;  // ... enough chunks for at most about this many workgroups
  // The decode combine (sdpa_decode_body.wgsl combine_splits) loops over a row's splits up to this many, else issues
  // every load at once and merges in workgroup memory: 4 on GPUs (H200 run 28c), every split (64) on CPU adapters
  // (lavapipe decode 25% slower with the workgroup merge, BENCHMARKS.md run 28).
  int64_t sdpa_combine_loop_splits = 64;
  int64_t sdpa_narrow_max_rows = 4;          // narrow blocks (4 rows) when S * Hq/Hkv <= this, else 16-row blocks
  bool sdpa_legacy = false;                  // scores-in-scratch route (sdpa.wgsl) where its scratch fits
  // Prefill (S > 1, D % 4 == 0, D <= sdpa_prefill_max_d): the register-blocked kernel (sdpa_flash_prefill.wgsl)
  // (halved where its workgroup memory would not fit) with this many
  // query rows per invocation (blocks of 16 * rpt rows; 1, 2 or 4) instead of the wide route; 0: off.
  // 4 on every adapter: fewest K/V tile loads per row; best on lavapipe, and on the H200 once the kernel stages
  // V tiles and specializes the head dim (one 512-token chunk at pos 1536: 558 us at 4, 771 at 2, 857 at 1).
  uint32_t sdpa_prefill_rpt = 4;
  // Prefill split-KV on that kernel (plan_flash): where its B * Hkv * blocks workgroups are fewer than
  // sdpa_prefill_split_target_workgroups (0: never split), the keys are split into chunks of at least
  // sdpa_prefill_split_min_chunk keys (rounded up to its 32-key tiles; at most 8 splits), merged by a combine
  // dispatch. The split scratch is sized at build only when the target is > 0 then.
  // Head dims up to this take that kernel (<= 128; for_device: 128 on GPUs, 64 on CPU adapters, where D 80-128
  // is unmeasured against the wide route), larger ones the wide / narrow flash routes.
  int64_t sdpa_prefill_max_d = 64;
  int64_t sdpa_prefill_split_min_chunk = 256;
  int64_t sdpa_prefill_split_target_workgroups = 0;
  bool sdpa_decode_kernel = true;            // decode (S == 1, D % 4 == 0) on sdpa_decode.wgsl, else sdpa_flash.wgsl
  // ... and with this many lanes per key (> 0, adapters with subgroups) on sdpa_decode_sg.wgsl instead, where its
  // shape rule holds (sdpa.cpp decode_sg_shape: fewer lanes where the subgroups or the head dim need it); 0: off.
  uint32_t sdpa_decode_lanes = 0;
  // wgrt.sdpa_batched (the serving step, ops/attention/sdpa_batched.cpp): a call of R <= this many rows with
  // D % 4 == 0 and no soft cap / window takes the decode route (sdpa_batched_decode.wgsl: each row a decode query
  // of its slot, the G query heads of a kv head sharing K/V loads, keys split by the sdpa_split_* rule from the
  // step's longest row); other calls take the scores route (sdpa_batched.wgsl, one workgroup per row and head,
  // scores in scratch). 0: the scores route always. Every row count by default: the cache write runs first, so a
  // prefill chunk's rows see each other on either route, and the decode route reads each K/V row once per kv head
  // instead of once per query head.
  int64_t sdpa_batched_decode_rows = int64_t(1) << 30;
  SdpaEncoderRoute sdpa_encoder_route = SdpaEncoderRoute::Auto;
  uint64_t sdpa_encoder_score_bytes = uint64_t(64) << 20;  // GEMM route: score scratch bound (query-row chunks)
  int64_t sdpa_encoder_split_max_rows = 512;   // Auto: split-K serves B*H*Sq <= this many query rows ...
  int64_t sdpa_encoder_split_min_keys = 1024;  // ... over Skv >= this many keys
  // ---- models ----
  int prefill_chunk = 512;  // default tokens per prefill execute (Llm::load, BatchLlm; models::default_prefill_chunk)
  // ---- graph runtime ----
  uint32_t submit_chunk = 0;    // ExecutableGraph::execute submits every this many dispatches (0: once)
  bool decode_pipeline = true;  // greedy generation runs the GPU-resident decode loop (generate_loop.cpp)
  // Sampling (temperature > 0) draws on the GPU (wgrt.sample, ops/sampling) instead of reading the logits back
  // for text::Sampler; with decode_pipeline the draws then run in the GPU-resident loop too.
  bool gpu_sampling = true;

  // Shape tables by N (rows) and K. `kernel` is Workgroup or Int8.
  GemvQ4Shape gemv_q4_shape(Q4GemvKernel kernel, int64_t N) const;
  GemvQ4Shape gemv_q4_multi_shape(Q4GemvKernel kernel, int64_t N) const;  // for M >= gemv_q4_multi_min_rows
  GemvQ4SgShape gemv_q4_sg_shape(int64_t N, int64_t K) const;
  GemvQ4S8Shape gemv_q4_s8_shape(int64_t N, int64_t K) const;
  // The int8 GEMM tile for a linear layer of at most M rows of x and N outputs.
  MmqTile gemm_mmq_tile(int64_t M, int64_t N) const;
  // The block-format int8 GEMM's (gemm_mmq_ggml.wgsl) tile: gemm_mmq_tile's, except that on GPUs, unless
  // WGRT_GEMM_MMQ_TILE forces one, it keeps 256 invocations and no pipeline (H200 run 23: the pipeline measured
  // slower here, Q4_K_M pp512 11,196 vs 12,759; 128 invocations unmeasured).
  MmqTile gemm_mmq_ggml_tile(int64_t M, int64_t N) const;

  // The rules applied to `facts`, then `o`. Throws InvalidArgument when an override asks for what the device
  // cannot run (WGRT_GEMM=cpu without subgroups of >= 8 lanes).
  static Tuning for_device(const DeviceFacts& facts, const TuningOverrides& o = {});
  // gemv_kq.wgsl rows of W per invocation for ggml weight type id `wtype` and n rows of W (before the op's MB * RPT
  // <= 16 cap), `norm` whether the GEMV folds in the RMSNorm: ggml_gemv_wide_rpt where it is set and n >=
  // ggml_gemv_wide_n, else ggml_gemv_norm_rpt where it is set, norm and n >= ggml_gemv_norm_n, else 1 where n <
  // ggml_gemv_narrow_n, else 4 under
  // ggml_gemv_rpt_by_type unless wtype is Q6_K (14), else ggml_gemv_rpt. Pure, any thread.
  uint32_t ggml_gemv_rpt_for(int64_t wtype, int64_t n, bool norm = false) const;
  // rpt rows of W per invocation for every type and width: ggml_gemv_rpt = ggml_gemv_stream_rpt = rpt with the
  // by-type, wide, norm and narrow rules off (WGRT_GEMV_GGML=blocks,RPT; tests that pin the kernel's rows). Any thread; not thread-safe.
  void force_ggml_gemv_rpt(uint32_t rpt);
  std::string describe() const;  // one line per entry, for `wgrt info`
};

}  // namespace wgrt::webgpu
