// Device layer on a real adapter: creation, buffers, a dispatch checked against the CPU, WGSL errors with
// line info, limit errors, adapter selection errors.
#include <chrono>
#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>

#include "gpu_fixture.h"
#include "util/dispatch_grid.h"
#include "webgpu/bind_group.h"
#include "webgpu/buffer.h"
#include "webgpu/pipeline_cache.h"
#include "wgrt/error.h"

using namespace wgrt;
using namespace wgrt::webgpu;
using wgrt::test::gpu;

TEST(Device, CreatesWithAdapterLimits) {
  Device& d = gpu();
  EXPECT_NE(d.get(), nullptr);
  EXPECT_FALSE(d.adapter_info().device.empty());
  // Full adapter limits, not WebGPU's defaults (256 invocations / 16 KiB on every adapter we support).
  EXPECT_GE(d.limits().maxComputeInvocationsPerWorkgroup, 256u);
  EXPECT_GE(d.limits().maxStorageBufferBindingSize, 128u << 20);
  EXPECT_GE(d.limits().maxComputeWorkgroupsPerDimension, 65535u);
}

TEST(Device, BufferRoundTripOddSizes) {
  for (size_t n : {1u, 3u, 1023u}) {
    std::vector<float> host(n);
    for (size_t i = 0; i < n; ++i) host[i] = float(i) * 0.5f - 7.25f;
    Buffer b(gpu(), n * sizeof(float), BufferKind::Storage, "roundtrip");
    b.write_vector(host);
    EXPECT_EQ(b.read_vector<float>(n), host) << n;
  }
  // Unaligned byte ranges (3 bytes at offset 5).
  Buffer b(gpu(), 16, BufferKind::Storage, "bytes");
  std::vector<uint8_t> bytes(16);
  std::iota(bytes.begin(), bytes.end(), 1);
  b.write_vector(bytes);
  uint8_t out[3];
  b.read(out, 3, 5);
  EXPECT_EQ(out[0], 6);
  EXPECT_EQ(out[2], 8);
}

namespace {
// y[i] = a * x[i] + b[i], with a 2-D folded grid when needed.
const char* kSaxpy = R"(
struct P { n : u32, a : f32, _p0 : u32, _p1 : u32 }
@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read> b : array<f32>;
@group(0) @binding(2) var<storage, read_write> y : array<f32>;
@group(0) @binding(3) var<uniform> p : P;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let i = (wid.y * nwg.x + wid.x) * 64u + lid;
  if (i < p.n) { y[i] = p.a * x[i] + b[i]; }
}
)";

void run(Device& d, const Pipeline& p, std::span<const BufferBinding> binds, Grid g) {
  BindGroupHandle bg = make_bind_group(d, p, binds);
  CommandEncoderHandle enc(wgpuDeviceCreateCommandEncoder(d.get(), nullptr));
  ComputePassHandle pass(wgpuCommandEncoderBeginComputePass(enc.get(), nullptr));
  wgpuComputePassEncoderSetPipeline(pass.get(), p.pipeline.get());
  wgpuComputePassEncoderSetBindGroup(pass.get(), 0, bg.get(), 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(pass.get(), g.x, g.y, g.z);
  wgpuComputePassEncoderEnd(pass.get());
  CommandBufferHandle cmd(wgpuCommandEncoderFinish(enc.get(), nullptr));
  WGPUCommandBuffer c = cmd.get();
  wgpuQueueSubmit(d.queue(), 1, &c);
  d.check_errors();
}
}  // namespace

TEST(Device, ComputeDispatchMatchesCpu) {
  Device& d = gpu();
  KernelSpec spec;
  spec.shader = "test/saxpy.wgsl";
  spec.inline_source = kSaxpy;
  const Pipeline& p = d.pipelines().get(spec);
  EXPECT_EQ(&p, &d.pipelines().get(spec)) << "pipeline must be cached";
  // 64 * 65535 + 1 elements would need 65536 workgroups: the grid must fold to 2-D.
  for (uint32_t n : {1u, 1000u, 64u * 65535u + 77u}) {
    std::vector<float> x(n), b(n);
    for (uint32_t i = 0; i < n; ++i) {
      x[i] = float(i % 1000) * 0.01f;
      b[i] = float(i % 7);
    }
    Buffer bx(d, n * 4, BufferKind::Storage, "x"), bb(d, n * 4, BufferKind::Storage, "b"),
        by(d, n * 4, BufferKind::Storage, "y"), bp(d, 16, BufferKind::Uniform, "params");
    bx.write_vector(x);
    bb.write_vector(b);
    struct {
      uint32_t n;
      float a;
      uint32_t pad[2];
    } params{n, 2.5f, {0, 0}};
    bp.write(&params, sizeof params);
    BufferBinding binds[] = {{bx.get(), 0, n * 4ull, "x"}, {bb.get(), 0, n * 4ull, "b"}, {by.get(), 0, n * 4ull, "y"},
                             {bp.get(), 0, 16, "params"}};
    Grid g = fold_grid(div_up(n, 64), d.limits().maxComputeWorkgroupsPerDimension);
    run(d, p, binds, g);
    auto y = by.read_vector<float>(n);
    for (uint32_t i = 0; i < n; ++i) ASSERT_FLOAT_EQ(y[i], 2.5f * x[i] + b[i]) << "n=" << n << " i=" << i;
  }
}

TEST(Device, BrokenWgslReportsFileLineColumn) {
  KernelSpec spec;
  spec.shader = "test/broken.wgsl";
  spec.inline_source = "@compute @workgroup_size(1)\nfn main() {\n  let x : u32 = 1.5;\n}\n";
  try {
    gpu().pipelines().get(spec);
    FAIL() << "expected a WGSL compile error";
  } catch (const GpuError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("test/broken.wgsl:3:"), std::string::npos) << m;
    EXPECT_NE(m.find("WGSL compile error"), std::string::npos) << m;
  }
  // The device stays usable.
  Buffer b(gpu(), 4, BufferKind::Storage, "after-error");
  float v = 3.0f;
  b.write(&v, 4);
  EXPECT_EQ(b.read_vector<float>(1)[0], 3.0f);
}

TEST(Device, AllocationAboveLimitIsClearError) {
  uint64_t too_big = gpu().limits().maxBufferSize + 16;
  try {
    Buffer b(gpu(), too_big, BufferKind::Storage, "huge.weight");
    FAIL() << "expected LimitError";
  } catch (const LimitError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("huge.weight"), std::string::npos) << m;
    EXPECT_NE(m.find("maxBufferSize"), std::string::npos) << m;
  }
}

TEST(Device, BindingAboveLimitIsClearError) {
  Device& d = gpu();
  KernelSpec spec;
  spec.shader = "ops/copy/copy_vec4.wgsl";
  const Pipeline& p = d.pipelines().get(spec);
  Buffer small(d, 64, BufferKind::Storage, "small"), u(d, 16, BufferKind::Uniform, "u");
  uint64_t over = d.limits().maxStorageBufferBindingSize + 4;
  BufferBinding binds[] = {{small.get(), 0, over, "big.tensor"}, {small.get(), 0, 64, "small"}, {u.get(), 0, 16, "u"}};
  try {
    make_bind_group(d, p, binds);
    FAIL() << "expected LimitError";
  } catch (const LimitError& e) {
    EXPECT_NE(std::string(e.what()).find("big.tensor"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("maxStorageBufferBindingSize"), std::string::npos) << e.what();
  }
}

TEST(Device, DestroyAfterHungKernelIsBounded) {
  // A kernel that never ends (it waits for a value nobody writes): the read times out, and destroying the
  // device afterwards must not wait forever (it waits once more, then abandons the device).
  setenv("WGRT_GPU_TIMEOUT_S", "1", 1);
  auto t0 = std::chrono::steady_clock::now();
  {
    std::unique_ptr<Device> d = Device::create();
    KernelSpec spec;
    spec.shader = "test/hang.wgsl";
    spec.inline_source = R"(
@group(0) @binding(0) var<storage, read_write> y : array<u32>;
@compute @workgroup_size(1)
fn main() {
  var acc = 0u;
  loop {
    if (y[1] != 0u) { break; }
    acc += 1u;
    y[0] = acc;
  }
}
)";
    const Pipeline& p = d->pipelines().get(spec);
    Buffer y(*d, 16, BufferKind::Storage, "hang.y");
    BufferBinding binds[] = {{y.get(), 0, 16, "y"}};
    run(*d, p, binds, Grid{1, 1, 1});
    try {
      y.read_vector<uint32_t>(1);
      ADD_FAILURE() << "the endless kernel returned";
    } catch (const GpuError& e) {
      EXPECT_NE(std::string(e.what()).find("timed out"), std::string::npos) << e.what();
    }
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  unsetenv("WGRT_GPU_TIMEOUT_S");
  EXPECT_LT(s, 30.0);  // 1 s read timeout + 1 s more at destruction, plus set-up
}

TEST(Device, BenchReferenceKernelsCompile) {
  // The read_all entry point of ops/copy/copy_vec4.wgsl serves only the benchmarks: keep it compiling.
  Device& d = gpu();
  for (const char* entry : {"main", "read_all"}) {
    KernelSpec spec;
    spec.shader = "ops/copy/copy_vec4.wgsl";
    spec.entry = entry;
    EXPECT_NO_THROW(d.pipelines().get(spec)) << entry;
  }
}

TEST(Device, UnknownAdapterListsAvailableOnes) {
  DeviceOptions opts;
  opts.adapter = "no-such-gpu-xyz";
  try {
    Device::create(opts);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("no-such-gpu-xyz"), std::string::npos) << m;
    EXPECT_NE(m.find("available adapters"), std::string::npos) << m;
    EXPECT_NE(m.find(gpu().adapter_info().backend_name()), std::string::npos) << m;
  }
}

TEST(Device, AdapterMatchByTypeAndBackend) {
  const auto& info = gpu().adapter_info();
  DeviceOptions opts;
  opts.adapter = info.backend == WGPUBackendType_Vulkan ? "vulkan" : info.backend_name();
  auto d = Device::create(opts);
  EXPECT_EQ(d->adapter_info().backend, info.backend);
}

TEST(Device, GpuTimeoutIsAnErrorAndReadsRecover) {
  // A deliberately long kernel (one invocation spinning ~2^31 iterations) with a 1 s wait limit: the read must
  // report a timeout instead of hanging, and once the GPU is done, reads work again.
  Device& d = gpu();
  KernelSpec spec;
  spec.shader = "test/spin.wgsl";
  spec.inline_source = R"(
struct P { n : u32, a : u32, b : u32, c : u32 }
@group(0) @binding(0) var<storage, read_write> y : array<u32>;
@group(0) @binding(1) var<uniform> p : P;
@compute @workgroup_size(1)
fn main() {
  var acc = 0u;
  for (var i = 0u; i < p.n; i++) { acc = acc * 1664525u + i; }
  y[0] = acc;
}
)";
  const Pipeline& p = d.pipelines().get(spec);
  Buffer y(d, 16, BufferKind::Storage, "spin.y"), u(d, 16, BufferKind::Uniform, "spin.params");
  uint32_t params[4] = {0x7fffffffu, 0, 0, 0};
  u.write(params, sizeof params);
  BufferBinding binds[] = {{y.get(), 0, 16, "y"}, {u.get(), 0, 16, "params"}};
  run(d, p, binds, Grid{1, 1, 1});
  setenv("WGRT_GPU_TIMEOUT_S", "1", 1);
  bool timed_out = false;
  try {
    y.read_vector<uint32_t>(1);
  } catch (const GpuError& e) {
    timed_out = std::string(e.what()).find("timed out") != std::string::npos;
    EXPECT_TRUE(timed_out) << e.what();
  }
  unsetenv("WGRT_GPU_TIMEOUT_S");
  d.wait_idle();  // the kernel finishes eventually
  Buffer z(d, 16, BufferKind::Storage, "after-timeout");
  uint32_t v[4] = {7, 8, 9, 10};
  z.write(v, sizeof v);
  EXPECT_EQ(z.read_vector<uint32_t>(4), (std::vector<uint32_t>{7, 8, 9, 10}));
  if (!timed_out) GTEST_SKIP() << "the GPU finished 2^31 iterations within 1 s: no timeout to observe";
}
