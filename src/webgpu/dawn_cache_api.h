// Our declaration of Dawn's blob-cache device extension (`WGPUDawnCacheDeviceDescriptor`), which the generated
// dawn_api.h does not cover (../shared/docs/dawn-abi.md lists 9 of Dawn's STypes). It follows Dawn's
// webgpu.h at the revision this library is built from (google/dawn about 5b5dff4976, 2025-06-12):
//   typedef size_t (*WGPUDawnLoadCacheDataFunction)(void const* key, size_t keySize, void* value,
//                                                   size_t valueSize, void* userdata);
//   typedef void (*WGPUDawnStoreCacheDataFunction)(void const* key, size_t keySize, void const* value,
//                                                  size_t valueSize, void* userdata);
//   struct WGPUDawnCacheDeviceDescriptor { WGPUChainedStruct chain; WGPUStringView isolationKey;
//     WGPUDawnLoadCacheDataFunction loadDataFunction; WGPUDawnStoreCacheDataFunction storeDataFunction;
//     void* functionUserdata; };   chained on WGPUDeviceDescriptor, sType 0x00050007.
// Sizes below are from that declaration on LP64 (no measurement exists in dawn-abi.md); blob_cache_test checks
// that Dawn calls the hooks (a wrong layout would show as no calls, or a crash in that test).
#pragma once
#include <cstddef>

#include "webgpu/dawn_api.h"

constexpr WGPUSType WGPUSType_DawnCacheDeviceDescriptor = WGPUSType(0x00050007);

typedef size_t (*WGPUDawnLoadCacheDataFunction)(void const* key, size_t keySize, void* value, size_t valueSize,
                                                void* userdata);
typedef void (*WGPUDawnStoreCacheDataFunction)(void const* key, size_t keySize, void const* value,
                                               size_t valueSize, void* userdata);

struct WGPUDawnCacheDeviceDescriptor {
  WGPUChainedStruct chain;
  WGPUStringView isolationKey;
  WGPUDawnLoadCacheDataFunction loadDataFunction;
  WGPUDawnStoreCacheDataFunction storeDataFunction;
  void* functionUserdata;
};
#ifndef __EMSCRIPTEN__  // LP64 sizes; the browser build (wasm32) implements the API itself and ignores this chain
static_assert(sizeof(WGPUChainedStruct) == 16 && sizeof(WGPUStringView) == 16);
static_assert(offsetof(WGPUDawnCacheDeviceDescriptor, isolationKey) == 16);
static_assert(offsetof(WGPUDawnCacheDeviceDescriptor, loadDataFunction) == 32);
static_assert(offsetof(WGPUDawnCacheDeviceDescriptor, functionUserdata) == 48);
static_assert(sizeof(WGPUDawnCacheDeviceDescriptor) == 56);
#endif
