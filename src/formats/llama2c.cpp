#include "formats/llama2c.h"

#include <cstring>
#include <wgrt/error.h>

#include "util/byte_reader.h"
#include "util/file_bytes.h"

namespace wgrt {

Llama2cFile Llama2cFile::open(const std::string& path) { return from_file(FileBytes::open(path)); }

Llama2cFile Llama2cFile::from_bytes(std::vector<uint8_t> bytes, std::string name) {
  return from_file(FileBytes::from_bytes(std::move(bytes), std::move(name)));
}

// A FileBytes copy shares its storage: keeping one alive keeps the bytes valid.
Llama2cFile Llama2cFile::from_file(const FileBytes& fb) {
  Llama2cFile f;
  f.storage_ = std::make_shared<FileBytes>(fb);
  f.bytes_ = fb.bytes();
  f.path_ = fb.name();
  fb.parse_checked([&] { f.parse(); });
  return f;
}

void Llama2cFile::check_unchanged() const { storage_->check_unchanged(); }

void Llama2cFile::parse() {
  const std::string ctx = "llama2.c checkpoint '" + path_ + "'";
  ByteReader r(bytes_, ctx);
  if (bytes_.size() >= 4 && std::memcmp(bytes_.data(), "ak42", 4) == 0)
    throw Unsupported(ctx + ": llama2.c export version 1+ (magic ak42) is not supported; use the legacy format");
  int32_t v[7];
  for (auto& x : v) x = r.read<int32_t>("header");
  h_.dim = v[0], h_.hidden_dim = v[1], h_.n_layers = v[2], h_.n_heads = v[3], h_.n_kv_heads = v[4];
  h_.shared_classifier = v[5] > 0;
  h_.seq_len = v[6];
  if (v[5] == INT32_MIN) throw FormatError(ctx + ": vocab_size " + std::to_string(v[5]) + " out of range");
  h_.vocab_size = v[5] < 0 ? -v[5] : v[5];
  auto check = [&](const char* name, int32_t val, int32_t hi) {
    if (val < 1 || val > hi)
      throw FormatError(ctx + ": header " + name + " = " + std::to_string(val) + " is outside 1.." + std::to_string(hi));
  };
  check("dim", h_.dim, 65536);
  check("hidden_dim", h_.hidden_dim, 1 << 20);
  check("n_layers", h_.n_layers, 1024);
  check("n_heads", h_.n_heads, 1024);
  check("n_kv_heads", h_.n_kv_heads, 1024);
  check("vocab_size", h_.vocab_size, 1 << 22);
  check("seq_len", h_.seq_len, 1 << 22);
  if (h_.dim % h_.n_heads != 0)
    throw FormatError(ctx + ": n_heads " + std::to_string(h_.n_heads) + " does not divide dim " + std::to_string(h_.dim));
  if (h_.n_heads % h_.n_kv_heads != 0)
    throw FormatError(ctx + ": n_kv_heads " + std::to_string(h_.n_kv_heads) + " does not divide n_heads " +
                      std::to_string(h_.n_heads));
  if (h_.head_size() % 2 != 0)
    throw FormatError(ctx + ": head size " + std::to_string(h_.head_size()) + " is odd (RoPE needs pairs)");

  // Bounds above keep every product below 2^63 (largest: 2^20 * 2^16 * 2^10 = 2^46 floats).
  const uint64_t L = h_.n_layers, dim = h_.dim, hid = h_.hidden_dim, kv = h_.kv_dim();
  uint64_t off = 0;
  auto take = [&off](Section& s, uint64_t per_layer, uint64_t layers) {
    s.offset = off;
    s.per_layer = per_layer;
    off += per_layer * layers;
  };
  take(emb_, uint64_t(h_.vocab_size) * dim, 1);
  take(rms_att_, dim, L);
  take(wq_, dim * dim, L);
  take(wk_, kv * dim, L);
  take(wv_, kv * dim, L);
  take(wo_, dim * dim, L);
  take(rms_ffn_, dim, L);
  take(w1_, hid * dim, L);
  take(w2_, dim * hid, L);
  take(w3_, hid * dim, L);
  take(rms_final_, dim, 1);
  off += uint64_t(h_.seq_len) * uint64_t(h_.head_size());  // freq_cis_real + freq_cis_imag, head_size/2 each
  if (h_.shared_classifier) {
    wcls_ = emb_;
  } else {
    take(wcls_, uint64_t(h_.vocab_size) * dim, 1);
  }
  const uint64_t expected = 28 + off * 4;
  if (bytes_.size() != expected)
    throw FormatError(ctx + ": file is " + std::to_string(bytes_.size()) + " bytes, the header implies " +
                      std::to_string(expected) + (h_.shared_classifier ? " (shared classifier)" : " (own classifier)"));
}

std::span<const uint8_t> Llama2cFile::section(const Section& s, int l, bool layered) const {
  if (layered && (l < 0 || l >= h_.n_layers))
    throw InvalidArgument("llama2.c checkpoint '" + path_ + "': layer " + std::to_string(l) + " out of range");
  uint64_t first = s.offset + (layered ? uint64_t(l) * s.per_layer : 0);
  return bytes_.subspan(28 + first * 4, s.per_layer * 4);
}

std::span<const uint8_t> Llama2cFile::token_embedding() const { return section(emb_, 0, false); }
std::span<const uint8_t> Llama2cFile::rms_att(int l) const { return section(rms_att_, l, true); }
std::span<const uint8_t> Llama2cFile::wq(int l) const { return section(wq_, l, true); }
std::span<const uint8_t> Llama2cFile::wk(int l) const { return section(wk_, l, true); }
std::span<const uint8_t> Llama2cFile::wv(int l) const { return section(wv_, l, true); }
std::span<const uint8_t> Llama2cFile::wo(int l) const { return section(wo_, l, true); }
std::span<const uint8_t> Llama2cFile::rms_ffn(int l) const { return section(rms_ffn_, l, true); }
std::span<const uint8_t> Llama2cFile::w1(int l) const { return section(w1_, l, true); }
std::span<const uint8_t> Llama2cFile::w2(int l) const { return section(w2_, l, true); }
std::span<const uint8_t> Llama2cFile::w3(int l) const { return section(w3_, l, true); }
std::span<const uint8_t> Llama2cFile::rms_final() const { return section(rms_final_, 0, false); }
std::span<const uint8_t> Llama2cFile::wcls() const { return section(wcls_, 0, false); }

std::vector<float> Llama2cFile::to_f32(std::span<const uint8_t> s) {
  std::vector<float> out(s.size() / 4);
  if (!out.empty()) std::memcpy(out.data(), s.data(), out.size() * 4);
  return out;
}

}  // namespace wgrt
