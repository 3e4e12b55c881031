// The disk cache behind Dawn's blob-cache hooks: the file format's checks (round trip, size query, corrupt,
// truncated, colliding and foreign files are misses and are removed), the size cap, and on a real device
// that Dawn stores blobs on a first build and loads them on a second device, whose pipeline still computes
// the right values (also after every cached file was corrupted).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "util/dispatch_grid.h"
#include "webgpu/bind_group.h"
#include "webgpu/blob_cache.h"
#include "webgpu/buffer.h"
#include "webgpu/device.h"
#include "webgpu/pipeline_cache.h"

using namespace wgrt;
using namespace wgrt::webgpu;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("wgrt_blob_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  return d;
}

std::vector<fs::path> blob_files(const fs::path& folder) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.path().extension() == ".blob") out.push_back(e.path());
  return out;
}

std::string load_string(BlobCache& c, const std::string& key) {
  size_t n = c.load(key.data(), key.size(), nullptr, 0);
  std::string v(n, '\0');
  if (n) EXPECT_EQ(c.load(key.data(), key.size(), v.data(), v.size()), n);
  return v;
}

}  // namespace

TEST(BlobCache, RoundTripAndSizeQuery) {
  BlobCache c(fresh_dir("rt"), "adapter A");
  EXPECT_EQ(c.load("k", 1, nullptr, 0), 0u) << "empty cache";
  const std::string value(100003, 'x');  // odd size
  c.store("key-1", 5, value.data(), value.size());
  c.store("key-2", 5, "", 0);  // an empty blob is stored but reads back as "not cached" (size 0)
  EXPECT_EQ(c.load("key-1", 5, nullptr, 0), value.size());
  char small[4];
  EXPECT_EQ(c.load("key-1", 5, small, sizeof small), value.size()) << "too small a buffer: size only";
  EXPECT_EQ(load_string(c, "key-1"), value);
  c.store("key-1", 5, "new", 3);  // replaced
  EXPECT_EQ(load_string(c, "key-1"), "new");
  EXPECT_EQ(c.stats().stores, 3u);
  EXPECT_GE(c.stats().hits, 2u);
}

TEST(BlobCache, IsolationKeysUseSeparateFolders) {
  fs::path dir = fresh_dir("iso");
  BlobCache a(dir, "adapter A"), b(dir, "adapter B");
  EXPECT_NE(a.folder(), b.folder());
  a.store("k", 1, "va", 2);
  EXPECT_EQ(b.load("k", 1, nullptr, 0), 0u);
  EXPECT_EQ(load_string(a, "k"), "va");
}

TEST(BlobCache, CorruptTruncatedAndForeignFilesAreMissesAndRemoved) {
  BlobCache c(fresh_dir("bad"), "adapter A");
  const std::string key = "the key", value = "a value of some length";
  auto reset = [&] {
    c.store(key.data(), key.size(), value.data(), value.size());
    auto files = blob_files(c.folder());
    EXPECT_EQ(files.size(), 1u);
    return files.at(0);
  };
  auto rewrite = [](const fs::path& p, const std::function<void(std::string&)>& edit) {
    std::ifstream in(p, std::ios::binary);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    in.close();
    edit(s);
    std::ofstream(p, std::ios::binary | std::ios::trunc).write(s.data(), std::streamsize(s.size()));
  };
  struct Case {
    const char* what;
    std::function<void(std::string&)> edit;
  } cases[] = {
      {"flipped value byte", [](std::string& s) { s[s.size() - 12] ^= 1; }},
      {"flipped checksum", [](std::string& s) { s.back() ^= 0x80; }},
      {"truncated", [](std::string& s) { s.resize(s.size() - 3); }},
      {"truncated to the header", [](std::string& s) { s.resize(10); }},
      {"empty file", [](std::string& s) { s.clear(); }},
      {"padded", [](std::string& s) { s += "zz"; }},
      {"bad magic", [](std::string& s) { s[0] = 'X'; }},
      {"another key at this path (a hash collision)", [](std::string& s) { s[16] ^= 1; }},
      {"key size beyond the file", [](std::string& s) { s[15] = char(0x7f); }},
  };
  for (const Case& k : cases) {
    fs::path p = reset();
    ASSERT_EQ(load_string(c, key), value);
    rewrite(p, k.edit);
    const auto rejected = c.stats().rejected;
    EXPECT_EQ(c.load(key.data(), key.size(), nullptr, 0), 0u) << k.what;
    EXPECT_FALSE(fs::exists(p)) << k.what << ": a bad file is removed";
    EXPECT_EQ(c.stats().rejected, rejected + 1) << k.what;
  }
}

TEST(BlobCache, SizeCapRemovesOldestFiles) {
  fs::path dir = fresh_dir("cap");
  std::vector<std::string> keys;
  {
    BlobCache c(dir, "adapter A");
    const std::string v(1000, 'v');
    for (int i = 0; i < 10; ++i) {
      keys.push_back("key" + std::to_string(i));
      c.store(keys.back().data(), keys.back().size(), v.data(), v.size());  // modification times: oldest first
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  BlobCache c(dir, "adapter A", 5000);  // 10 files of ~1040 bytes, cap 5000: trims to <= 2500 bytes
  uint64_t total = 0;
  for (const auto& f : blob_files(c.folder())) total += fs::file_size(f);
  EXPECT_LE(total, 2500u);
  EXPECT_GT(total, 0u);
  EXPECT_EQ(c.load(keys[0].data(), keys[0].size(), nullptr, 0), 0u) << "the oldest went first";
  EXPECT_GT(c.load(keys[9].data(), keys[9].size(), nullptr, 0), 0u) << "the newest stays";
}

TEST(BlobCache, UnwritableFolderIsANoOp) {
  fs::path file = fresh_dir("nofolder");
  std::ofstream(file) << "a file where the folder should be";
  BlobCache c(file, "adapter A");
  c.store("k", 1, "v", 1);
  EXPECT_EQ(c.load("k", 1, nullptr, 0), 0u);
  EXPECT_GE(c.stats().write_failures, 1u);
  fs::remove(file);
}

namespace {

// y[i] = a * x[i] + b with a source unique to this process (a fresh Dawn cache key each run).
std::string saxpy_source() {
  return "// run " + std::to_string(getpid()) + "\n" + R"(
struct P { n : u32, a : f32, _p0 : u32, _p1 : u32 }
@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read_write> y : array<f32>;
@group(0) @binding(2) var<uniform> p : P;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g : vec3<u32>) {
  if (g.x < p.n) { y[g.x] = p.a * x[g.x] + 1.0; }
}
)";
}

// Builds the pipeline on `d`, runs it on 1000 elements and checks every value.
void build_and_check(Device& d, const std::string& source) {
  KernelSpec spec;
  spec.shader = "test/blob_cache_saxpy.wgsl";
  spec.inline_source = source;
  const Pipeline& p = d.pipelines().get(spec);
  const uint32_t n = 1000;
  std::vector<float> x(n);
  for (uint32_t i = 0; i < n; ++i) x[i] = float(i) * 0.25f - 3.0f;
  Buffer bx(d, n * 4, BufferKind::Storage, "x"), by(d, n * 4, BufferKind::Storage, "y"),
      bp(d, 16, BufferKind::Uniform, "params");
  bx.write_vector(x);
  struct {
    uint32_t n;
    float a;
    uint32_t pad[2];
  } params{n, -1.5f, {0, 0}};
  bp.write(&params, sizeof params);
  BufferBinding binds[] = {{bx.get(), 0, n * 4ull, "x"}, {by.get(), 0, n * 4ull, "y"}, {bp.get(), 0, 16, "params"}};
  BindGroupHandle bg = make_bind_group(d, p, binds);
  CommandEncoderHandle enc(wgpuDeviceCreateCommandEncoder(d.get(), nullptr));
  ComputePassHandle pass(wgpuCommandEncoderBeginComputePass(enc.get(), nullptr));
  wgpuComputePassEncoderSetPipeline(pass.get(), p.pipeline.get());
  wgpuComputePassEncoderSetBindGroup(pass.get(), 0, bg.get(), 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(pass.get(), div_up(n, 64), 1, 1);
  wgpuComputePassEncoderEnd(pass.get());
  CommandBufferHandle cmd(wgpuCommandEncoderFinish(enc.get(), nullptr));
  WGPUCommandBuffer c = cmd.get();
  wgpuQueueSubmit(d.queue(), 1, &c);
  d.check_errors();
  auto y = by.read_vector<float>(n);
  for (uint32_t i = 0; i < n; ++i) ASSERT_FLOAT_EQ(y[i], -1.5f * x[i] + 1.0f) << i;
}

}  // namespace

TEST(BlobCache, DawnStoresOnFirstDeviceAndLoadsOnSecond) {
  fs::path dir = fresh_dir("dawn");
  const std::string source = saxpy_source();
  DeviceOptions o;
  o.cache_dir = dir;
  {
    auto d = Device::create(o);
    ASSERT_NE(d->blob_cache(), nullptr);
    build_and_check(*d, source);
    EXPECT_GT(d->blob_cache()->stats().stores, 0u) << "Dawn never called the store hook";
  }
  {
    auto d = Device::create(o);
    build_and_check(*d, source);
    EXPECT_GT(d->blob_cache()->stats().hits, 0u) << "Dawn never loaded what it stored";
    EXPECT_EQ(d->blob_cache()->stats().rejected, 0u);
  }
  // Every cached file corrupted: Dawn compiles afresh and the values are still right.
  {
    auto d0 = Device::create(o);  // only to learn the folder
    for (const auto& f : blob_files(d0->blob_cache()->folder())) {
      std::fstream s(f, std::ios::binary | std::ios::in | std::ios::out);
      s.seekp(-1, std::ios::end);
      s.put('\x5a');
    }
  }
  {
    auto d = Device::create(o);
    build_and_check(*d, source);
    EXPECT_GT(d->blob_cache()->stats().rejected, 0u);
  }
  DeviceOptions off;
  off.disk_cache = false;
  auto d = Device::create(off);
  EXPECT_EQ(d->blob_cache(), nullptr);
  build_and_check(*d, source);
}
