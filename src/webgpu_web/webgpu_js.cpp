// The browser device layer's C half: the subset of Dawn's C API that wgrt calls (declared in
// webgpu/dawn_api.h), implemented over the page's WebGPU through the JavaScript half (wgrt_webgpu.js).
//
// Why not Emscripten 3.1.6's own webgpu.h: it is the early-2022 API (no futures, no WGPUStringView, other
// struct layouts), so the rest of src/webgpu would need a second code path. Implementing today's C API here
// keeps src/webgpu, src/graph and src/ops unchanged, and moving to emdawnwebgpu (which implements the same
// API) later means deleting this folder and linking emdawnwebgpu instead (docs/BROWSER.md).
//
// Semantics kept from Dawn: handles are reference-counted (Release drops one reference); futures complete in
// wgpuInstanceWaitAny, which runs their callbacks (WaitAnyOnly mode; the other modes also run there or in
// wgpuInstanceProcessEvents); uncaptured errors and device loss reach the device's callbacks at the next wait,
// submit or ProcessEvents. Not implemented (wgrt does not call them): textures, samplers, render passes,
// indirect dispatch, timestamps inside passes, immediate data, SPIR-V shaders.
// Single-threaded: the browser build has no threads.
#include <emscripten.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "webgpu/dawn_api.h"

extern "C" {
void wgrt_js_addref(int id);
void wgrt_js_release(int id);
int wgrt_js_future_done(int id);
int wgrt_js_wait(int id, double timeout_ms);
int wgrt_js_future_status(int id);
double wgrt_js_future_value(int id, const char* key);
int wgrt_js_future_message(int id, char* buf, int cap);
void wgrt_js_future_forget(int id);
int wgrt_js_event_next(int* device, int* kind);
void wgrt_js_event_pop(char* buf, int cap);
int wgrt_js_request_adapter(int power);
int wgrt_js_adapter_string(int id, int which, char* buf, int cap);
int wgrt_js_adapter_number(int id, int which);
int wgrt_js_limits(int id, double* out);
int wgrt_js_has_feature(int id, int feature);
int wgrt_js_has_wgsl_feature(const char* name);
int wgrt_js_request_device(int adapter, const int* features, int count);
void wgrt_js_device_destroy(int id);
int wgrt_js_create_buffer(int dev, double usage, double size, int mapped);
void wgrt_js_buffer_destroy(int id);
void wgrt_js_write_buffer(int queue, int buf, double offset, const void* ptr, int size);
int wgrt_js_map_async(int buf, int mode, double offset, double size);
const void* wgrt_js_mapped_range(int buf, double offset, double size);
void wgrt_js_unmap(int buf);
int wgrt_js_create_shader(int dev, const char* code, int len, const char* label, int label_len);
int wgrt_js_compilation_info(int module);
int wgrt_js_message_count(int fid);
int wgrt_js_message_get(int fid, int i, double* out, char* buf, int cap);
int wgrt_js_create_bgl(int dev, int n, const uint32_t* entries, const double* min_sizes);
int wgrt_js_create_pipeline_layout(int dev, int n, const uint32_t* layouts);
int wgrt_js_create_compute_pipeline(int dev, int layout, int module, const char* entry, int entry_len,
                                    const char* consts, int consts_len, const char* label, int label_len);
int wgrt_js_create_bind_group(int dev, int layout, int n, const double* entries);
void wgrt_js_push_error_scope(int dev, int filter);
int wgrt_js_pop_error_scope(int dev);
int wgrt_js_create_query_set(int dev, int count);
void wgrt_js_query_set_destroy(int id);
int wgrt_js_create_encoder(int dev);
int wgrt_js_begin_compute_pass(int enc, int query_set, int begin, int end);
void wgrt_js_set_pipeline(int pass, int pipeline);
void wgrt_js_set_bind_group(int pass, int index, int group);
void wgrt_js_dispatch(int pass, int x, int y, int z);
void wgrt_js_end_pass(int pass);
void wgrt_js_copy_buffer(int enc, int src, double src_off, int dst, double dst_off, double size);
void wgrt_js_resolve_query_set(int enc, int qs, int first, int count, int dst, double dst_off);
int wgrt_js_finish(int enc);
void wgrt_js_submit(int queue, int n, const uint32_t* cmds);
int wgrt_js_work_done(int queue);
}

namespace {

template <typename T>
int id(T h) {
  return int(reinterpret_cast<uintptr_t>(h));
}
template <typename T>
T handle(int i) {
  return reinterpret_cast<T>(uintptr_t(i));
}
std::string_view view(WGPUStringView s) {
  if (!s.data) return {};
  return s.length == WGPU_STRLEN ? std::string_view(s.data) : std::string_view(s.data, s.length);
}
double size_arg(uint64_t v) { return v == WGPU_WHOLE_SIZE ? -1.0 : double(v); }
double map_size_arg(size_t v) { return v == WGPU_WHOLE_MAP_SIZE ? -1.0 : double(v); }
std::string future_message(int f) {
  std::string m(size_t(wgrt_js_future_message(f, nullptr, 0)), '\0');
  std::vector<char> buf(m.size() + 1);
  wgrt_js_future_message(f, buf.data(), int(buf.size()));
  return std::string(buf.data());
}

// A started future: the callback to run (with the settled result) when it completes.
std::unordered_map<uint64_t, std::function<void()>> g_pending;

WGPUFuture start(int fid, std::function<void()> on_done) {
  g_pending[uint64_t(fid)] = std::move(on_done);
  return WGPUFuture{uint64_t(fid)};
}
void complete(uint64_t fid) {
  auto it = g_pending.find(fid);
  if (it == g_pending.end()) return;
  std::function<void()> cb = std::move(it->second);
  g_pending.erase(it);
  cb();
  wgrt_js_future_forget(int(fid));
}

// Device callbacks from the device descriptor, run when the JS half reports an event.
struct DeviceCallbacks {
  WGPUDeviceLostCallbackInfo lost{};
  WGPUUncapturedErrorCallbackInfo uncaptured{};
  int queue = 0;  // the device's queue (wgpuDeviceGetQueue adds a reference per call)
};
std::unordered_map<int, DeviceCallbacks> g_devices;

void drain_events() {
  int dev = 0, kind = 0;
  while (wgrt_js_event_next(&dev, &kind)) {
    char msg[2048];
    wgrt_js_event_pop(msg, sizeof msg);
    auto it = g_devices.find(dev);
    if (it == g_devices.end()) continue;
    WGPUDevice d = handle<WGPUDevice>(dev);
    WGPUStringView m{msg, std::strlen(msg)};
    if (kind < 0) {
      const DeviceCallbacks cbs = it->second;
      if (cbs.lost.callback)
        cbs.lost.callback(&d, kind == -2 ? WGPUDeviceLostReason_Destroyed : WGPUDeviceLostReason_Unknown, m,
                          cbs.lost.userdata1, cbs.lost.userdata2);
    } else if (it->second.uncaptured.callback) {
      it->second.uncaptured.callback(&d, WGPUErrorType(kind), m, it->second.uncaptured.userdata1,
                                     it->second.uncaptured.userdata2);
    }
  }
}

void read_limits(int obj, WGPULimits* l) {
  double v[64];
  const int n = wgrt_js_limits(obj, v);
  uint32_t* u32[] = {&l->maxTextureDimension1D, &l->maxTextureDimension2D, &l->maxTextureDimension3D,
                     &l->maxTextureArrayLayers, &l->maxBindGroups, &l->maxBindGroupsPlusVertexBuffers,
                     &l->maxBindingsPerBindGroup, &l->maxDynamicUniformBuffersPerPipelineLayout,
                     &l->maxDynamicStorageBuffersPerPipelineLayout, &l->maxSampledTexturesPerShaderStage,
                     &l->maxSamplersPerShaderStage, &l->maxStorageBuffersPerShaderStage,
                     &l->maxStorageTexturesPerShaderStage, &l->maxUniformBuffersPerShaderStage};
  int i = 0;
  for (uint32_t* p : u32) *p = v[i] < 0 ? WGPU_LIMIT_U32_UNDEFINED : uint32_t(v[i]), ++i;
  l->maxUniformBufferBindingSize = v[i] < 0 ? WGPU_LIMIT_U64_UNDEFINED : uint64_t(v[i]), ++i;
  l->maxStorageBufferBindingSize = v[i] < 0 ? WGPU_LIMIT_U64_UNDEFINED : uint64_t(v[i]), ++i;
  l->minUniformBufferOffsetAlignment = uint32_t(v[i++]);
  l->minStorageBufferOffsetAlignment = uint32_t(v[i++]);
  l->maxVertexBuffers = uint32_t(v[i++]);
  l->maxBufferSize = v[i] < 0 ? WGPU_LIMIT_U64_UNDEFINED : uint64_t(v[i]), ++i;
  uint32_t* rest[] = {&l->maxVertexAttributes, &l->maxVertexBufferArrayStride, &l->maxInterStageShaderVariables,
                      &l->maxColorAttachments, &l->maxColorAttachmentBytesPerSample,
                      &l->maxComputeWorkgroupStorageSize, &l->maxComputeInvocationsPerWorkgroup,
                      &l->maxComputeWorkgroupSizeX, &l->maxComputeWorkgroupSizeY, &l->maxComputeWorkgroupSizeZ,
                      &l->maxComputeWorkgroupsPerDimension};
  for (uint32_t* p : rest) *p = v[i] < 0 ? WGPU_LIMIT_U32_UNDEFINED : uint32_t(v[i]), ++i;
  (void)n;
  l->maxImmediateSize = 0;
}

std::string copy_string(int (*get)(int, int, char*, int), int obj, int which) {
  std::vector<char> buf(size_t(get(obj, which, nullptr, 0)) + 1);
  get(obj, which, buf.data(), int(buf.size()));
  return std::string(buf.data());
}
WGPUStringView owned(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  std::memcpy(p, s.c_str(), s.size() + 1);
  return WGPUStringView{p, s.size()};
}

}  // namespace

extern "C" {

// --- instance ---
WGPUInstance wgpuCreateInstance(const WGPUInstanceDescriptor*) { return handle<WGPUInstance>(1); }
void wgpuInstanceRelease(WGPUInstance) {}
void wgpuInstanceProcessEvents(WGPUInstance) {
  drain_events();
  std::vector<uint64_t> done;
  for (auto& [fid, cb] : g_pending)
    if (wgrt_js_future_done(int(fid))) done.push_back(fid);
  for (uint64_t fid : done) complete(fid);
}
WGPUWaitStatus wgpuInstanceWaitAny(WGPUInstance, size_t count, WGPUFutureWaitInfo* futures, uint64_t timeout_ns) {
  const double timeout_ms = timeout_ns == UINT64_MAX ? -1.0 : double(timeout_ns) / 1e6;
  bool any = false;
  for (size_t i = 0; i < count; ++i) {
    const int fid = int(futures[i].future.id);
    futures[i].completed = wgrt_js_future_done(fid);
    any = any || futures[i].completed;
  }
  if (!any && count > 0) {
    // One future at a time is what wgrt waits on; with several, the first one is waited for.
    const int r = wgrt_js_wait(int(futures[0].future.id), timeout_ms);
    if (r < 0) return WGPUWaitStatus_Error;
    if (r == 0) return WGPUWaitStatus_TimedOut;
    futures[0].completed = 1;
  }
  drain_events();
  for (size_t i = 0; i < count; ++i)
    if (futures[i].completed) complete(futures[i].future.id);
  return WGPUWaitStatus_Success;
}
WGPUBool wgpuInstanceHasWGSLLanguageFeature(WGPUInstance, WGPUWGSLLanguageFeatureName f) {
  const char* name = f == WGPUWGSLLanguageFeatureName_Packed4x8IntegerDotProduct ? "packed_4x8_integer_dot_product"
                     : f == WGPUWGSLLanguageFeatureName_PointerCompositeAccess ? "pointer_composite_access"
                     : f == WGPUWGSLLanguageFeatureName_UnrestrictedPointerParameters
                         ? "unrestricted_pointer_parameters"
                         : nullptr;
  return name ? wgrt_js_has_wgsl_feature(name) : 0;
}
WGPUFuture wgpuInstanceRequestAdapter(WGPUInstance, const WGPURequestAdapterOptions* o,
                                      WGPURequestAdapterCallbackInfo cb) {
  const int fid = wgrt_js_request_adapter(o ? int(o->powerPreference) : 0);
  return start(fid, [fid, cb] {
    const int st = wgrt_js_future_status(fid);
    const std::string msg = st == 1 ? std::string() : future_message(fid);
    const WGPUAdapter a = st == 1 ? handle<WGPUAdapter>(int(wgrt_js_future_value(fid, "handle"))) : nullptr;
    const auto status = st == 1 ? WGPURequestAdapterStatus_Success
                        : st == 3 ? WGPURequestAdapterStatus_Unavailable
                                  : WGPURequestAdapterStatus_Error;
    if (cb.callback) cb.callback(status, a, WGPUStringView{msg.data(), msg.size()}, cb.userdata1, cb.userdata2);
  });
}

// --- adapter ---
WGPUStatus wgpuAdapterGetInfo(WGPUAdapter a, WGPUAdapterInfo* info) {
  *info = WGPUAdapterInfo{};
  const int h = id(a);
  info->vendor = owned(copy_string(wgrt_js_adapter_string, h, 0));
  info->architecture = owned(copy_string(wgrt_js_adapter_string, h, 1));
  info->device = owned(copy_string(wgrt_js_adapter_string, h, 2));
  info->description = owned(copy_string(wgrt_js_adapter_string, h, 3));
  if (view(info->device).empty() && view(info->description).empty()) {  // Chromium gives vendor + architecture only
    std::free(const_cast<char*>(info->description.data));
    info->description = owned(std::string(view(info->vendor)) + " " + std::string(view(info->architecture)));
  }
  info->backendType = WGPUBackendType_WebGPU;
  // The page is told only "fallback adapter" (a software one): that is wgrt's CPU adapter type.
  info->adapterType = wgrt_js_adapter_number(h, 2) ? WGPUAdapterType_CPU : WGPUAdapterType_Unknown;
  std::string names = std::string(view(info->device)) + " " + std::string(view(info->description)) + " " +
                      std::string(view(info->architecture));
  {
    std::string lower = names;
    for (char& c : lower) c = char(std::tolower((unsigned char)c));
    for (const char* cpu : {"swiftshader", "llvmpipe", "lavapipe"})
      if (lower.find(cpu) != std::string::npos) info->adapterType = WGPUAdapterType_CPU;
  }
  info->subgroupMinSize = uint32_t(wgrt_js_adapter_number(h, 0));
  info->subgroupMaxSize = uint32_t(wgrt_js_adapter_number(h, 1));
  return WGPUStatus_Success;
}
// The page's WebGPU has no memory-heap adapter feature (wgpuAdapterHasFeature says no), so instance.cpp never
// asks for the heaps; the function exists for the link. Same layout as instance.cpp's declaration.
struct WgrtMemoryHeaps {
  WGPUChainedStruct chain;
  size_t heap_count;
  const void* heap_info;
};
void wgpuAdapterPropertiesMemoryHeapsFreeMembers(WgrtMemoryHeaps) {}
void wgpuAdapterInfoFreeMembers(WGPUAdapterInfo info) {
  for (WGPUStringView s : {info.vendor, info.architecture, info.device, info.description})
    std::free(const_cast<char*>(s.data));
}
WGPUStatus wgpuAdapterGetLimits(WGPUAdapter a, WGPULimits* l) {
  read_limits(id(a), l);
  return WGPUStatus_Success;
}
WGPUBool wgpuAdapterHasFeature(WGPUAdapter a, WGPUFeatureName f) { return wgrt_js_has_feature(id(a), int(f)); }
void wgpuAdapterRelease(WGPUAdapter a) { wgrt_js_release(id(a)); }
WGPUFuture wgpuAdapterRequestDevice(WGPUAdapter a, const WGPUDeviceDescriptor* d, WGPURequestDeviceCallbackInfo cb) {
  // The browser is asked for the adapter's own limits (as the native layer does); requiredLimits is not read.
  std::vector<int> features;
  for (size_t i = 0; d && i < d->requiredFeatureCount; ++i) features.push_back(int(d->requiredFeatures[i]));
  const int fid = wgrt_js_request_device(id(a), features.data(), int(features.size()));
  DeviceCallbacks cbs;
  if (d) cbs.lost = d->deviceLostCallbackInfo, cbs.uncaptured = d->uncapturedErrorCallbackInfo;
  return start(fid, [fid, cb, cbs] {
    const int st = wgrt_js_future_status(fid);
    const std::string msg = st == 1 ? std::string() : future_message(fid);
    WGPUDevice dev = nullptr;
    if (st == 1) {
      const int h = int(wgrt_js_future_value(fid, "handle"));
      dev = handle<WGPUDevice>(h);
      g_devices[h] = cbs;
      g_devices[h].queue = int(wgrt_js_future_value(fid, "queue"));
    }
    if (cb.callback)
      cb.callback(st == 1 ? WGPURequestDeviceStatus_Success : WGPURequestDeviceStatus_Error, dev,
                  WGPUStringView{msg.data(), msg.size()}, cb.userdata1, cb.userdata2);
  });
}

// --- device ---
WGPUQueue wgpuDeviceGetQueue(WGPUDevice d) {
  const int q = g_devices.at(id(d)).queue;
  wgrt_js_addref(q);
  return handle<WGPUQueue>(q);
}
WGPUStatus wgpuDeviceGetLimits(WGPUDevice d, WGPULimits* l) {
  read_limits(id(d), l);
  return WGPUStatus_Success;
}
WGPUBool wgpuDeviceHasFeature(WGPUDevice d, WGPUFeatureName f) { return wgrt_js_has_feature(id(d), int(f)); }
void wgpuDeviceSetLoggingCallback(WGPUDevice, WGPULoggingCallbackInfo) {}  // the browser logs to its console
void wgpuDeviceDestroy(WGPUDevice d) { wgrt_js_device_destroy(id(d)); }
void wgpuDeviceRelease(WGPUDevice d) {
  drain_events();
  g_devices.erase(id(d));
  wgrt_js_release(id(d));
}
void wgpuDevicePushErrorScope(WGPUDevice d, WGPUErrorFilter f) { wgrt_js_push_error_scope(id(d), int(f)); }
WGPUFuture wgpuDevicePopErrorScope(WGPUDevice d, WGPUPopErrorScopeCallbackInfo cb) {
  const int fid = wgrt_js_pop_error_scope(id(d));
  return start(fid, [fid, cb] {
    const int st = wgrt_js_future_status(fid);
    const std::string msg = future_message(fid);
    const auto type = st == 1 ? WGPUErrorType(int(wgrt_js_future_value(fid, "type"))) : WGPUErrorType_Unknown;
    if (cb.callback)
      cb.callback(st == 1 ? WGPUPopErrorScopeStatus_Success : WGPUPopErrorScopeStatus_Error, type,
                  WGPUStringView{msg.data(), msg.size()}, cb.userdata1, cb.userdata2);
  });
}

WGPUBuffer wgpuDeviceCreateBuffer(WGPUDevice d, const WGPUBufferDescriptor* b) {
  return handle<WGPUBuffer>(wgrt_js_create_buffer(id(d), double(b->usage), double(b->size), b->mappedAtCreation));
}
WGPUShaderModule wgpuDeviceCreateShaderModule(WGPUDevice d, const WGPUShaderModuleDescriptor* m) {
  std::string_view code;
  for (const WGPUChainedStruct* c = m->nextInChain; c; c = c->next)
    if (c->sType == WGPUSType_ShaderSourceWGSL) code = view(reinterpret_cast<const WGPUShaderSourceWGSL*>(c)->code);
  const std::string_view label = view(m->label);
  return handle<WGPUShaderModule>(
      wgrt_js_create_shader(id(d), code.data(), int(code.size()), label.data(), int(label.size())));
}
WGPUBindGroupLayout wgpuDeviceCreateBindGroupLayout(WGPUDevice d, const WGPUBindGroupLayoutDescriptor* l) {
  std::vector<uint32_t> e;
  std::vector<double> min_sizes;
  for (size_t i = 0; i < l->entryCount; ++i) {
    const WGPUBindGroupLayoutEntry& x = l->entries[i];
    e.insert(e.end(), {x.binding, uint32_t(x.visibility), uint32_t(x.buffer.type), x.buffer.hasDynamicOffset});
    min_sizes.push_back(double(x.buffer.minBindingSize));
  }
  return handle<WGPUBindGroupLayout>(wgrt_js_create_bgl(id(d), int(l->entryCount), e.data(), min_sizes.data()));
}
WGPUPipelineLayout wgpuDeviceCreatePipelineLayout(WGPUDevice d, const WGPUPipelineLayoutDescriptor* p) {
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < p->bindGroupLayoutCount; ++i) ids.push_back(uint32_t(id(p->bindGroupLayouts[i])));
  return handle<WGPUPipelineLayout>(wgrt_js_create_pipeline_layout(id(d), int(ids.size()), ids.data()));
}
WGPUComputePipeline wgpuDeviceCreateComputePipeline(WGPUDevice d, const WGPUComputePipelineDescriptor* p) {
  std::string consts;
  for (size_t i = 0; i < p->compute.constantCount; ++i) {
    char num[40];
    std::snprintf(num, sizeof num, "%.17g", p->compute.constants[i].value);
    consts += std::string(view(p->compute.constants[i].key)) + "=" + num + "\n";
  }
  const std::string_view entry = view(p->compute.entryPoint), label = view(p->label);
  return handle<WGPUComputePipeline>(wgrt_js_create_compute_pipeline(
      id(d), id(p->layout), id(p->compute.module), entry.data(), int(entry.size()), consts.data(), int(consts.size()),
      label.data(), int(label.size())));
}
WGPUBindGroup wgpuDeviceCreateBindGroup(WGPUDevice d, const WGPUBindGroupDescriptor* g) {
  std::vector<double> e;
  for (size_t i = 0; i < g->entryCount; ++i) {
    const WGPUBindGroupEntry& x = g->entries[i];
    e.insert(e.end(), {double(x.binding), double(id(x.buffer)), double(x.offset), size_arg(x.size)});
  }
  return handle<WGPUBindGroup>(wgrt_js_create_bind_group(id(d), id(g->layout), int(g->entryCount), e.data()));
}
WGPUCommandEncoder wgpuDeviceCreateCommandEncoder(WGPUDevice d, const WGPUCommandEncoderDescriptor*) {
  return handle<WGPUCommandEncoder>(wgrt_js_create_encoder(id(d)));
}
WGPUQuerySet wgpuDeviceCreateQuerySet(WGPUDevice d, const WGPUQuerySetDescriptor* q) {
  return handle<WGPUQuerySet>(wgrt_js_create_query_set(id(d), int(q->count)));
}

// --- queue ---
void wgpuQueueSubmit(WGPUQueue q, size_t n, const WGPUCommandBuffer* cmds) {
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < n; ++i) ids.push_back(uint32_t(id(cmds[i])));
  wgrt_js_submit(id(q), int(n), ids.data());
}
void wgpuQueueWriteBuffer(WGPUQueue q, WGPUBuffer b, uint64_t offset, const void* data, size_t size) {
  wgrt_js_write_buffer(id(q), id(b), double(offset), data, int(size));
}
WGPUFuture wgpuQueueOnSubmittedWorkDone(WGPUQueue q, WGPUQueueWorkDoneCallbackInfo cb) {
  const int fid = wgrt_js_work_done(id(q));
  return start(fid, [fid, cb] {
    const int st = wgrt_js_future_status(fid);
    if (cb.callback)
      cb.callback(st == 1 ? WGPUQueueWorkDoneStatus_Success : WGPUQueueWorkDoneStatus_Error, WGPUStringView{},
                  cb.userdata1, cb.userdata2);
  });
}
void wgpuQueueRelease(WGPUQueue q) { wgrt_js_release(id(q)); }

// --- buffer ---
WGPUFuture wgpuBufferMapAsync(WGPUBuffer b, WGPUMapMode mode, size_t offset, size_t size,
                              WGPUBufferMapCallbackInfo cb) {
  const int fid = wgrt_js_map_async(id(b), int(mode), double(offset), map_size_arg(size));
  return start(fid, [fid, cb] {
    const int st = wgrt_js_future_status(fid);
    const std::string msg = st == 1 ? std::string() : future_message(fid);
    if (cb.callback)
      cb.callback(st == 1 ? WGPUMapAsyncStatus_Success : WGPUMapAsyncStatus_Error,
                  WGPUStringView{msg.data(), msg.size()}, cb.userdata1, cb.userdata2);
  });
}
const void* wgpuBufferGetConstMappedRange(WGPUBuffer b, size_t offset, size_t size) {
  return wgrt_js_mapped_range(id(b), double(offset), map_size_arg(size));
}
void wgpuBufferUnmap(WGPUBuffer b) { wgrt_js_unmap(id(b)); }
void wgpuBufferDestroy(WGPUBuffer b) { wgrt_js_buffer_destroy(id(b)); }
void wgpuBufferRelease(WGPUBuffer b) { wgrt_js_release(id(b)); }

// --- commands ---
WGPUComputePassEncoder wgpuCommandEncoderBeginComputePass(WGPUCommandEncoder e, const WGPUComputePassDescriptor* d) {
  const WGPUPassTimestampWrites* tw = d ? d->timestampWrites : nullptr;
  auto index = [](uint32_t i) { return i == WGPU_QUERY_SET_INDEX_UNDEFINED ? -1 : int(i); };
  return handle<WGPUComputePassEncoder>(
      wgrt_js_begin_compute_pass(id(e), tw ? id(tw->querySet) : 0, tw ? index(tw->beginningOfPassWriteIndex) : -1,
                                 tw ? index(tw->endOfPassWriteIndex) : -1));
}
void wgpuCommandEncoderCopyBufferToBuffer(WGPUCommandEncoder e, WGPUBuffer src, uint64_t src_off, WGPUBuffer dst,
                                          uint64_t dst_off, uint64_t size) {
  wgrt_js_copy_buffer(id(e), id(src), double(src_off), id(dst), double(dst_off), double(size));
}
void wgpuCommandEncoderResolveQuerySet(WGPUCommandEncoder e, WGPUQuerySet qs, uint32_t first, uint32_t count,
                                       WGPUBuffer dst, uint64_t dst_off) {
  wgrt_js_resolve_query_set(id(e), id(qs), int(first), int(count), id(dst), double(dst_off));
}
WGPUCommandBuffer wgpuCommandEncoderFinish(WGPUCommandEncoder e, const WGPUCommandBufferDescriptor*) {
  return handle<WGPUCommandBuffer>(wgrt_js_finish(id(e)));
}
void wgpuCommandEncoderRelease(WGPUCommandEncoder e) { wgrt_js_release(id(e)); }
void wgpuComputePassEncoderSetPipeline(WGPUComputePassEncoder p, WGPUComputePipeline pl) {
  wgrt_js_set_pipeline(id(p), id(pl));
}
void wgpuComputePassEncoderSetBindGroup(WGPUComputePassEncoder p, uint32_t index, WGPUBindGroup g, size_t, const uint32_t*) {
  wgrt_js_set_bind_group(id(p), int(index), id(g));  // wgrt uses no dynamic offsets
}
void wgpuComputePassEncoderDispatchWorkgroups(WGPUComputePassEncoder p, uint32_t x, uint32_t y, uint32_t z) {
  wgrt_js_dispatch(id(p), int(x), int(y), int(z));
}
void wgpuComputePassEncoderEnd(WGPUComputePassEncoder p) { wgrt_js_end_pass(id(p)); }
void wgpuComputePassEncoderRelease(WGPUComputePassEncoder p) { wgrt_js_release(id(p)); }
void wgpuCommandBufferRelease(WGPUCommandBuffer c) { wgrt_js_release(id(c)); }

// --- pipelines, shaders, layouts, bind groups, query sets ---
void wgpuComputePipelineRelease(WGPUComputePipeline p) { wgrt_js_release(id(p)); }
WGPUFuture wgpuShaderModuleGetCompilationInfo(WGPUShaderModule m, WGPUCompilationInfoCallbackInfo cb) {
  const int fid = wgrt_js_compilation_info(id(m));
  return start(fid, [fid, cb] {
    const int st = wgrt_js_future_status(fid);
    std::vector<std::string> texts;
    std::vector<WGPUCompilationMessage> msgs;
    const int n = st == 1 ? wgrt_js_message_count(fid) : 0;
    texts.reserve(size_t(n));
    for (int i = 0; i < n; ++i) {
      double v[5];
      char buf[4096];
      wgrt_js_message_get(fid, i, v, buf, sizeof buf);
      texts.emplace_back(buf);
      WGPUCompilationMessage m{};
      m.type = WGPUCompilationMessageType(int(v[0]));
      m.lineNum = uint64_t(v[1]), m.linePos = uint64_t(v[2]), m.offset = uint64_t(v[3]), m.length = uint64_t(v[4]);
      msgs.push_back(m);
    }
    for (int i = 0; i < n; ++i) msgs[size_t(i)].message = WGPUStringView{texts[size_t(i)].data(), texts[size_t(i)].size()};
    WGPUCompilationInfo info{};
    info.messageCount = msgs.size();
    info.messages = msgs.data();
    if (cb.callback)
      cb.callback(st == 1 ? WGPUCompilationInfoRequestStatus_Success : WGPUCompilationInfoRequestStatus_CallbackCancelled,
                  &info, cb.userdata1, cb.userdata2);
  });
}
void wgpuShaderModuleRelease(WGPUShaderModule m) { wgrt_js_release(id(m)); }
void wgpuBindGroupLayoutRelease(WGPUBindGroupLayout l) { wgrt_js_release(id(l)); }
void wgpuPipelineLayoutRelease(WGPUPipelineLayout l) { wgrt_js_release(id(l)); }
void wgpuBindGroupRelease(WGPUBindGroup g) { wgrt_js_release(id(g)); }
void wgpuQuerySetDestroy(WGPUQuerySet q) { wgrt_js_query_set_destroy(id(q)); }
void wgpuQuerySetRelease(WGPUQuerySet q) { wgrt_js_release(id(q)); }

}  // extern "C"
