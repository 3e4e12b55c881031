// Dawn's per-dispatch floor: chains of trivial compute dispatches, timed on the GPU (timestamp writes at the
// start of the first pass and the end of the last) and on the CPU (encode, submit, submit-to-idle wall time).
//
// Every dispatch runs the same trivial kernel (a[i] += 1 over E u32 elements, workgroup size 64, one uniform
// parameter block, as wgrt's ops bind theirs), so the per-dispatch time is Dawn + driver + barrier cost.
// Scenarios (each a chain of N dispatches; N=1 is run too, the "slope" column is (T(N) - T(1)) / (N - 1)):
//   dep_same         every dispatch increments the same buffer (a true read-after-write chain)
//   dep_same_2pipe   as dep_same, alternating two distinct pipelines (graphs switch pipelines every dispatch)
//   dep_same_rebind  as dep_same, a distinct bind group per dispatch (all pointing at the same buffer)
//   dep_chain        dispatch i reads buffer i-1, writes buffer i (distinct buffers, truly dependent)
//   indep_distinct   dispatch i increments its own buffer (independent; lets the GPU overlap if Dawn allows)
//   indep_ranges     dispatch i increments its own 256-byte-aligned range of ONE shared buffer (what a memory
//                    plan that packs intermediates into shared buffers looks like to Dawn's usage tracking)
//   indep_dynoff     as indep_ranges through one bind group with a dynamic offset per dispatch
//   shared_input     every dispatch reads one shared read-only buffer and writes its own (q/k/v, gate/up)
//   *_passes         the scenario with every dispatch in its own compute pass
//   profiled         indep_distinct with a pass per dispatch and begin/end timestamps on each (what
//                    wgrt's profiler does): the mean of the per-pass durations is what a profile reports
// Values are checked after the runs (each element's final count), so a dropped dispatch is an error.
// Usage: wgrt_bench_dispatch [--n N] [--reps R] [--elems E] [--only NAME]
//   N dispatches per chain (default 200), R timed repetitions (default 20, median reported), E elements per
//   dispatch (default 64: one workgroup; 2048 or 8192 look like decode's elementwise ops).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "webgpu/bind_group.h"
#include "webgpu/buffer.h"
#include "webgpu/device.h"
#include "webgpu/pipeline_cache.h"
#include "wgrt/error.h"

using namespace wgrt;
using namespace wgrt::webgpu;

namespace {

const char* kIncWgsl = R"(
struct Params { n: u32, add: u32, pad0: u32, pad1: u32 }
@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@group(0) @binding(1) var<uniform> p: Params;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < p.n) { a[g.x] = a[g.x] + p.add; }
}
)";

const char* kCopyWgsl = R"(
struct Params { n: u32, add: u32, pad0: u32, pad1: u32 }
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < p.n) { dst[g.x] = src[g.x] + p.add; }
}
)";

struct Step {
  WGPUComputePipeline pipeline = nullptr;
  WGPUBindGroup group = nullptr;
  int dyn_offset = -1;  // >= 0: one dynamic offset (bytes)
};

struct Chain {
  std::vector<Step> steps;
  bool pass_per_dispatch = false;
  bool time_each = false;  // per-pass begin/end timestamps (profiler style)
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

struct Timing {
  double gpu_us = 0, encode_us = 0, submit_us = 0, wall_us = 0, each_mean_us = 0;
};

class Bench {
 public:
  Bench(Device& dev, uint32_t elems, int nmax) : dev_(dev), elems_(elems) {
    stride_ = std::max<uint64_t>((uint64_t(elems) * 4 + 255) / 256 * 256, dev.limits().minStorageBufferOffsetAlignment);
    uniforms_ = Buffer(dev, 256, BufferKind::Uniform, "params");
    uint32_t p[4] = {elems, 1, 0, 0};
    uniforms_.write(p, sizeof p);
    inc_ = &dev.pipelines().get(KernelSpec{"bench/inc.wgsl", "main", {}, kIncWgsl});
    inc2_ = &dev.pipelines().get(KernelSpec{"bench/inc2.wgsl", "main", {}, std::string(kIncWgsl) + "// variant 2\n"});
    copy_ = &dev.pipelines().get(KernelSpec{"bench/copy.wgsl", "main", {}, kCopyWgsl});
    for (int i = 0; i <= nmax; ++i) bufs_.emplace_back(dev, stride_, BufferKind::Storage, fmt::format("buf {}", i));
    packed_ = Buffer(dev, stride_ * uint64_t(nmax + 1), BufferKind::Storage, "packed");
    make_dynamic_pipeline();
    query_set_ = make_query_set(2 * uint32_t(nmax) + 2);
    resolve_ = Buffer(dev, (2 * uint64_t(nmax) + 2) * 8, BufferKind::Query, "resolve");
  }
  ~Bench() {
    wgpuQuerySetDestroy(query_set_);
    wgpuQuerySetRelease(query_set_);
  }

  WGPUBindGroup inc_group(WGPUBuffer b, uint64_t offset, const Pipeline& p) {
    BufferBinding bb[2] = {{b, offset, uint64_t(elems_) * 4, "a"}, {uniforms_.get(), 0, 16, "params"}};
    groups_.push_back(make_bind_group(dev_, p, bb));
    return groups_.back().get();
  }
  WGPUBindGroup copy_group(WGPUBuffer src, WGPUBuffer dst) {
    BufferBinding bb[3] = {{src, 0, uint64_t(elems_) * 4, "src"}, {dst, 0, uint64_t(elems_) * 4, "dst"},
                           {uniforms_.get(), 0, 16, "params"}};
    groups_.push_back(make_bind_group(dev_, *copy_, bb));
    return groups_.back().get();
  }

  Chain build(const std::string& name, int n) {
    Chain c;
    std::string base = name;
    if (base.size() > 7 && base.substr(base.size() - 7) == "_passes") {
      c.pass_per_dispatch = true;
      base = base.substr(0, base.size() - 7);
    }
    if (base == "profiled") {
      c.pass_per_dispatch = c.time_each = true;
      base = "indep_distinct";
    }
    WGPUBindGroup same = inc_group(bufs_[0].get(), 0, *inc_);
    WGPUBindGroup same2 = inc_group(bufs_[0].get(), 0, *inc2_);
    for (int i = 0; i < n; ++i) {
      Step s{inc_->pipeline.get(), same, -1};
      if (base == "dep_same") {
      } else if (base == "dep_same_2pipe") {
        if (i % 2) s = {inc2_->pipeline.get(), same2, -1};
      } else if (base == "dep_same_rebind") {
        s.group = inc_group(bufs_[0].get(), 0, *inc_);
      } else if (base == "dep_chain") {
        s = {copy_->pipeline.get(), copy_group(bufs_[size_t(i)].get(), bufs_[size_t(i) + 1].get()), -1};
      } else if (base == "indep_distinct") {
        s.group = inc_group(bufs_[size_t(i) + 1].get(), 0, *inc_);
      } else if (base == "indep_ranges") {
        s.group = inc_group(packed_.get(), stride_ * uint64_t(i), *inc_);
      } else if (base == "indep_dynoff") {
        s = {dyn_pipeline_.get(), dyn_group_.get(), int(stride_ * uint64_t(i))};
      } else if (base == "shared_input") {
        s = {copy_->pipeline.get(), copy_group(bufs_[0].get(), bufs_[size_t(i) + 1].get()), -1};
      } else {
        throw InvalidArgument(fmt::format("unknown scenario '{}'", name));
      }
      c.steps.push_back(s);
    }
    return c;
  }

  Timing run(const Chain& c, int reps) {
    std::vector<double> gpu, enc_t, sub_t, wall, each;
    const uint32_t wg = (elems_ + 63) / 64;
    const size_t n = c.steps.size();
    for (int r = 0; r < reps + 2; ++r) {  // two untimed warm-up runs
      auto t0 = std::chrono::steady_clock::now();
      CommandEncoderHandle enc(wgpuDeviceCreateCommandEncoder(dev_.get(), nullptr));
      WGPUComputePassEncoder pass = nullptr;
      for (size_t i = 0; i < n; ++i) {
        bool first = i == 0, last = i + 1 == n;
        if (!pass) {
          WGPUPassTimestampWrites tw{};
          tw.querySet = query_set_;
          bool last_pass = !c.pass_per_dispatch || last;
          tw.beginningOfPassWriteIndex = c.time_each ? uint32_t(2 * i) : first ? 0 : WGPU_QUERY_SET_INDEX_UNDEFINED;
          tw.endOfPassWriteIndex = c.time_each ? uint32_t(2 * i + 1) : last_pass ? 1 : WGPU_QUERY_SET_INDEX_UNDEFINED;
          WGPUComputePassDescriptor pd{};
          bool any = tw.beginningOfPassWriteIndex != WGPU_QUERY_SET_INDEX_UNDEFINED ||
                     tw.endOfPassWriteIndex != WGPU_QUERY_SET_INDEX_UNDEFINED;
          pd.timestampWrites = any ? &tw : nullptr;
          pass = wgpuCommandEncoderBeginComputePass(enc.get(), &pd);
        }
        const Step& s = c.steps[i];
        wgpuComputePassEncoderSetPipeline(pass, s.pipeline);
        uint32_t off = s.dyn_offset >= 0 ? uint32_t(s.dyn_offset) : 0;
        wgpuComputePassEncoderSetBindGroup(pass, 0, s.group, s.dyn_offset >= 0 ? 1 : 0, s.dyn_offset >= 0 ? &off : nullptr);
        wgpuComputePassEncoderDispatchWorkgroups(pass, wg, 1, 1);
        if (last || c.pass_per_dispatch) {
          wgpuComputePassEncoderEnd(pass);
          wgpuComputePassEncoderRelease(pass);
          pass = nullptr;
        }
      }
      uint32_t queries = c.time_each ? uint32_t(2 * n) : 2;
      wgpuCommandEncoderResolveQuerySet(enc.get(), query_set_, 0, queries, resolve_.get(), 0);
      CommandBufferHandle cmd(wgpuCommandEncoderFinish(enc.get(), nullptr));
      auto t1 = std::chrono::steady_clock::now();
      WGPUCommandBuffer cb = cmd.get();
      wgpuQueueSubmit(dev_.queue(), 1, &cb);
      auto t2 = std::chrono::steady_clock::now();
      dev_.wait_idle();
      auto t3 = std::chrono::steady_clock::now();
      auto ts = resolve_.read_vector<uint64_t>(queries);
      if (r < 2) continue;
      auto us = [](auto a, auto b) { return std::chrono::duration<double, std::micro>(b - a).count(); };
      enc_t.push_back(us(t0, t1));
      sub_t.push_back(us(t1, t2));
      wall.push_back(us(t0, t3));
      if (c.time_each) {
        double sum = 0;
        for (size_t i = 0; i < n; ++i) sum += double(ts[2 * i + 1] - ts[2 * i]);
        each.push_back(sum / 1e3 / double(n));
        gpu.push_back(double(ts[2 * n - 1] - ts[0]) / 1e3);
      } else {
        gpu.push_back(double(ts[1] - ts[0]) / 1e3);
      }
    }
    Timing t{median(gpu), median(enc_t), median(sub_t), median(wall), each.empty() ? 0 : median(each)};
    return t;
  }

  // Every element of every buffer must be a whole number of increments: reads all buffers and checks that
  // element 0 and element E-1 agree (a partially applied dispatch would differ) and that something ran.
  void check() {
    auto check_one = [&](const Buffer& b, uint64_t off, const std::string& what) {
      auto v = b.read_vector<uint32_t>(elems_, off);
      for (uint32_t i = 1; i < elems_; ++i)
        if (v[i] != v[0]) throw Error(fmt::format("{}: element {} is {}, element 0 is {}", what, i, v[i], v[0]));
      return v[0];
    };
    uint64_t total = 0;
    for (size_t i = 0; i < bufs_.size(); ++i) total += check_one(bufs_[i], 0, bufs_[i].label());
    for (size_t i = 0; i + 1 < bufs_.size(); ++i) total += check_one(packed_, stride_ * i, fmt::format("packed range {}", i));
    if (total == 0) throw Error("no dispatch wrote anything");
  }

 private:
  WGPUQuerySet make_query_set(uint32_t count) {
    WGPUQuerySetDescriptor d{};
    d.type = WGPUQueryType_Timestamp;
    d.count = count;
    WGPUQuerySet q = wgpuDeviceCreateQuerySet(dev_.get(), &d);
    dev_.check_errors();
    return q;
  }

  void make_dynamic_pipeline() {
    // The inc kernel with binding 0 behind a dynamic offset (wgrt's pipeline cache makes static layouts only).
    WGPUShaderSourceWGSL wgsl{};
    wgsl.chain.sType = WGPUSType_ShaderSourceWGSL;
    wgsl.code = sv(kIncWgsl);
    WGPUShaderModuleDescriptor md{};
    md.nextInChain = &wgsl.chain;
    ShaderModuleHandle module(wgpuDeviceCreateShaderModule(dev_.get(), &md));
    WGPUBindGroupLayoutEntry e[2]{};
    e[0].binding = 0;
    e[0].visibility = WGPUShaderStage_Compute;
    e[0].buffer.type = WGPUBufferBindingType_Storage;
    e[0].buffer.hasDynamicOffset = 1;
    e[1].binding = 1;
    e[1].visibility = WGPUShaderStage_Compute;
    e[1].buffer.type = WGPUBufferBindingType_Uniform;
    WGPUBindGroupLayoutDescriptor bld{};
    bld.entryCount = 2;
    bld.entries = e;
    dyn_layout_.reset(wgpuDeviceCreateBindGroupLayout(dev_.get(), &bld));
    WGPUBindGroupLayout layouts[] = {dyn_layout_.get()};
    WGPUPipelineLayoutDescriptor pld{};
    pld.bindGroupLayoutCount = 1;
    pld.bindGroupLayouts = layouts;
    PipelineLayoutHandle pl(wgpuDeviceCreatePipelineLayout(dev_.get(), &pld));
    WGPUComputePipelineDescriptor cd{};
    cd.layout = pl.get();
    cd.compute.module = module.get();
    cd.compute.entryPoint = sv("main");
    dyn_pipeline_.reset(wgpuDeviceCreateComputePipeline(dev_.get(), &cd));
    WGPUBindGroupEntry be[2]{};
    be[0].binding = 0;
    be[0].buffer = packed_.get();
    be[0].size = uint64_t(elems_) * 4;
    be[1].binding = 1;
    be[1].buffer = uniforms_.get();
    be[1].size = 16;
    WGPUBindGroupDescriptor bd{};
    bd.layout = dyn_layout_.get();
    bd.entryCount = 2;
    bd.entries = be;
    dyn_group_.reset(wgpuDeviceCreateBindGroup(dev_.get(), &bd));
    dev_.check_errors();
  }

  Device& dev_;
  uint32_t elems_;
  uint64_t stride_;
  Buffer uniforms_, packed_, resolve_;
  std::vector<Buffer> bufs_;
  std::vector<BindGroupHandle> groups_;
  const Pipeline *inc_ = nullptr, *inc2_ = nullptr, *copy_ = nullptr;
  BindGroupLayoutHandle dyn_layout_;
  ComputePipelineHandle dyn_pipeline_;
  BindGroupHandle dyn_group_;
  WGPUQuerySet query_set_ = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  int n = 200, reps = 20;
  uint32_t elems = 64;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    auto val = [&](const char* flag) -> const char* {
      if (std::strcmp(argv[i], flag) || i + 1 >= argc) return nullptr;
      return argv[++i];
    };
    if (const char* v = val("--n")) n = std::max(2, std::atoi(v));
    else if (const char* v = val("--reps")) reps = std::max(1, std::atoi(v));
    else if (const char* v = val("--elems")) elems = uint32_t(std::max(1, std::atoi(v)));
    else if (const char* v = val("--only")) only = v;
    else {
      fmt::print(stderr, "usage: {} [--n N] [--reps R] [--elems E] [--only NAME]\n", argv[0]);
      return 2;
    }
  }
  try {
    auto dev = Device::create();
    if (!dev->has_timestamps()) throw Unsupported("this benchmark needs the timestamp-query feature");
    fmt::print("adapter: {} ({}); {} dispatches per chain, {} elements ({} workgroups) each, median of {} runs\n",
               dev->adapter_info().description, dev->adapter_info().backend, n, elems, (elems + 63) / 64, reps);
    Bench b(*dev, elems, n);
    const std::vector<std::string> names = {"dep_same",       "dep_same_2pipe", "dep_same_rebind", "dep_chain",
                                            "indep_distinct", "indep_ranges",   "indep_dynoff",    "shared_input",
                                            "dep_same_passes", "indep_distinct_passes", "profiled"};
    fmt::print("{:<22} {:>10} {:>10} {:>11} {:>10} {:>10} {:>10} {:>11}\n", "scenario", "gpu us", "gpu us/d",
               "gpu slope", "enc us/d", "submit us", "wall us", "wall us/d");
    for (const std::string& name : names) {
      if (!only.empty() && name.find(only) == std::string::npos) continue;
      Timing one = b.run(b.build(name, 1), reps);
      Timing all = b.run(b.build(name, n), reps);
      fmt::print("{:<22} {:>10.1f} {:>10.2f} {:>11.2f} {:>10.2f} {:>10.1f} {:>10.1f} {:>11.2f}", name, all.gpu_us,
                 all.gpu_us / n, (all.gpu_us - one.gpu_us) / (n - 1), all.encode_us / n, all.submit_us, all.wall_us,
                 all.wall_us / n);
      if (all.each_mean_us > 0) fmt::print("   (mean per-pass timestamp span {:.2f} us)", all.each_mean_us);
      fmt::print("\n");
    }
    b.check();
    fmt::print("values checked: every buffer holds whole increments\n");
  } catch (const Error& e) {
    fmt::print(stderr, "wgrt_bench_dispatch: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
