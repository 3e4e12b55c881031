// wgrt.linear_ggml.default (weights resident in their ggml block format, decoded in gemv_kq.wgsl / gemv_ggml.wgsl) on a real
// adapter against the plain C++ reference: the src/formats decoders (bit-exact with llama.cpp, see
// tests/host/ggml_dequant_test.cpp) and a double-accumulating GEMV. Per type (all 22 the kernels decode):
// odd N (1, 7, 37, 300), K of 1, 3 and 25 blocks (F16 also K = 1 and 5), M = 1, 3 and 20, bias / no bias, M
// changing between executes, and weights bound in 256-row chunks (a lowered max_binding_bytes policy).
// Weights: random block bytes with every f16 field set to a random normal f16 in +-[0.01, 0.1] (BF16: normal
// values in +-[2^-8, 2^8); MXFP4: E8M0 scales 2^-8 .. 2^1; IQ1_M: its split f16 scale in +-[2^-7, 2^-3)).
// Tolerance: |gpu - ref| <= 1e-5 * sum_k |x_k W_nk| + 1e-6 (f32 accumulation of K products; the GPU may fuse
// the decode's multiply-adds).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "formats/ggml_quant.h"
#include "ggml_test_blocks.h"
#include "gpu_fixture.h"
#include "graph/executable.h"
#include "ops/linear/linear_ggml.h"
#include "ops_a_test_util.h"
#include "reference/ops_a_reference.h"
#include "util/half.h"
#include "webgpu/pipeline_cache.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::gpu;
using wgrt::test::kTypes;
using wgrt::test::random_blocks;
using wgrt::test::TypeInfo;
using wgrt::test::GgmlLinear;
using wgrt::test::make;
using wgrt::test::route0_workgroups;
namespace ref = wgrt::test::ref;

namespace {

// The device's tuning with f32 x in the block GEMV (these tolerances are f32's; linear_ggml_int8_test.cpp: int8 x).
webgpu::Tuning f32_x_tuning() {
  webgpu::Tuning t = gpu().tuning();
  t.ggml_gemv_int8 = 0;
  t.gemm.mmq_ggml_min_tiles = 0;  // and on the f32 routes for M > 8 (the int8 GEMM: linear_mmq_ggml_test.cpp)
  return t;
}

// Tolerance |d| <= rel * sum_k |x w| + 1e-6.
void check(GgmlLinear& r, int64_t M, int64_t N, int64_t K, uint32_t seed, const std::string& what, double rel = 1e-5) {
  std::vector<float> x = ref::random_floats(size_t(M * K), seed);
  r.exe->set_input(r.x, {M, K}, std::span<const float>(x));
  r.exe->execute();
  ASSERT_EQ(r.exe->dims(r.out), (Dims{M, N})) << what;
  std::vector<float> got = r.exe->read_f32(r.out);
  int bad = 0;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = r.bias.empty() ? 0.0 : r.bias[size_t(n)], mag = 0;
      for (int64_t k = 0; k < K; ++k) {
        const double p = double(x[size_t(m * K + k)]) * r.w[size_t(n * K + k)];
        s += p, mag += std::fabs(p);
      }
      const double d = std::fabs(got[size_t(m * N + n)] - s);
      if (!(d <= rel * mag + 1e-6) && bad++ < 3)
        ADD_FAILURE() << what << " m " << m << " n " << n << ": gpu " << got[size_t(m * N + n)] << " ref " << s;
    }
  EXPECT_EQ(bad, 0) << what;
}

TEST(LinearGgml, EveryTypeOddSizesAgainstCpuReference) {
  webgpu::ScopedTuning scoped(gpu(), f32_x_tuning());
  uint32_t seed = 1;
  for (const TypeInfo& t : kTypes) {
    const int64_t be = ops::ggml_gpu_block(int64_t(t.type))->elems;
    std::vector<int64_t> ks = {be, 3 * be, 25 * be};
    if (be == 1) ks = {1, 5, 96, 803};
    for (int64_t K : ks)
      for (int64_t N : {1, 7, 37, 300}) {
        const bool bias = (N + K) % 2 == 1;
        GgmlLinear r = make(t, N, K, bias, ++seed);
        const std::string what = ggml_type_name(t.type) + " K " + std::to_string(K) + " N " + std::to_string(N);
        check(r, 1, N, K, ++seed, what + " M 1");
        check(r, 3, N, K, ++seed, what + " M 3");
        if (N == 37) check(r, 20, N, K, ++seed, what + " M 20");
        check(r, 1, N, K, ++seed, what + " M 1 again");
      }
  }
}

// The block-format GEMM route (GPUs: the Tiled GEMM kind, M > gemv_max_rows; forced here on any adapter):
// every type, M 9 (and 133, one past a 128-row tile, for K of one block, N 130), N 7 and 130, K of 1 and 3
// blocks (F16: K 5 and 96), the same graph also taking the GEMV route for M 1. Tolerance 1e-5 of sum |x w| (a different summation order).
TEST(LinearGgml, EveryTypeGemmRouteOddSizes) {
  webgpu::Tuning tun = f32_x_tuning();
  tun.gemm.kind = webgpu::GemmTuning::Kind::Tiled;
  tun.gemm.mmq_ggml_min_tiles = 0;  // the f32 kernel (the int8 one: linear_mmq_ggml_test.cpp)
  webgpu::ScopedTuning scoped(gpu(), tun);
  uint32_t seed = 500;
  for (const TypeInfo& t : kTypes) {
    const int64_t be = ops::ggml_gpu_block(int64_t(t.type))->elems;
    std::vector<int64_t> ks = {be, 3 * be};
    if (be == 1) ks = {5, 96};
    for (int64_t K : ks)
      for (int64_t N : {7, 130}) {
        GgmlLinear r = make(t, N, K, N == 7, ++seed, 133);
        const std::string what = ggml_type_name(t.type) + " K " + std::to_string(K) + " N " + std::to_string(N);
        const int64_t M = K == ks[0] && N == 130 ? 133 : 9;
        check(r, M, N, K, ++seed, what + " M " + std::to_string(M));
        const std::string dump = r.exe->dump();
        const size_t at = dump.find("gemm_big.wgsl:main");
        ASSERT_NE(at, std::string::npos) << what;
        EXPECT_EQ(dump.substr(at, dump.find('\n', at) - at).find("inactive"), std::string::npos) << what;
        check(r, 1, N, K, ++seed, what + " M 1");
      }
  }
}

// The layout-aware block GEMV (gemv_kq.wgsl; the default for Q4_1, Q5_0, Q8_0, Q4_K, Q5_K, Q6_K) and, for the
// same types, the generic one (the policy's ggml_gemv_blocks off): M 1, 2, 3, 5, 8 on one graph (the routes of
// 1, 2, 4 and 8 rows per grid layer, partly filled layers), then M 11 (two layers of 8, the second partial) and
// M 1 again; N 13 and 37 (partial last workgroups of 16 rows), N 1 at K of one block; K of 1 and 3 blocks (odd
// block counts put every other row of the 2-byte aligned formats at an odd half-word) and of 36 / 37 chunks
// (more chunks than the 32 k lanes, so lanes take several); RPT 2 (the default) and 4 (capped to 2 at MB 8), and RPT 2
// with layers of at most 4 rows of x (the CPU adapters' widest route).
// The dump shows which kernel ran.
TEST(LinearGgml, BlockGemvEveryRowCount) {
  uint32_t seed = 900;
  for (uint32_t rpt : {0u, 2u, 4u, 3u}) {  // 0: the generic kernel; 3: RPT 2 with layers of at most 4 rows of x
    webgpu::Tuning tun = f32_x_tuning();
    tun.ggml_gemv_max_mb = rpt == 3 ? 4 : 8;
    if (rpt == 3) rpt = 2;
    tun.ggml_gemv_blocks = rpt != 0;
    tun.force_ggml_gemv_rpt(std::max(rpt, 1u));  // this RPT for every type and width (no policy rule)
    webgpu::ScopedTuning scoped(gpu(), tun);
    for (const TypeInfo& t : kTypes) {
      if (!ops::ggml_gemv_blocks_type(int64_t(t.type))) continue;
      const int64_t be = ops::ggml_gpu_block(int64_t(t.type))->elems;
      const std::vector<int64_t> ks = {be, 3 * be, be == 256 ? 9 * be : 37 * be};
      for (int64_t K : ks)
        for (int64_t N : {1, 13, 37}) {
          if ((N == 1 && K != be) || (rpt != 2 && K != ks[1])) continue;
          GgmlLinear r = make(t, N, K, N == 13, ++seed);
          const std::string what = ggml_type_name(t.type) + " rpt " + std::to_string(rpt) + " mb " +
                                   std::to_string(tun.ggml_gemv_max_mb) + " K " +
                                   std::to_string(K) + " N " + std::to_string(N);
          const std::string dump = r.exe->dump();
          EXPECT_EQ(dump.find("gemv_kq.wgsl:main") != std::string::npos, rpt != 0) << what;
          for (int64_t M : {1, 2, 3, 5, 8, 11, 1}) check(r, M, N, K, ++seed, what + " M " + std::to_string(M));
        }
    }
  }
}

// The chunk loop of constant trip count (gemv_kq's override KCH, from the policy's ggml_gemv_const_chunks, 1 here,
// with 32 k lanes): Q4_K, Q6_K (the two K-quant chunk layouts) and Q8_0 (a 32-element type) at K of exactly 32 chunks per
// row (one per k lane: K 2048 for the K-quants, 1024 for Q8_0) against the reference at M 1, 2, 5, 8. The same op is
// built with the rule off first; the rule's build must then add pipelines (KCH 1) at 32 chunks, and none at 64 (KCH
// 2, above the rule's 1) or 36 (not a whole number per lane), whose KCH stays 0.
TEST(LinearGgml, ConstantChunksPerLane) {
  uint32_t seed = 1300;
  for (const TypeInfo& t : kTypes) {
    if (t.type != GgmlType::Q4_K && t.type != GgmlType::Q6_K && t.type != GgmlType::Q8_0) continue;
    const int64_t ce = ops::ggml_gpu_block(int64_t(t.type))->elems == 256 ? 64 : 32;
    for (int64_t chunks : {32, 64, 36}) {
      const int64_t K = chunks * ce, N = 13;
      const std::string what = ggml_type_name(t.type) + " K " + std::to_string(K);
      webgpu::Tuning off = f32_x_tuning(), on = f32_x_tuning();
      off.ggml_gemv_tk = on.ggml_gemv_tk = 32;
      off.ggml_gemv_const_chunks = 0;
      on.ggml_gemv_const_chunks = 1;
      {
        webgpu::ScopedTuning scoped(gpu(), off);
        GgmlLinear r0 = make(t, N, K, true, ++seed);
      }
      const size_t before = gpu().pipelines().pipeline_count();
      webgpu::ScopedTuning scoped(gpu(), on);
      GgmlLinear r = make(t, N, K, true, ++seed);
      EXPECT_EQ(gpu().pipelines().pipeline_count() > before, chunks == 32) << what;
      for (int64_t M : {1, 2, 5, 8}) check(r, M, N, K, ++seed, what + " M " + std::to_string(M));
    }
  }
}

// The streamed one-row route (gemv_kq's override STREAM, the policy's ggml_gemv_stream: CPU adapters) for the six
// gemv_kq types against the reference: odd N (67: past the last whole workgroup of 8 * RPT rows; 130) and K of 3
// and 25 blocks, 16 k lanes at 16 rows of W per invocation (the CPU policy's) and, for Q4_K and Q6_K, 32 k lanes at
// 3 rows; M 1, 2 (the interleaved two-row route of the same op), 1. The one-row route's grid must show the streamed
// rows of W per invocation (the interleaved route's rule gives 4, Q6_K 2).
TEST(LinearGgml, StreamedRowsOfW) {
  uint32_t seed = 1500;
  for (const TypeInfo& t : kTypes) {
    if (!ops::ggml_gemv_blocks_type(int64_t(t.type))) continue;
    const int64_t be = ops::ggml_gpu_block(int64_t(t.type))->elems;
    std::vector<std::pair<uint32_t, uint32_t>> shapes = {{16, 16}};  // k lanes, rows of W per invocation
    if (t.type == GgmlType::Q4_K || t.type == GgmlType::Q6_K) shapes.push_back({32, 3});
    for (const auto& [tk, rpt] : shapes) {
      webgpu::Tuning on = f32_x_tuning();
      on.ggml_gemv_tk = tk;
      on.ggml_gemv_stream = true;
      on.ggml_gemv_stream_rpt = rpt;
      for (const auto& [K, N] : {std::pair<int64_t, int64_t>{3 * be, 67}, {25 * be, 130}}) {
        const std::string what = fmt::format("{} K {} N {} TK {} RPT {}", ggml_type_name(t.type), K, N, tk, rpt);
        std::optional<webgpu::ScopedTuning> scoped(std::in_place, gpu(), on);
        GgmlLinear r = make(t, N, K, (K + N) % 2 == 1, ++seed);
        scoped.reset();
        for (int64_t M : {1, 2, 1}) check(r, M, N, K, ++seed, what + " M " + std::to_string(M));
        // The one-row route took the streamed rows of W per invocation (8 * RPT rows per workgroup).
        EXPECT_EQ(route0_workgroups(*r.exe), (N + 8 * rpt - 1) / (8 * rpt)) << what;
      }
    }
  }
}

TEST(LinearGgml, WeightsSplitAcrossBindings) {
  for (const TypeInfo& t : kTypes) {
    const int64_t be = ops::ggml_gpu_block(int64_t(t.type))->elems, K = be == 1 ? 96 : 2 * be, N = 600;
    const uint64_t row_bytes = uint64_t(K / be) * uint64_t(ops::ggml_gpu_block(int64_t(t.type))->bytes);
    webgpu::Tuning tun = f32_x_tuning();
    tun.max_binding_bytes = 300 * row_bytes;  // chunks of 256 rows: 3
    std::optional<webgpu::ScopedTuning> scoped(std::in_place, gpu(), tun);
    GgmlLinear r = make(t, N, K, true, 99);
    scoped.reset();
    check(r, 2, N, K, 5, ggml_type_name(t.type) + " split");
    check(r, 7, N, K, 6, ggml_type_name(t.type) + " split M 7");
  }
}

TEST(LinearGgml, BadArgumentsAreBuildErrors) {
  Graph g;
  ValueId x = g.input("x", DType::F32, {1, 48});
  ValueId w = g.constant("w", DType::U32, {17}, ConstantData::from_vector(std::vector<uint32_t>(17)));
  ValueId out = g.tensor_like(DType::F32, "out");
  g.op("wgrt.linear_ggml.default", {x, w, g.int_value(8), g.int_value(2), g.none(), out}, "lin");  // K 48: not 32k
  g.output(out);
  EXPECT_THROW(ExecutableGraph::build(std::move(g), gpu()), wgrt::Error);
  Graph g2;
  x = g2.input("x", DType::F32, {1, 256});
  w = g2.constant("w", DType::U32, {14}, ConstantData::from_vector(std::vector<uint32_t>(14)));
  out = g2.tensor_like(DType::F32, "out");
  g2.op("wgrt.linear_ggml.default", {x, w, g2.int_value(34), g2.int_value(1), g2.none(), out}, "lin");  // TQ1_0
  g2.output(out);
  EXPECT_THROW(ExecutableGraph::build(std::move(g2), gpu()), wgrt::Error);
}

}  // namespace

namespace {

// wgrt.embedding_ggml.default: rows of every type, ids in range, out of range (zero rows), weights split into
// 256-row chunks. Exact: each output is one decoded element (tolerance 1e-6 relative for the GPU's fused
// multiply-adds in the decode).
TEST(EmbeddingGgml, EveryTypeRowsZerosAndSplit) {
  for (const TypeInfo& t : kTypes) {
    for (bool split : {false, true}) {
      const int64_t be = ops::ggml_gpu_block(int64_t(t.type))->elems, D = be == 1 ? 40 : be, V = 600;
      const uint64_t row_bytes = uint64_t(D / be) * uint64_t(ops::ggml_gpu_block(int64_t(t.type))->bytes);
      std::vector<uint8_t> raw = random_blocks(t, V, D, 7 + uint64_t(split));
      std::vector<float> w = dequantize(t.type, raw, uint64_t(V * D), "w");
      std::vector<uint32_t> words = wgrt::test::gpu_words(t.type, raw);
      Graph g;
      ValueId ids = g.input("ids", DType::I32, {6});
      const int64_t nw = int64_t(words.size());
      ValueId wv = g.constant("w", DType::U32, {nw}, ConstantData::from_vector(std::move(words)));
      ValueId out = g.tensor_like(DType::F32, "out");
      g.op("wgrt.embedding_ggml.default", {wv, g.int_value(int64_t(t.type)), g.int_value(V), g.int_value(D), ids, out}, "emb");
      g.output(out);
      webgpu::Tuning tun = f32_x_tuning();
      if (split) tun.max_binding_bytes = 300 * row_bytes;  // chunks of 256 rows: 3
      std::optional<webgpu::ScopedTuning> scoped(std::in_place, gpu(), tun);
      auto exe = ExecutableGraph::build(std::move(g), gpu());
      scoped.reset();
      const std::vector<int32_t> id = {0, 599, 255, 256, -1, 600};
      exe->set_input(ids, {6}, std::span<const int32_t>(id));
      exe->execute();
      std::vector<float> got = exe->read_f32(out);
      ASSERT_EQ(got.size(), size_t(6 * D));
      for (size_t i = 0; i < id.size(); ++i)
        for (int64_t d = 0; d < D; ++d) {
          const float want = id[i] < 0 || id[i] >= V ? 0.0f : w[size_t(id[i] * D + d)];
          ASSERT_NEAR(got[i * size_t(D) + size_t(d)], want, 1e-6 * std::fabs(want))
              << ggml_type_name(t.type) << " split " << split << " id " << id[i] << " d " << d;
        }
    }
  }
}

}  // namespace

// ops::ggml_to_gpu_layout: Q6_K's 210-byte file blocks become 212-byte GPU blocks (each block's bytes unchanged, then
// 2 zero bytes); every other type keeps the file's bytes. Whole blocks only; unknown types rejected.
TEST(GgmlGpuLayout, Q6KPaddedOthersUnchanged) {
  using wgrt::test::expect_error;
  std::vector<uint8_t> q6(3 * 210);
  for (size_t i = 0; i < q6.size(); ++i) q6[i] = uint8_t(i * 7 + 1);  // no zero byte
  const std::vector<uint8_t> g = ops::ggml_to_gpu_layout(14, q6);
  ASSERT_EQ(g.size(), 3u * 212u);
  EXPECT_EQ(ops::ggml_gpu_bytes(14, q6.size()), 636u);
  EXPECT_EQ(ops::ggml_gpu_block(14)->bytes, 212);
  std::vector<uint8_t> into(636, 0xFF);
  EXPECT_EQ(ops::ggml_to_gpu_layout(14, q6, into.data()), 636u);  // the bytes it wrote
  EXPECT_EQ(into, g);
  for (size_t b = 0; b < 3; ++b) {
    EXPECT_TRUE(std::equal(g.begin() + long(b * 212), g.begin() + long(b * 212 + 210), q6.begin() + long(b * 210))) << b;
    EXPECT_EQ(g[b * 212 + 210], 0u) << b;
    EXPECT_EQ(g[b * 212 + 211], 0u) << b;
  }
  std::vector<uint8_t> q4k(2 * 144, 0xA5), q8(5 * 34, 0x3C);
  EXPECT_EQ(ops::ggml_to_gpu_layout(12, q4k), q4k);
  EXPECT_EQ(ops::ggml_to_gpu_layout(8, q8), q8);
  EXPECT_EQ(ops::ggml_gpu_bytes(8, 34), 34u);
  EXPECT_TRUE(ops::ggml_to_gpu_layout(14, std::vector<uint8_t>{}).empty());
  expect_error<InvalidArgument>([] { ops::ggml_gpu_bytes(14, 211); }, "211 bytes of weight type id 14 are not whole blocks of 210 bytes");
  expect_error<InvalidArgument>([] { ops::ggml_to_gpu_layout(12, std::vector<uint8_t>(100)); }, "not whole blocks of 144 bytes");
  expect_error<InvalidArgument>([] { ops::ggml_gpu_bytes(0, 4); }, "weight type id 0 has no GPU kernel");
}
