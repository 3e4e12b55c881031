// Faults found by hostile testing of the file readers (issue 16), each pinned by a test that failed before
// its fix: a FIFO as a model file (open blocked forever), a file truncated or rewritten while mapped
// (SIGBUS), raw file bytes in messages (terminal escapes, forged lines), a block_count below the blocks
// present, f64 hyper-parameters beyond f32 (1e300 became +inf), and a general.alignment that does not match the layout (data read 1..31 bytes off).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>

#include "formats/gguf.h"
#include "formats/gguf_writer.h"
#include "formats/model_weights.h"
#include "support/synth_model.h"
#include "support/test_files.h"
#include "util/mapped_file.h"
#include "util/printable.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() { return test::scratch_dir("wgrt_rel_files"); }
const auto message_of = test::error_message;

// Rewrites a GGUF: metadata through `edit_kv` (return false to drop a key), tensors kept byte for byte
// unless `keep_tensor` says no.
std::vector<uint8_t> rewrite(const std::vector<uint8_t>& in,
                             const std::function<bool(const std::string&, GgufValue&)>& edit_kv,
                             const std::function<bool(const std::string&)>& keep_tensor = {}) {
  GgufFile g = GgufFile::from_bytes(in);
  GgufWriter w;
  for (auto [k, v] : g.metadata())
    if (edit_kv(k, v)) w.set(k, v);
  for (const auto& t : g.tensors()) {
    if (keep_tensor && !keep_tensor(t.name)) continue;
    auto d = g.tensor_data(t);
    w.add_tensor_raw(t.name, t.dims, uint32_t(t.type), std::vector<uint8_t>(d.begin(), d.end()));
  }
  return w.to_bytes();
}

const auto keep_all = [](const std::string&, GgufValue&) { return true; };

TEST(ReliabilityFiles, FifoIsRefusedWithoutOpening) {
  const std::string fifo = (temp_dir() / "model.fifo").string();
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Before the fix MappedFile::open blocked in open(2) until a writer appeared: this test hung.
  std::string m = message_of([&] { (void)MappedFile::open(fifo); });
  EXPECT_NE(m.find("FIFO"), std::string::npos) << m;
  EXPECT_NE(m.find("not a regular file"), std::string::npos) << m;
  m = message_of([&] { require_regular_file(fifo, "tokenizer file"); });
  EXPECT_NE(m.find("tokenizer file"), std::string::npos) << m;
  m = message_of([&] { (void)GgufFile::open(temp_dir().string()); });
  EXPECT_NE(m.find("a directory"), std::string::npos) << m;
  ::unlink(fifo.c_str());
}

TEST(ReliabilityFiles, TruncatedWhileMappedIsAnErrorNotSigbus) {
  test::SynthSpec spec;
  spec.dim = 256, spec.hidden = 512, spec.vocab = 512;  // several pages of tensor data
  const auto bytes = test::synth_llama_gguf(spec);
  const std::string path = (temp_dir() / "shrinks.gguf").string();
  test::write_file(path, bytes);
  WeightSource w = load_gguf_llama(path);
  EXPECT_NO_THROW(w.check_unchanged());
  ASSERT_EQ(::truncate(path.c_str(), 4096), 0);  // as `cp` does when it starts overwriting in place
  // Before the fix: SIGBUS killed the test process on this read of a page past the new end.
  const std::vector<float> v = w.get("tok_embd").to_f32();
  EXPECT_EQ(v.size(), size_t(512 * 256));
  const std::string m = message_of([&] { w.check_unchanged(); });
  EXPECT_NE(m.find("shorter than when it was opened"), std::string::npos) << m;
  EXPECT_NE(m.find("shrinks.gguf"), std::string::npos) << m;
}

TEST(ReliabilityFiles, RewrittenInPlaceIsDetectedRenamedIsNot) {
  const auto bytes = test::synth_llama_gguf({});
  const std::string path = (temp_dir() / "rewritten.gguf").string(), other = (temp_dir() / "other.gguf").string();
  test::write_file(path, bytes);
  {
    WeightSource w = load_gguf_llama(path);
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    std::vector<uint8_t> changed = bytes;
    changed.back() ^= 1;
    // Same size, new contents, in place (same inode); make sure the mtime moves even on coarse clocks.
    FILE* f = std::fopen(path.c_str(), "r+b");
    ASSERT_TRUE(f);
    std::fwrite(changed.data(), 1, changed.size(), f);
    std::fclose(f);
    timespec times[2] = {st.st_atim, st.st_mtim};
    times[1].tv_sec += 5;
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
    const std::string m = message_of([&] { w.check_unchanged(); });
    EXPECT_NE(m.find("changed"), std::string::npos) << m;
  }
  {
    WeightSource w = load_gguf_llama(path);
    test::write_file(other, bytes);
    fs::rename(other, path);  // the mapped file itself is untouched
    EXPECT_NO_THROW(w.check_unchanged());
  }
}

TEST(ReliabilityFiles, PrintableEscapesControlBytesAndCapsLength) {
  EXPECT_EQ(printable("plain text"), "plain text");
  EXPECT_EQ(printable("a\nb\r\tc"), "a\\x0ab\\x0d\\x09c");
  EXPECT_EQ(printable("\x1b[2J"), "\\x1b[2J");
  EXPECT_EQ(printable("back\\slash"), "back\\\\slash");
  EXPECT_EQ(printable("caf\xC3\xA9 \xE2\x96\x81"), "caf\xC3\xA9 \xE2\x96\x81");  // valid UTF-8 kept
  EXPECT_EQ(printable("\xC2\x9B" "31m"), "\\xc2\\x9b31m");                         // C1 CSI
  EXPECT_EQ(printable("\xFF\xC0\x80\xED\xA0\x80"), "\\xff\\xc0\\x80\\xed\\xa0\\x80");  // ill-formed
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
  const std::string long_text(500, 'x');
  EXPECT_EQ(printable(long_text, 10), std::string(10, 'x') + "... (500 bytes)");
  EXPECT_EQ(printable("\xC3\xA9\xC3\xA9", 3), "\xC3\xA9... (4 bytes)");  // never cuts a character
  EXPECT_EQ(one_line_message("a\nwgrt: error: forged"), "a\\x0awgrt: error: forged");
}

TEST(ReliabilityFiles, FileStringsInMessagesAreEscaped) {
  const std::string evil = "\x1b[2J\nwgrt: error: forged line" + std::string(300, 'A');
  auto bytes = rewrite(test::synth_llama_gguf({}), [&](const std::string& k, GgufValue& v) {
    if (k == "general.architecture") v = GgufValue::of_string(evil);
    return true;
  });
  const std::string m = message_of([&] { (void)load_gguf_llama(GgufFile::from_bytes(bytes, "evil.gguf")); });
  EXPECT_NE(m.find("\\x1b[2J\\x0awgrt: error: forged line"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_EQ(m.find('\x1b'), std::string::npos) << m;
  EXPECT_LT(m.size(), 400u) << m;
  // A key name with control bytes, in a type error.
  bytes = rewrite(test::synth_llama_gguf({}), [&](const std::string& k, GgufValue& v) {
    if (k == "llama.block_count") v = GgufValue::of_string("four");
    return true;
  });
  const std::string m2 = message_of([&] { (void)load_gguf_llama(GgufFile::from_bytes(bytes)); });
  EXPECT_NE(m2.find("llama.block_count' has type string"), std::string::npos) << m2;
}

TEST(ReliabilityFiles, BlockCountBelowTheBlocksPresentIsAnError) {
  test::SynthSpec spec;
  spec.layers = 5;
  auto bytes = rewrite(test::synth_llama_gguf(spec), [](const std::string& k, GgufValue& v) {
    if (k == "llama.block_count") v = GgufValue::of_u32(4);
    return true;
  });
  const std::string m = message_of([&] { (void)load_gguf_llama(GgufFile::from_bytes(bytes)); });
  EXPECT_NE(m.find("tensor 'blk.4."), std::string::npos) << m;
  EXPECT_NE(m.find("4 blocks"), std::string::npos) << m;
  // Any other stray tensor too; rope_freqs (Llama 3 RoPE factors, one per rotated pair) is read, not stray.
  GgufWriter w;
  GgufFile g = GgufFile::from_bytes(test::synth_llama_gguf({}));
  for (const auto& [k, v] : g.metadata()) w.set(k, v);
  for (const auto& t : g.tensors()) {
    auto d = g.tensor_data(t);
    w.add_tensor_raw(t.name, t.dims, uint32_t(t.type), std::vector<uint8_t>(d.begin(), d.end()));
  }
  std::vector<float> freqs(4, 1.0f);
  GgufWriter w2 = w, w3 = w;
  w.add_tensor_f32("rope_freqs.weight", {4}, freqs);
  EXPECT_NO_THROW((void)load_gguf_llama(GgufFile::from_bytes(w.to_bytes())));
  std::vector<float> three(3, 1.0f);
  w3.add_tensor_f32("rope_freqs.weight", {3}, three);  // head dim 8 has 4 pairs
  const std::string m3 = message_of([&] { (void)load_gguf_llama(GgufFile::from_bytes(w3.to_bytes())); });
  EXPECT_NE(m3.find("tensor 'rope_freqs' must be F32 [4]"), std::string::npos) << m3;
  w2.add_tensor_f32("mystery.weight", {4}, freqs);
  const std::string m2 = message_of([&] { (void)load_gguf_llama(GgufFile::from_bytes(w2.to_bytes())); });
  EXPECT_NE(m2.find("tensor 'mystery' is not part of a llama model"), std::string::npos) << m2;
}

TEST(ReliabilityFiles, NonFiniteOrOutOfRangeHyperParametersAreErrors) {
  auto with = [](const std::string& key, GgufValue val) {
    return rewrite(test::synth_llama_gguf({}), [&](const std::string& k, GgufValue& v) {
      if (k == key) v = val;
      return true;
    });
  };
  auto err = [](const std::vector<uint8_t>& b) { return message_of([&] { (void)load_gguf_llama(GgufFile::from_bytes(b)); }); };
  std::string m = err(with("llama.rope.freq_base", GgufValue::of_f32(INFINITY)));
  EXPECT_NE(m.find("llama.rope.freq_base = inf"), std::string::npos) << m;
  m = err(with("llama.rope.freq_base", GgufValue::of_f64(1e300)));  // used to become +inf silently
  EXPECT_NE(m.find("does not fit in f32"), std::string::npos) << m;
  m = err(with("llama.rope.freq_base", GgufValue::of_f32(NAN)));
  EXPECT_NE(m.find("rope.freq_base = nan"), std::string::npos) << m;
  m = err(with("llama.attention.layer_norm_rms_epsilon", GgufValue::of_f64(-1e-5)));
  EXPECT_NE(m.find("layer_norm_rms_epsilon"), std::string::npos) << m;
  EXPECT_NO_THROW((void)load_gguf_llama(GgufFile::from_bytes(with("llama.rope.freq_base", GgufValue::of_f64(5e5)))));
}

TEST(ReliabilityFiles, AlignmentThatDoesNotMatchTheLayoutIsAnError) {
  // A file laid out for alignment 32 that states general.alignment = 1 (the key's value rewritten in place):
  // the data section would start up to 31 bytes early and every tensor would be read shifted. A padding key
  // of length L moves where the tensor infos end; for every L the reader either refuses the file or (infos
  // ending on a 32-byte boundary) reads the data section from the right place.
  GgufFile g = GgufFile::from_bytes(test::synth_llama_gguf({}));
  int refused = 0;
  for (int L = 0; L < 32; ++L) {
    GgufWriter w;
    w.set("general.alignment", GgufValue::of_u32(32));
    w.set("general.name", GgufValue::of_string(std::string(size_t(L), 'n')));
    for (const auto& [k, v] : g.metadata()) w.set(k, v);
    for (const auto& t : g.tensors()) {
      auto d = g.tensor_data(t);
      w.add_tensor_raw(t.name, t.dims, uint32_t(t.type), std::vector<uint8_t>(d.begin(), d.end()));
    }
    std::vector<uint8_t> bytes = w.to_bytes();
    const uint64_t right = GgufFile::from_bytes(bytes).data_offset();
    const std::string key = "general.alignment";
    auto it = std::search(bytes.begin(), bytes.end(), key.begin(), key.end());
    ASSERT_NE(it, bytes.end());
    const uint32_t one = 1;
    std::memcpy(bytes.data() + (it - bytes.begin()) + key.size() + 4, &one, 4);  // after the key and value type
    const std::string m = message_of([&] { (void)GgufFile::from_bytes(bytes); });
    if (m == "(no error)") {
      EXPECT_EQ(GgufFile::from_bytes(bytes).data_offset(), right) << "L " << L;
    } else {
      ++refused;
      EXPECT_NE(m.find("does not match general.alignment 1"), std::string::npos) << m;
    }
  }
  EXPECT_GE(refused, 28);  // all but the L where the infos end 32-aligned
}

}  // namespace
}  // namespace wgrt

namespace wgrt {
namespace {

// Family metadata and fused tensors (formats/model_families.h): a rope.scaling.type llama.cpp does not know,
// a fused attn_qkv (rows q | k | v) that loads as the same three tensors, one with the wrong row count, and a
// gemma2 file without its post-norms are errors naming the key or tensor.
TEST(ReliabilityFiles, FamilyKeysAndFusedTensors) {
  const std::vector<uint8_t> base = test::synth_llama_gguf({});
  std::string m;
  GgufFile g = GgufFile::from_bytes(base);
  auto fused = [&](bool drop_v_row) {
    GgufWriter w;
    for (const auto& [k, v] : g.metadata()) w.set(k, v);
    w.set("llama.rope.scaling.type", GgufValue::of_string("linear"));
    std::vector<uint8_t> qkv;
    uint64_t rows = 0;
    for (const auto& t : g.tensors()) {
      auto d = g.tensor_data(t);
      const bool part = t.name.starts_with("blk.0.attn_") && (t.name.ends_with("_q.weight") || t.name.ends_with("_k.weight") ||
                                                             t.name.ends_with("_v.weight"));
      if (!part) {
        w.add_tensor_raw(t.name, t.dims, uint32_t(t.type), std::vector<uint8_t>(d.begin(), d.end()));
        continue;
      }
      qkv.insert(qkv.end(), d.begin(), d.end());
      rows += t.dims[1];
      if (t.name.ends_with("_v.weight")) {  // q, k, v come in this order in the synth file
        if (drop_v_row) {
          qkv.resize(qkv.size() - t.dims[0] * 4);
          rows -= 1;
        }
        w.add_tensor_raw("blk.0.attn_qkv.weight", {t.dims[0], rows}, uint32_t(GgmlType::F32), qkv);
      }
    }
    return w.to_bytes();
  };
  WeightSource a = load_gguf_llama(GgufFile::from_bytes(base)), b = load_gguf_llama(GgufFile::from_bytes(fused(false)));
  for (const char* n : {"blk.0.attn_q", "blk.0.attn_k", "blk.0.attn_v"}) {
    EXPECT_EQ(a.get(n).shape, b.get(n).shape) << n;
    EXPECT_EQ(a.get(n).to_f32(), b.get(n).to_f32()) << n;
  }
  m = message_of([&] { (void)load_gguf_llama(GgufFile::from_bytes(fused(true))); });
  EXPECT_NE(m.find("tensor 'blk.0.attn_qkv' must have"), std::string::npos) << m;
  GgufWriter s;
  for (const auto& [k, v] : g.metadata()) s.set(k, v);
  s.set("llama.rope.scaling.type", GgufValue::of_string("llama3"));
  for (const auto& t : g.tensors()) {
    auto d = g.tensor_data(t);
    s.add_tensor_raw(t.name, t.dims, uint32_t(t.type), std::vector<uint8_t>(d.begin(), d.end()));
  }
  m = message_of([&] { (void)load_gguf_llama(GgufFile::from_bytes(s.to_bytes())); });
  EXPECT_NE(m.find("llama.rope.scaling.type 'llama3' is not one llama.cpp knows"), std::string::npos) << m;
  // gemma2: the llama tensors under arch gemma2 lack post_attention_norm.
  std::vector<uint8_t> gem = rewrite(base, [](const std::string& k, GgufValue& v) {
    if (k == "general.architecture") v = GgufValue::of_string("gemma2");
    return true;
  });
  GgufFile gg = GgufFile::from_bytes(gem);
  GgufWriter gw;
  for (const auto& [k, v] : gg.metadata()) {
    std::string key = k;
    if (key.starts_with("llama.")) key = "gemma2." + key.substr(6);
    gw.set(key, v);
  }
  for (const auto& t : gg.tensors()) {
    auto d = gg.tensor_data(t);
    gw.add_tensor_raw(t.name, t.dims, uint32_t(t.type), std::vector<uint8_t>(d.begin(), d.end()));
  }
  m = message_of([&] { (void)load_gguf_llama(GgufFile::from_bytes(gw.to_bytes())); });
  EXPECT_NE(m.find("gemma2 model is missing tensor 'blk.0.post_attention_norm.weight'"), std::string::npos) << m;
}

}  // namespace
}  // namespace wgrt
