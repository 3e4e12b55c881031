// The WGRT_* tuning variables (README's environment table), parsed in one place. An empty value is the same as
// unset; anything else that is not of the documented form is an InvalidArgument naming the variable.
#include <fmt/format.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "webgpu/tuning.h"
#include "wgrt/error.h"

namespace wgrt::webgpu {

namespace {

// "a,b,c" of whole numbers 0..max (digits and commas only), n_min..n_max of them; nullopt when malformed.
std::optional<std::vector<uint64_t>> parse_list(const std::string& s, size_t n_min, size_t n_max, uint64_t max) {
  std::vector<uint64_t> v;
  uint64_t cur = 0;
  bool digit = false;
  for (size_t i = 0; i <= s.size(); ++i) {
    const char c = i < s.size() ? s[i] : '\0';
    if (c >= '0' && c <= '9') {
      cur = cur * 10 + uint64_t(c - '0');
      digit = true;
      if (cur > max) return std::nullopt;
    } else if ((c == ',' || c == '\0') && digit) {
      v.push_back(cur);
      cur = 0;
      digit = false;
    } else {
      return std::nullopt;
    }
  }
  if (v.size() < n_min || v.size() > n_max) return std::nullopt;
  return v;
}

[[noreturn]] void bad(const char* var, const std::string& value, const char* form) {
  throw InvalidArgument(fmt::format("{}='{}' is malformed: expected {} (or unset it)", var, value, form));
}

// A q4 GEMV shape TK,TR,RPT[,STAGE] (WGRT_GEMV_Q4, WGRT_GEMV_Q4_MULTI).
GemvQ4Shape parse_gemv_q4_shape(const char* var, const std::string& v) {
  const char* form = "TK,TR,RPT[,STAGE]: TK * TR <= 256, 1 <= RPT <= min(8, TK), TK % RPT == 0, STAGE 0 or 1";
  auto l = parse_list(v, 3, 4, 65536);
  if (!l) bad(var, v, form);
  const uint64_t tk = (*l)[0], tr = (*l)[1], rpt = (*l)[2], stage = l->size() > 3 ? (*l)[3] : 0;
  if (!(stage <= 1 && tk >= 1 && tr >= 1 && tk * tr <= 256 && rpt >= 1 && rpt <= 8 && rpt <= tk && tk % rpt == 0))
    bad(var, v, form);
  return GemvQ4Shape{uint32_t(tk), uint32_t(tr), uint32_t(rpt), uint32_t(stage)};
}

}  // namespace

TuningOverrides parse_tuning_env(const std::function<const char*(const char*)>& get_fn) {
  auto get = [&](const char* name) -> std::optional<std::string> {
    const char* v = get_fn ? get_fn(name) : std::getenv(name);
    if (!v || !*v) return std::nullopt;
    return std::string(v);
  };
  TuningOverrides o;
  if (auto v = get("WGRT_GEMV_Q4_ROUTE")) {
    if (*v == "wg") o.q4_gemv = Q4GemvKernel::Workgroup;
    else if (*v == "i8") o.q4_gemv = Q4GemvKernel::Int8;
    else if (*v == "sg") o.q4_gemv = Q4GemvKernel::Subgroup;
    else if (*v == "s8") o.q4_gemv = Q4GemvKernel::Stream;
    else bad("WGRT_GEMV_Q4_ROUTE", *v, "wg, i8, sg or s8");
  }
  if (auto v = get("WGRT_GEMV_Q4")) o.gemv_q4_shape = parse_gemv_q4_shape("WGRT_GEMV_Q4", *v);
  if (auto v = get("WGRT_GEMV_Q4_MULTI")) o.gemv_q4_multi_shape = parse_gemv_q4_shape("WGRT_GEMV_Q4_MULTI", *v);
  if (auto v = get("WGRT_GEMV_Q4_MULTI_ROWS")) {
    auto l = parse_list(*v, 1, 1, 8);
    if (!l || (*l)[0] == 1) bad("WGRT_GEMV_Q4_MULTI_ROWS", *v, "0 (off) or 2..8");
    o.gemv_q4_multi_min_rows = int64_t((*l)[0]);
  }
  if (auto v = get("WGRT_GEMV_Q4_SG")) {
    const char* form = "RPT,BW,KS: RPT 1..8, BW * KS 1..64, BW * RPT * KS <= 1024";
    auto l = parse_list(*v, 3, 3, 65536);
    if (!l) bad("WGRT_GEMV_Q4_SG", *v, form);
    const uint64_t rpt = (*l)[0], bw = (*l)[1], ks = (*l)[2];
    if (!(rpt >= 1 && rpt <= 8 && bw >= 1 && ks >= 1 && bw * ks <= 64 && bw * rpt * ks <= 1024))
      bad("WGRT_GEMV_Q4_SG", *v, form);
    o.gemv_q4_sg_shape = GemvQ4SgShape{uint32_t(rpt), uint32_t(bw), uint32_t(ks)};
  }
  if (auto v = get("WGRT_GEMV_Q4_S8")) {
    const char* form = "RPT,TR,U[,PLANES]: RPT 1..8, TR 1..8, U 1..16, RPT * U <= 16, PLANES 1 or 3";
    auto l = parse_list(*v, 3, 4, 65536);
    if (!l) bad("WGRT_GEMV_Q4_S8", *v, form);
    const uint64_t rpt = (*l)[0], tr = (*l)[1], u = (*l)[2], planes = l->size() > 3 ? (*l)[3] : 3;
    if (!(rpt >= 1 && rpt <= 8 && tr >= 1 && tr <= 8 && u >= 1 && rpt * u <= 16 && (planes == 1 || planes == 3)))
      bad("WGRT_GEMV_Q4_S8", *v, form);
    o.gemv_q4_s8_shape = GemvQ4S8Shape{uint32_t(rpt), uint32_t(tr), uint32_t(u), uint32_t(planes)};
  }
  if (auto v = get("WGRT_GEMM")) {
    const char* form = "tiled, cpu or cpu,RQ,WG (RQ 1..4, WG 8..256 a multiple of 8)";
    GemmTuning g;
    if (*v == "tiled") {
      g.kind = GemmTuning::Kind::Tiled;
    } else if (*v == "cpu") {
      g.kind = GemmTuning::Kind::Cpu;
    } else if (v->starts_with("cpu,")) {
      auto l = parse_list(v->substr(4), 2, 2, 65536);
      if (!l || (*l)[0] < 1 || (*l)[0] > 4 || (*l)[1] < 8 || (*l)[1] > 256 || (*l)[1] % 8 != 0) bad("WGRT_GEMM", *v, form);
      g = {GemmTuning::Kind::Cpu, uint32_t((*l)[0]), uint32_t((*l)[1])};
    } else {
      bad("WGRT_GEMM", *v, form);
    }
    o.gemm = g;
  }
  if (auto v = get("WGRT_GEMM_BIG")) {
    auto l = parse_list(*v, 1, 1, uint64_t(1) << 31);
    if (!l) bad("WGRT_GEMM_BIG", *v, "a whole number of 128x128 output tiles (0 = off)");
    o.gemm_big_min_tiles = uint32_t((*l)[0]);
  }
  if (auto v = get("WGRT_GEMM_MMQ")) {
    auto l = parse_list(*v, 1, 1, uint64_t(1) << 31);
    if (!l) bad("WGRT_GEMM_MMQ", *v, "a whole number of 128x128 output tiles (0 = off)");
    o.gemm_mmq_min_tiles = uint32_t((*l)[0]);
  }
  if (auto v = get("WGRT_GEMM_MMQ_GGML")) {
    auto l = parse_list(*v, 1, 1, uint64_t(1) << 31);
    if (!l) bad("WGRT_GEMM_MMQ_GGML", *v, "a whole number of 128x128 output tiles (0 = off)");
    o.gemm_mmq_ggml_min_tiles = uint32_t((*l)[0]);
  }
  if (auto v = get("WGRT_GEMM_MMQ_TILE")) {
    const char* form =
        "TM,TN[,KB[,CVT[,WG]]]: TM and TN 64 or 128 (outputs per workgroup; TM 32 or 64 with WG 128), KB 1, 2 or 4 "
        "(32-k blocks per slice; 1 or 2 with WG 128 and TN 128), CVT 0 or 1 (int-to-float conversion or exponent "
        "bits), WG 256 or 128 (invocations per workgroup)";
    auto l = parse_list(*v, 2, 5, 65536);
    if (!l) bad("WGRT_GEMM_MMQ_TILE", *v, form);
    const uint64_t tm = (*l)[0], tn = (*l)[1], kb = l->size() > 2 ? (*l)[2] : 2, cvt = l->size() > 3 ? (*l)[3] : 1;
    const uint64_t wg = l->size() > 4 ? (*l)[4] : 256;
    const bool tm_ok = wg == 256 ? (tm == 64 || tm == 128) : wg == 128 && (tm == 32 || tm == 64);
    if (!(tm_ok && (tn == 64 || tn == 128) && (kb == 1 || kb == 2 || kb == 4) && cvt <= 1 &&
          !(wg == 128 && tn == 128 && kb == 4)))
      bad("WGRT_GEMM_MMQ_TILE", *v, form);
    o.gemm_mmq_tile = MmqTile{uint32_t(tm), uint32_t(tn), uint32_t(kb), uint32_t(cvt), 0, uint32_t(wg)};
  }
  if (auto v = get("WGRT_GEMM_MMQ_TARGET")) {
    auto l = parse_list(*v, 1, 1, uint64_t(1) << 31);
    if (!l) bad("WGRT_GEMM_MMQ_TARGET", *v, "a whole number of workgroups (0 = always 128x128 tiles)");
    o.gemm_mmq_target_workgroups = uint32_t((*l)[0]);
  }
  if (auto v = get("WGRT_GEMM_MMQ_PIPELINE")) {
    auto l = parse_list(*v, 1, 1, 1);
    if (!l) bad("WGRT_GEMM_MMQ_PIPELINE", *v, "0 or 1 (1: the int8 GEMM loads the next slice during this one's products)");
    o.gemm_mmq_pipeline = uint32_t((*l)[0]);
  }
  if (auto v = get("WGRT_GEMM_MMQ_SPLITK")) {
    auto l = parse_list(*v, 1, 1, uint64_t(1) << 31);
    if (!l) bad("WGRT_GEMM_MMQ_SPLITK", *v, "a whole number of workgroups below which the q4 int8 GEMM splits K (0 = off)");
    o.gemm_mmq_split_target = uint32_t((*l)[0]);
  }
  if (auto v = get("WGRT_GEMM_SPLITK")) {
    auto l = parse_list(*v, 1, 1, uint64_t(1) << 31);
    if (!l) bad("WGRT_GEMM_SPLITK", *v, "a whole number of workgroups below which mm / addmm split K (0 = off)");
    o.gemm_split_target = uint32_t((*l)[0]);
  }
  if (auto v = get("WGRT_SDPA")) {
    if (*v == "flash") o.sdpa_legacy = false;
    else if (*v == "legacy") o.sdpa_legacy = true;
    else bad("WGRT_SDPA", *v, "flash or legacy");
  }
  if (auto v = get("WGRT_SDPA_PREFILL")) {
    if (*v == "0" || *v == "1" || *v == "2" || *v == "4") o.sdpa_prefill_rpt = uint32_t(v->front() - '0');
    else bad("WGRT_SDPA_PREFILL", *v, "0 (off), 1, 2 or 4 (query rows per invocation)");
  }
  if (auto v = get("WGRT_SDPA_DECODE")) {
    auto l = parse_list(*v, 1, 1, 1);
    if (!l) bad("WGRT_SDPA_DECODE", *v, "0 or 1");
    o.sdpa_decode_kernel = (*l)[0] == 1;
  }
  if (auto v = get("WGRT_SDPA_DECODE_LANES")) {
    auto l = parse_list(*v, 1, 1, 32);
    if (!l || ((*l)[0] & ((*l)[0] - 1)) != 0)
      bad("WGRT_SDPA_DECODE_LANES", *v, "0 (off) or a power of two up to 32 (lanes per key of the subgroup decode kernel)");
    o.sdpa_decode_lanes = uint32_t((*l)[0]);
  }
  if (auto v = get("WGRT_SDPA_BATCHED")) {
    auto l = parse_list(*v, 1, 1, uint64_t(1) << 30);
    if (!l) bad("WGRT_SDPA_BATCHED", *v, "a row count up to which the serving batch takes the decode attention (0 = off)");
    o.sdpa_batched_decode_rows = int64_t((*l)[0]);
  }
  if (auto v = get("WGRT_SDPA_PREFILL_SPLIT")) {
    auto l = parse_list(*v, 2, 2, uint64_t(1) << 30);
    if (!l || (*l)[0] == 0) bad("WGRT_SDPA_PREFILL_SPLIT", *v, "MIN_CHUNK,TARGET_WORKGROUPS (keys >= 1, workgroups; 0 = off)");
    o.sdpa_prefill_split = std::array<int64_t, 2>{int64_t((*l)[0]), int64_t((*l)[1])};
  }
  if (auto v = get("WGRT_SDPA_SPLIT")) {
    const char* form = "MIN_CONTEXT,MIN_CHUNK,TARGET_WORKGROUPS (keys, keys >= 1, workgroups >= 1)";
    auto l = parse_list(*v, 3, 3, uint64_t(1) << 30);
    if (!l || (*l)[1] == 0 || (*l)[2] == 0) bad("WGRT_SDPA_SPLIT", *v, form);
    o.sdpa_split = std::array<int64_t, 3>{int64_t((*l)[0]), int64_t((*l)[1]), int64_t((*l)[2])};
  }
  if (auto v = get("WGRT_MAX_BINDING_BYTES")) {
    auto l = parse_list(*v, 1, 1, uint64_t(1) << 48);
    if (!l || (*l)[0] == 0) bad("WGRT_MAX_BINDING_BYTES", *v, "a whole number of bytes > 0");
    o.max_binding_bytes = (*l)[0];
  }
  if (auto v = get("WGRT_SUBMIT_CHUNK")) {
    auto l = parse_list(*v, 1, 1, 1u << 20);
    if (!l) bad("WGRT_SUBMIT_CHUNK", *v, "a whole number of dispatches per submit (0: one submit per execute)");
    o.submit_chunk = uint32_t((*l)[0]);
  }
  if (auto v = get("WGRT_DECODE_PIPELINE")) {
    auto l = parse_list(*v, 1, 1, 1);
    if (!l) bad("WGRT_DECODE_PIPELINE", *v, "0 or 1");
    o.decode_pipeline = (*l)[0] == 1;
  }
  if (auto v = get("WGRT_GPU_SAMPLING")) {
    auto l = parse_list(*v, 1, 1, 1);
    if (!l) bad("WGRT_GPU_SAMPLING", *v, "0 or 1");
    o.gpu_sampling = (*l)[0] == 1;
  }
  if (auto v = get("WGRT_GEMV_MAX_ROWS")) {
    auto l = parse_list(*v, 1, 1, 8);
    if (!l) bad("WGRT_GEMV_MAX_ROWS", *v, "a whole number of rows in 0..8");
    o.gemv_max_rows = int64_t((*l)[0]);
  }
  if (auto v = get("WGRT_FUSED_GEMV")) {
    auto l = parse_list(*v, 1, 1, 1);
    if (!l) bad("WGRT_FUSED_GEMV", *v, "0 or 1");
    o.fused_gemv = (*l)[0] == 1;
  }
  if (auto v = get("WGRT_FUSED_QKV")) {
    auto l = parse_list(*v, 1, 1, 1);
    if (!l) bad("WGRT_FUSED_QKV", *v, "0 or 1");
    o.fused_qkv = (*l)[0] == 1;
  }
  if (auto v = get("WGRT_GEMV_GGML")) {
    if (*v == "blocks") o.ggml_gemv_blocks = true;
    else if (*v == "generic") o.ggml_gemv_blocks = false;
    else if (*v == "blocks,1" || *v == "blocks,2" || *v == "blocks,4" || *v == "blocks,8") o.ggml_gemv_blocks = true, o.ggml_gemv_rpt = uint32_t(v->back() - '0');
    else bad("WGRT_GEMV_GGML", *v, "blocks, blocks,RPT (RPT 1, 2, 4 or 8) or generic");
  }
  if (auto v = get("WGRT_GEMV_KQ_NORM_RPT")) {
    if (*v == "0" || *v == "1" || *v == "2" || *v == "4") o.ggml_gemv_norm_rpt = uint32_t(v->back() - '0');
    else bad("WGRT_GEMV_KQ_NORM_RPT", *v, "0 (the rule off), 1, 2 or 4 rows of W per invocation");
  }
  if (auto v = get("WGRT_GEMV_KQ_NARROW_N")) {
    auto l = parse_list(*v, 1, 1, uint64_t(1) << 30);
    if (!l) bad("WGRT_GEMV_KQ_NARROW_N", *v, "rows of W below which the block GEMV takes 1 row per invocation (0: off)");
    o.ggml_gemv_narrow_n = int64_t((*l)[0]);
  }
  if (auto v = get("WGRT_GEMV_KQ_TK")) {
    if (*v == "16" || *v == "32") o.ggml_gemv_tk = uint32_t(std::stoul(*v));
    else bad("WGRT_GEMV_KQ_TK", *v, "16 or 32 k lanes");
  }
  if (auto v = get("WGRT_GEMV_KQ_STREAM")) {
    auto l = parse_list(*v, 1, 1, 1);
    if (!l) bad("WGRT_GEMV_KQ_STREAM", *v, "0 or 1");
    o.ggml_gemv_stream = (*l)[0] == 1;
  }
  if (auto v = get("WGRT_GEMV_KQ_CONST_CHUNKS")) {
    auto l = parse_list(*v, 1, 1, 8);
    if (!l) bad("WGRT_GEMV_KQ_CONST_CHUNKS", *v, "0 (off) to 8 chunks per k lane");
    o.ggml_gemv_const_chunks = uint32_t((*l)[0]);
  }
  if (auto v = get("WGRT_GEMV_KQ_INT8")) {
    auto l = parse_list(*v, 1, 1, 2);
    if (!l) bad("WGRT_GEMV_KQ_INT8", *v, "0 (f32 x), 1 (int8 x from a quantize pass) or 2 (int8 x staged per workgroup)");
    o.ggml_gemv_int8 = uint32_t((*l)[0]);
  }
  return o;
}

}  // namespace wgrt::webgpu
