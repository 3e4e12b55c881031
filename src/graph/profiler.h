// GPU timestamp profiling of graph executions.
//
// Opt-in (WGRT_TIMESTAMP_QUERY=1 or ExecutableGraph::enable_profiling). When on, each dispatch runs in its
// own compute pass with pass-level timestampWrites (WebGPU core; no unsafe APIs), so the time of a dispatch
// is end - begin of its pass in nanoseconds. Dawn's timestamp_quantization toggle is disabled by the device.
// When off, the execute path records no queries at all.
// What a time includes: the pass per dispatch adds the driver's per-pass cost to every entry (a trivial dispatch
// reads 9.0 us profiled on an H200, against 1.9 us unprofiled; BENCHMARKS.md, decode loop), so compare kernels by
// differences between runs, not by absolute times. On lavapipe it can grow with the buffers a dispatch binds
// (the mechanism is not known): `rope_qkv` reads 107 us per call at context 256 and 654 us at 4096, and decode
// attention over an f32 cache 4.6 ms, while unprofiled decode runs at the same rate at both contexts and both cache
// types (BENCHMARKS.md, lavapipe peers, sixteenth session).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "webgpu/buffer.h"
#include "webgpu/device.h"

namespace wgrt {

struct KernelStat {
  uint64_t count = 0;
  double total_ns = 0;
};

struct TraceEvent {
  std::string name;  // "<node label>/<kernel>"
  std::string kernel;
  int layer = -1;
  double start_ns = 0, dur_ns = 0;  // relative to the first dispatch of its execute
  int execute = 0;
};

class Profiler {
 public:
  // Throws Unsupported if the device was not granted timestamp-query.
  explicit Profiler(webgpu::Device& dev);
  ~Profiler();

  // Per execute: begin(n) reserves 2n queries; pass_writes(i) fills a pass's timestampWrites; resolve()
  // is encoded after the last pass; collect() (after submit) reads the times back and accumulates them.
  void begin(size_t dispatches);
  WGPUPassTimestampWrites pass_writes(size_t i) const;
  void resolve(WGPUCommandEncoder enc);
  void collect(const std::vector<std::string>& names, const std::vector<std::string>& kernels,
               const std::vector<int>& layers);

  // Per-kernel table: kernel, count, total ms, mean us, share of GPU time; sorted by total time.
  std::string table() const;
  // Chrome trace JSON (Perfetto / chrome://tracing): one complete event ("ph":"X") per dispatch.
  std::string chrome_trace() const;
  const std::map<std::string, KernelStat>& stats() const { return stats_; }
  const std::vector<TraceEvent>& events() const { return events_; }
  double total_ns() const;
  void reset();

 private:
  webgpu::Device& dev_;
  WGPUQuerySet set_ = nullptr;
  uint32_t capacity_ = 0;  // queries
  size_t count_ = 0;       // dispatches in the current execute
  webgpu::Buffer resolve_;
  std::map<std::string, KernelStat> stats_;
  std::vector<TraceEvent> events_;
  int executes_ = 0;
  double trace_offset_ns_ = 0;
};

}  // namespace wgrt
