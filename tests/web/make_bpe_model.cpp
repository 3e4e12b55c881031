// Writes the second model of the browser tests (scripts/test_web.sh): a small random-weight qwen2 file in Q4_0
// whose vocabulary is a real byte-level BPE one, taken from a llama.cpp vocab-only GGUF (ggml-vocab-qwen2.gguf,
// extracted by scripts/vocab_vectors.sh). The weights come from models::synth_gguf (std 0.2, so greedy text is
// not one repeated token); every tokenizer.* key of the vocab file replaces synth's SentencePiece vocabulary.
//   wgrt_web_bpe_model VOCAB.gguf OUT.gguf
#include <cstdio>
#include <exception>
#include <string>

#include "formats/gguf.h"
#include "formats/gguf_writer.h"
#include "models/synth.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: wgrt_web_bpe_model VOCAB.gguf OUT.gguf\n");
    return 2;
  }
  try {
    const wgrt::GgufFile vocab = wgrt::GgufFile::open(argv[1]);
    const int n = int(vocab.get_array_strings("tokenizer.ggml.tokens").size());
    wgrt::models::SynthConfig c{.name = "tiny-qwen2-bpe", .arch = "qwen2", .dim = 64, .ffn = 160, .layers = 2,
                                .heads = 2, .kv_heads = 1, .head_dim = 32, .vocab = n, .context = 256,
                                .rope_theta = 1000000.0f, .rms_eps = 1e-6f, .qkv_bias = true, .init_std = 0.2f};
    wgrt::GgufWriter w = wgrt::models::synth_gguf(c, wgrt::GgmlType::Q4_0, 7);
    for (const auto& [key, value] : vocab.metadata())
      if (key.starts_with("tokenizer.")) w.set(key, value);
    w.write(argv[2]);
    std::printf("wrote %s: tiny qwen2 Q4_0, %d-token vocabulary from %s\n", argv[2], n, argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wgrt_web_bpe_model: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
