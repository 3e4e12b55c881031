#include "graph/profiler.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "wgrt/error.h"

namespace wgrt {

Profiler::Profiler(webgpu::Device& dev) : dev_(dev) {
  if (!dev.has_timestamps())
    throw Unsupported(fmt::format("GPU profiling needs the timestamp-query feature, which adapter '{}' does not offer",
                                  dev.adapter_info().summary()));
}

Profiler::~Profiler() {
  if (set_) {
    wgpuQuerySetDestroy(set_);
    wgpuQuerySetRelease(set_);
  }
}

void Profiler::begin(size_t dispatches) {
  count_ = dispatches;
  uint32_t need = uint32_t(std::max<size_t>(2, 2 * dispatches));
  if (need > 4096) throw LimitError(fmt::format("profiling {} dispatches in one execute: at most 2048", dispatches));
  if (need > capacity_) {
    if (set_) {
      wgpuQuerySetDestroy(set_);
      wgpuQuerySetRelease(set_);
    }
    WGPUQuerySetDescriptor d{};
    d.label = webgpu::sv("wgrt timestamps");
    d.type = WGPUQueryType_Timestamp;
    d.count = need;
    set_ = wgpuDeviceCreateQuerySet(dev_.get(), &d);
    capacity_ = need;
    resolve_ = webgpu::Buffer(dev_, uint64_t(need) * 8, webgpu::BufferKind::Query, "timestamp resolve");
    dev_.check_errors();
  }
}

WGPUPassTimestampWrites Profiler::pass_writes(size_t i) const {
  WGPUPassTimestampWrites w{};
  w.querySet = set_;
  w.beginningOfPassWriteIndex = uint32_t(2 * i);
  w.endOfPassWriteIndex = uint32_t(2 * i + 1);
  return w;
}

void Profiler::resolve(WGPUCommandEncoder enc) {
  if (count_ == 0) return;
  wgpuCommandEncoderResolveQuerySet(enc, set_, 0, uint32_t(2 * count_), resolve_.get(), 0);
}

void Profiler::collect(const std::vector<std::string>& names, const std::vector<std::string>& kernels,
                       const std::vector<int>& layers) {
  if (count_ == 0) return;
  auto ts = resolve_.read_vector<uint64_t>(2 * count_);
  uint64_t t0 = ts[0];
  double last_end = 0;
  for (size_t i = 0; i < count_; ++i) {
    double b = double(ts[2 * i]), e = double(ts[2 * i + 1]);
    double dur = e >= b ? e - b : 0;
    KernelStat& st = stats_[kernels[i]];
    st.count++;
    st.total_ns += dur;
    double start = trace_offset_ns_ + (b >= double(t0) ? b - double(t0) : 0);
    events_.push_back({names[i], kernels[i], layers[i], start, dur, executes_});
    last_end = std::max(last_end, start + dur);
  }
  trace_offset_ns_ = last_end + 1000;  // executes laid end to end in the trace, 1 us apart
  ++executes_;
}

double Profiler::total_ns() const {
  double t = 0;
  for (auto& [k, s] : stats_) t += s.total_ns;
  return t;
}

void Profiler::reset() {
  stats_.clear();
  events_.clear();
  executes_ = 0;
  trace_offset_ns_ = 0;
}

std::string Profiler::table() const {
  std::vector<std::pair<std::string, KernelStat>> rows(stats_.begin(), stats_.end());
  std::sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.second.total_ns > b.second.total_ns; });
  double total = total_ns();
  std::string s = fmt::format("{:<48} {:>8} {:>12} {:>12} {:>7}\n", "kernel", "count", "total ms", "mean us", "share");
  for (auto& [k, st] : rows)
    s += fmt::format("{:<48} {:>8} {:>12.3f} {:>12.2f} {:>6.1f}%\n", k, st.count, st.total_ns / 1e6,
                     st.total_ns / 1e3 / double(st.count), total > 0 ? 100.0 * st.total_ns / total : 0.0);
  s += fmt::format("{:<48} {:>8} {:>12.3f}\n", "total GPU time", "", total / 1e6);
  return s;
}

std::string Profiler::chrome_trace() const {
  nlohmann::json ev = nlohmann::json::array();
  for (const auto& e : events_) {
    nlohmann::json j{{"name", e.name}, {"cat", e.kernel}, {"ph", "X"}, {"pid", 1}, {"tid", 1},
                     {"ts", e.start_ns / 1e3}, {"dur", e.dur_ns / 1e3}};
    j["args"] = {{"kernel", e.kernel}, {"layer", e.layer}, {"execute", e.execute}};
    ev.push_back(std::move(j));
  }
  return nlohmann::json{{"traceEvents", ev}, {"displayTimeUnit", "ns"}}.dump();
}

}  // namespace wgrt
