// The fused Llama layer body (LlamaGraphOptions::fuse: wgrt.linear_q4gsw_fused, or wgrt.linear_ggml_fused for
// block-format weights, with the block norms, the GLU and the residual adds inside the linears) against the
// unfused graph on the same synthetic Q4_0 and Q8_0 files: llama,
// qwen2 (q/k/v biases, rotate-half) and qwen3 (q/k norms), odd group counts (dim 96 = 3 groups, hidden 160 =
// 5), a 5-token prefill (GEMM route) then decode steps (GEMV route), with the policy's fused_gemv on and off.
// The two graphs compute the same function in a different order: logits within 1e-4 absolute (values O(1)),
// the same argmax. Also: the decode step's active dispatch count drops by 3 per layer (11 -> 8) and the first
// layer's input norm when fused, and by 1 more per layer where RoPE and the cache write join the q/k/v GEMV.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "formats/gguf.h"
#include "formats/model_weights.h"
#include "gpu_fixture.h"
#include "graph/executable.h"
#include "model_test_util.h"
#include "models/llama_graph.h"
#include "support/synth_model.h"
#include "webgpu/device.h"

using namespace wgrt;
using namespace wgrt::test;

namespace {

struct GraphRun {
  std::vector<std::vector<float>> logits;
  std::vector<int32_t> tokens;
  size_t decode_dispatches = 0;
};

GraphRun run_graph(const WeightSource& w, bool fuse, bool fuse_qkv = true) {
  models::LlamaGraphOptions o;
  o.context = 16;
  o.max_prefill = 5;
  o.fuse = fuse;
  o.fuse_qkv = fuse_qkv;
  models::LlamaGraph lg = models::build_llama_graph(w, o);
  auto exe = ExecutableGraph::build(std::move(lg.graph), gpu());
  const std::vector<int32_t> tokens = {1, 7, 3, 30, 12, 5, 9, 21, 2};
  GraphRun r;
  auto step = [&](size_t begin, size_t n) {
    std::vector<int32_t> chunk(tokens.begin() + long(begin), tokens.begin() + long(begin + n));
    std::vector<int32_t> pos = {int32_t(begin)};
    exe->set_input(lg.tokens, {1, int64_t(n)}, std::span<const int32_t>(chunk));
    exe->set_input(lg.input_pos, {1}, std::span<const int32_t>(pos));
    exe->execute();
    r.logits.push_back(exe->read_f32(lg.logits));
    r.tokens.push_back(exe->read_i32(lg.next_token)[0]);
  };
  step(0, 5);
  for (size_t i = 5; i < tokens.size(); ++i) step(i, 1);
  r.decode_dispatches = exe->dispatch_count(true);
  return r;
}

SynthSpec spec(const char* arch, GgmlType type) {
  SynthSpec s;
  s.arch = arch;
  s.dim = 96;
  s.hidden = 160;
  s.layers = 3;
  s.heads = 4;
  s.kv_heads = 2;
  s.vocab = 40;
  s.ctx = 32;
  s.matrix_type = type;
  s.qkv_bias = std::string(arch) == "qwen2";
  s.qk_norm = std::string(arch) == "qwen3";
  s.seed = 5;
  return s;
}

}  // namespace

TEST(FusedLlamaGraph, MatchesUnfusedGraph) {
  for (GgmlType type : {GgmlType::Q4_0, GgmlType::Q8_0})
  for (const char* arch : {"llama", "qwen2", "qwen3"})
    for (bool fg : {true, false}) {
      webgpu::Tuning t = gpu().tuning();
      t.fused_gemv = fg;
      webgpu::ScopedTuning scoped(gpu(), t);
      const SynthSpec s = spec(arch, type);
      WeightSource w = load_gguf_llama(GgufFile::from_bytes(synth_llama_gguf(s), "synth.gguf"));
      const GraphRun fused = run_graph(w, true), plain = run_graph(w, false);
      ASSERT_EQ(fused.logits.size(), plain.logits.size());
      for (size_t i = 0; i < fused.logits.size(); ++i) {
        EXPECT_LT(max_abs_diff(fused.logits[i], plain.logits[i]), 1e-4f) << ggml_type_name(type) << " " << arch << " fused_gemv " << fg << " step " << i;
        EXPECT_EQ(fused.tokens[i], plain.tokens[i]) << arch << " step " << i;
      }
      // 3 per layer and the first layer's norm; 1 more per layer where RoPE joins the q/k/v GEMV (block formats,
      // q/k/v stacked: Q8_0 llama, and qwen2 with its biases after the norm weight).
      const size_t rope_op = type == GgmlType::Q8_0 && std::string(arch) != "qwen3" ? size_t(s.layers) : 0;
      if (fg) EXPECT_EQ(fused.decode_dispatches + 3 * size_t(s.layers) + 1 + rope_op, plain.decode_dispatches) << ggml_type_name(type) << " " << arch;
    }
}

// Stacked q/k/v (LlamaGraphOptions::fuse_qkv: one linear over [Wq; Wk; Wv], then wgrt.rope_qkv_cache rotating q and k
// and writing the caches, the SDPA without its own cache write) against the three linears + RoPE + the SDPA's cache
// write, in the fused and the unfused layer body: llama (interleaved pairs), qwen2 (q/k/v biases, rotate-half),
// qwen3 (q/k norms: stays unstacked), Q4_0 (q4gsw) and Q8_0 (block format), and mixes whose layer 1 has attn_v in
// another type: q4gsw with a block type ([Wq; Wk] stacked, v apart), and two block types (Q8_0 with a Q5_0 attn_v,
// as Q4_K_M's Q4_K layers with a Q6_K attn_v: in the fused body one two-type stack [Wq; Wk; Wv], one GEMV dispatch
// at the GPUs' 2 rows of W per invocation, set here on every adapter; the unfused body keeps v apart), prefill then
// decode steps. Same function, different summation order: logits within 1e-4, same argmax; the decode step runs 3
// dispatches fewer per layer where it stacks.
TEST(FusedLlamaGraph, StackedQkvMatchesSeparateLinears) {
  for (GgmlType type : {GgmlType::Q4_0, GgmlType::Q8_0})
    for (const char* arch : {"llama", "qwen2", "qwen3"})
      for (int mixed : {0, 1, 2})
      for (bool fuse : {true, false}) {
        if (mixed && std::string(arch) == "qwen3") continue;
        if (mixed == 2 && type != GgmlType::Q8_0) continue;
        webgpu::Tuning t = gpu().tuning();
        t.fused_gemv = true;  // the fused body's norm inside the GEMV: the dispatch count below
        t.force_ggml_gemv_rpt(2);  // [Wq; Wk]'s 144 rows: whole workgroups of 16
        webgpu::ScopedTuning scoped(gpu(), t);
        SynthSpec s = spec(arch, type);
        if (mixed == 1) s.attn_v_type = type == GgmlType::Q4_0 ? GgmlType::Q8_0 : GgmlType::Q4_0;  // [Wq; Wk] + Wv
        if (mixed == 2) s.attn_v_type = GgmlType::Q5_0;  // fused: [Wq; Wk; Wv] of two types
        WeightSource w = load_gguf_llama(GgufFile::from_bytes(synth_llama_gguf(s), "synth.gguf"));
        const GraphRun stacked = run_graph(w, fuse, true), separate = run_graph(w, fuse, false);
        const std::string what = fmt::format("{} {} mixed {} fuse {}", ggml_type_name(type), arch, mixed, fuse);
        ASSERT_EQ(stacked.logits.size(), separate.logits.size());
        for (size_t i = 0; i < stacked.logits.size(); ++i) {
          EXPECT_LT(max_abs_diff(stacked.logits[i], separate.logits[i]), 1e-4f) << what << " step " << i;
          EXPECT_EQ(stacked.tokens[i], separate.tokens[i]) << what << " step " << i;
        }
        // 3 per stacked layer, 4 where RoPE and the cache write join the GEMV (wgrt.linear_ggml_rope_qkv: the fused
        // body, block formats, qwen2's biases too); 2 where v stays apart (the one odd layer of 3 when mixed, unless
        // two block types stack in the fused body); none with q/k norms.
        const bool apart = mixed == 1 || (mixed == 2 && !fuse);
        const bool rope_op = fuse && type == GgmlType::Q8_0 && std::string(arch) != "qwen3";
        size_t saved = 0;
        for (int l = 0; l < s.layers && std::string(arch) != "qwen3"; ++l) saved += apart && l % 2 == 1 ? 2 : rope_op ? 4 : 3;
        EXPECT_EQ(stacked.decode_dispatches + saved, separate.decode_dispatches) << what;
      }
}
