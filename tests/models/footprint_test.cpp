// The load-time size check (models/llama_footprint.h): the footprint's weight bytes equal what the graph
// builder uploads (F32, F16, Q8_0 kept as blocks, Q4_0 as q4gsw; gemma with its second RoPE table pair and
// phi3 with fused tensors), a model larger than the adapter's device memory is refused naming both sizes and
// the fix, the KV caches follow the cache type, and the adapter in use reports its memory (Dawn's
// AdapterPropertiesMemoryHeaps).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "formats/gguf.h"
#include "gpu_fixture.h"
#include "models/llama_footprint.h"
#include "models/synth.h"
#include "wgrt/error.h"

namespace wgrt::test {
namespace {

models::SynthConfig small(const char* arch) {
  return {.name = "fp", .arch = arch, .dim = 128, .ffn = 256, .layers = 2, .heads = 4, .kv_heads = 2, .head_dim = 32,
          .vocab = 320, .context = 256, .tied = std::string(arch) != "phi3", .sliding_window = 8};
}

TEST(Footprint, WeightBytesEqualWhatTheBuilderUploads) {
  for (const char* arch : {"llama", "gemma2", "phi3"})
    for (GgmlType t : {GgmlType::F32, GgmlType::F16, GgmlType::Q8_0, GgmlType::Q4_0}) {
      WeightSource w = load_gguf_llama(GgufFile::from_bytes(models::synth_gguf(small(arch), t, 1).to_bytes()));
      const models::LlamaGraphOptions o{.context = 64, .max_prefill = 16};
      const models::LlamaFootprint f = models::llama_footprint(w, o);
      const models::LlamaGraph lg = models::build_llama_graph(w, o);
      EXPECT_EQ(f.weight_bytes, lg.weight_bytes) << arch << " " << ggml_type_name(t);
      EXPECT_EQ(f.kv_bytes, uint64_t(2 * 2 * 64 * 2 * 32 * 4)) << arch;
      EXPECT_GT(f.gpu_bytes, f.weight_bytes + f.kv_bytes);
    }
}

// A block-format token embedding is bound in row chunks (wgrt.embedding_ggml), so it need not fit one binding
// (a llama.cpp Q4_K_M Llama-3.2-1B has a 205 MiB Q6_K embedding, over lavapipe's 128 MiB); f32 and q4gsw
// embeddings are bound whole and must.
TEST(Footprint, BlockFormatEmbeddingNeedNotFitOneBinding) {
  const uint64_t big = uint64_t(1) << 40;
  for (GgmlType t : {GgmlType::F32, GgmlType::F16, GgmlType::Q8_0}) {
    WeightSource w = load_gguf_llama(GgufFile::from_bytes(models::synth_gguf(small("llama"), t, 1).to_bytes()));
    const models::LlamaFootprint f = models::llama_footprint(w, {.context = 64, .max_prefill = 16});
    const bool whole = t == GgmlType::F32;  // the largest buffer bound whole here, at this config's sizes
    EXPECT_EQ(f.bound.name.starts_with("tok_embd"), whole) << ggml_type_name(t) << ": " << f.bound.name;
    const uint64_t emb = uint64_t(w.get("tok_embd").data.size());
    if (!whole) EXPECT_NO_THROW(models::check_llama_fits(f, big, emb - 1, 0, 0, "")) << ggml_type_name(t);
  }
  WeightSource w = load_gguf_llama(GgufFile::from_bytes(models::synth_gguf(small("llama"), GgmlType::F32, 1).to_bytes()));
  const models::LlamaFootprint f = models::llama_footprint(w, {.context = 64, .max_prefill = 16});
  EXPECT_THROW(models::check_llama_fits(f, big, f.bound.bytes - 1, 0, 0, ""), LimitError);
}

// The default prefill chunk: the policy's, capped by the context, halved (not below 512) until the per-row buffers
// bound whole fit one binding: the activation (2 * ffn f32 per row, here 2 KiB) and gemma's scores (heads x context
// f32 per row).
TEST(Footprint, DefaultPrefillChunkFitsOneBinding) {
  const uint64_t big = uint64_t(1) << 40;
  WeightSource w = load_gguf_llama(GgufFile::from_bytes(models::synth_gguf(small("llama"), GgmlType::F32, 1).to_bytes()));
  EXPECT_EQ(models::default_prefill_chunk(w, {.context = 4096}, 2048, big), 2048);
  EXPECT_EQ(models::default_prefill_chunk(w, {.context = 100}, 2048, big), 100) << "capped by the context";
  EXPECT_EQ(models::default_prefill_chunk(w, {.context = 4096}, 512, big), 512);
  const uint64_t row = 2 * 256 * 4;
  EXPECT_EQ(models::default_prefill_chunk(w, {.context = 4096}, 2048, 2048 * row), 2048) << "exactly fits";
  EXPECT_EQ(models::default_prefill_chunk(w, {.context = 4096}, 2048, 2048 * row - 1), 1024);
  EXPECT_EQ(models::default_prefill_chunk(w, {.context = 4096}, 2048, 600 * row), 512) << "not below 512";
  EXPECT_EQ(models::default_prefill_chunk(w, {.context = 4096}, 2048, 1), 512) << "the fit check names the limit";
  // The chunk it picks passes the load-time fit check where the limit allows.
  const int s = models::default_prefill_chunk(w, {.context = 4096}, 2048, 1500 * row);
  EXPECT_EQ(s, 1024);
  EXPECT_NO_THROW(models::check_llama_fits(models::llama_footprint(w, {.context = 4096, .max_prefill = s}), big,
                                           1500 * row, 0, 0, ""));
  // gemma2 (soft caps): its scores, heads x context f32 per row, bound whole.
  WeightSource g = load_gguf_llama(GgufFile::from_bytes(models::synth_gguf(small("gemma2"), GgmlType::F32, 1).to_bytes()));
  const uint64_t grow = 4 * 4096 * 4;
  EXPECT_EQ(models::default_prefill_chunk(g, {.context = 4096}, 2048, 2048 * grow), 2048);
  EXPECT_EQ(models::default_prefill_chunk(g, {.context = 4096}, 2048, 1024 * grow), 1024);
}

// The KV caches at the graph's cache type: f16 halves them; a head dim that is not a multiple of 4 keeps f32; the
// model line's summary (KiB below 1 MiB).
TEST(Footprint, KvCacheBytesFollowTheCacheType) {
  WeightSource w = load_gguf_llama(GgufFile::from_bytes(models::synth_gguf(small("llama"), GgmlType::F32, 1).to_bytes()));
  const models::LlamaFootprint f32 = models::llama_footprint(w, {.context = 64, .max_prefill = 16});
  const models::LlamaFootprint f16 = models::llama_footprint(w, {.context = 64, .max_prefill = 16, .kv_type = DType::F16});
  EXPECT_EQ(f32.kv_bytes, uint64_t(2 * 2 * 64 * 2 * 32 * 4));  // K and V x 2 layers x 64 positions x 2 kv heads x 32
  EXPECT_EQ(2 * f16.kv_bytes, f32.kv_bytes);
  EXPECT_EQ(f32.gpu_bytes - f16.gpu_bytes, f16.kv_bytes);
  EXPECT_EQ(models::build_llama_graph(w, {.context = 64, .max_prefill = 16, .kv_type = DType::F16}).kv_bytes, f16.kv_bytes);
  EXPECT_EQ(models::build_llama_graph(w, {.context = 64, .max_prefill = 16}).kv_bytes, f32.kv_bytes);
  LlamaConfig c = w.config();
  const models::LlamaGraphOptions want16{.kv_type = DType::F16};
  EXPECT_EQ(models::kv_cache_type(c, want16), DType::F16);
  c.head_dim = 6;
  EXPECT_EQ(models::kv_cache_type(c, want16), DType::F32);
  EXPECT_THROW(models::kv_cache_type(c, {.kv_type = DType::I32}), InvalidArgument);
  EXPECT_EQ(models::kv_cache_option("f16"), DType::F16);
  EXPECT_THROW(models::kv_cache_option("F16"), InvalidArgument);
  EXPECT_EQ(models::kv_cache_summary(DType::F16, 40960), "f16 KV cache, 40.0 KiB");
  EXPECT_EQ(models::kv_cache_summary(DType::F32, uint64_t(128) << 20), "f32 KV cache, 128.0 MiB");
}

TEST(Footprint, ModelLargerThanDeviceMemoryIsRefusedNamingBothSizes) {
  WeightSource w = load_gguf_llama(GgufFile::from_bytes(models::synth_gguf(small("llama"), GgmlType::F32, 1).to_bytes()));
  const models::LlamaFootprint f = models::llama_footprint(w, {.context = 256, .max_prefill = 16});
  const uint64_t big = uint64_t(1) << 40;
  EXPECT_NO_THROW(models::check_llama_fits(f, big, big, 0, f.gpu_bytes, "test adapter"));
  try {
    models::check_llama_fits(f, big, big, 0, f.gpu_bytes - 1, "test adapter");
    ADD_FAILURE() << "no LimitError";
  } catch (const LimitError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(fmt::format("{:.0f} MiB of GPU memory", double(f.gpu_bytes) / 1048576.0)), std::string::npos) << m;
    EXPECT_NE(m.find("the adapter 'test adapter' has"), std::string::npos) << m;
    EXPECT_NE(m.find("KV cache for a context of 256"), std::string::npos) << m;
    EXPECT_NE(m.find("use a smaller --ctx"), std::string::npos) << m;
  }
  EXPECT_NO_THROW(models::check_llama_fits(f, big, big, 0, 0, ""));  // memory not reported: not checked
}

TEST(Footprint, AdapterReportsDeviceMemory) {
  const webgpu::AdapterInfo& i = gpu().adapter_info();
  if (i.device_local_bytes == 0) GTEST_SKIP() << i.summary() << " does not report its memory heaps";
  EXPECT_GT(i.device_local_bytes, uint64_t(64) << 20) << i.summary();
  std::printf("[ %s ] device-local memory %.0f MiB\n", i.summary().c_str(), double(i.device_local_bytes) / 1048576.0);
}

}  // namespace
}  // namespace wgrt::test
