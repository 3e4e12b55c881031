// Reader for Karpathy's llama2.c legacy checkpoint (run.c, "version 0" export): a header of 7 int32
// (dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len) followed by float32 weights in run.c's
// order: token_embedding_table [vocab, dim], rms_att_weight [L, dim], wq [L, dim(out), dim(in)],
// wk [L, kv_dim, dim], wv [L, kv_dim, dim], wo [L, dim, dim], rms_ffn_weight [L, dim], w1 [L, hidden, dim],
// w2 [L, dim, hidden], w3 [L, hidden, dim], rms_final_weight [dim], freq_cis_real and freq_cis_imag
// [seq_len, head_size/2] each (skipped), then wcls [vocab, dim] only if vocab_size was negative (unshared
// classifier). All matrices are [out, in] row-major (run.c: xout[i] = sum_j w[i*n + j] * x[j]).
// kv_dim = dim * n_kv_heads / n_heads.
//
// Validation (FormatError naming the file): header values positive and within sane bounds (dim <= 65536,
// hidden_dim <= 1048576, n_layers <= 1024, n_heads <= 1024, |vocab| <= 4194304, seq_len <= 4194304);
// n_heads divides dim, n_kv_heads divides n_heads, head_size even; the file size must equal exactly
// 28 + 4 * (number of floats above). The newer llama2.c export formats (magic "ak42") are Unsupported.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace wgrt {

class FileBytes;

struct Llama2cHeader {
  int32_t dim = 0, hidden_dim = 0, n_layers = 0, n_heads = 0, n_kv_heads = 0, vocab_size = 0, seq_len = 0;
  bool shared_classifier = true;  // vocab_size was positive in the file (vocab_size here is always > 0)
  int32_t head_size() const { return dim / n_heads; }
  int32_t kv_dim() const { return dim / n_heads * n_kv_heads; }
};

class Llama2cFile {
 public:
  static Llama2cFile open(const std::string& path);
  static Llama2cFile from_bytes(std::vector<uint8_t> bytes, std::string name = "<memory>");

  const std::string& path() const { return path_; }
  // FormatError if the file changed or was truncated since it was opened (see mapped_file.h): call after
  // reading tensor data. Never for from_bytes().
  void check_unchanged() const;
  const Llama2cHeader& header() const { return h_; }

  // Weight spans (float32, little-endian, possibly unaligned: read with memcpy or via to_f32()).
  // Per-layer accessors take the layer index l in [0, n_layers) (InvalidArgument otherwise).
  std::span<const uint8_t> token_embedding() const;  // [vocab, dim]
  std::span<const uint8_t> rms_att(int l) const;      // [dim]
  std::span<const uint8_t> wq(int l) const;           // [dim, dim]
  std::span<const uint8_t> wk(int l) const;           // [kv_dim, dim]
  std::span<const uint8_t> wv(int l) const;           // [kv_dim, dim]
  std::span<const uint8_t> wo(int l) const;           // [dim, dim]
  std::span<const uint8_t> rms_ffn(int l) const;      // [dim]
  std::span<const uint8_t> w1(int l) const;           // [hidden, dim]
  std::span<const uint8_t> w2(int l) const;           // [dim, hidden]
  std::span<const uint8_t> w3(int l) const;           // [hidden, dim]
  std::span<const uint8_t> rms_final() const;         // [dim]
  std::span<const uint8_t> wcls() const;              // [vocab, dim]; the token embedding if shared

  static std::vector<float> to_f32(std::span<const uint8_t> s);

 private:
  struct Section {
    uint64_t offset = 0, per_layer = 0;  // in floats, relative to the first weight
  };
  void parse();
  std::span<const uint8_t> section(const Section& s, int l, bool layered) const;
  std::shared_ptr<const FileBytes> storage_;  // keeps the FileBytes storage alive
  static Llama2cFile from_file(const FileBytes& fb);
  std::span<const uint8_t> bytes_;
  std::string path_;
  Llama2cHeader h_;
  Section emb_, rms_att_, wq_, wk_, wv_, wo_, rms_ffn_, w1_, w2_, w3_, rms_final_, wcls_;
};

}  // namespace wgrt
