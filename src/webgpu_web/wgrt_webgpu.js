// The JavaScript half of the browser device layer (see webgpu_js.cpp for the C half and docs/BROWSER.md):
// thin calls from C++ into the page's WebGPU (navigator.gpu), one per WebGPU method wgrt uses.
//
// - Objects live in a table (WGRT.objs); C++ sees their index as the opaque handle (WGPUBuffer etc.).
// - Arguments are plain numbers: handles, heap pointers and lengths (int), sizes and offsets (double, exact to
//   2^53); strings are (pointer, length) in UTF-8. Descriptors are flattened into arrays by the C++ half.
// - Asynchronous methods (mapAsync, onSubmittedWorkDone, popErrorScope, getCompilationInfo, requestAdapter,
//   requestDevice) start a "future": an entry in WGRT.futures settled by the promise. wgrt_js_wait suspends
//   the wasm (ASYNCIFY) until one settles or a timeout passes; results are read afterwards by the C++ half.
// - Uncaptured errors and device loss are queued (WGRT.events) and drained by the C++ half at its next wait
//   or submit: calling into the wasm from an event handler while it is suspended would not be safe.
// Runs in a browser page (Chromium) and under Node with npm `webgpu` (which sets globalThis.navigator.gpu).
var LibraryWgrtWebGPU = {
  $WGRT__postset: 'WGRT.init();',
  $WGRT: {
    objs: null,
    freeIds: null,
    futures: null,
    nextFuture: 1,
    events: null,
    init: function() {
      WGRT.objs = [null];
      WGRT.freeIds = [];
      WGRT.futures = new Map();
      WGRT.events = [];
    },
    add: function(o, extra) {
      var id = WGRT.freeIds.length ? WGRT.freeIds.pop() : WGRT.objs.length;
      WGRT.objs[id] = {o: o, refs: 1, extra: extra || null};
      return id;
    },
    get: function(id) { return id ? WGRT.objs[id].o : undefined; },
    entry: function(id) { return WGRT.objs[id]; },
    str: function(ptr, len) { return len ? UTF8ToString(ptr, len) : ''; },
    // A future settled by `promise`; `then` maps the resolved value to {status, ...}.
    future: function(promise, then) {
      var id = WGRT.nextFuture++;
      var f = {done: false, result: null};
      f.promise = promise.then(function(v) { f.result = then(v); f.done = true; },
                               function(e) { f.result = {status: -1, message: String(e && e.message || e)}; f.done = true; });
      WGRT.futures.set(id, f);
      return id;
    },
    errorType: function(e) {
      if (!e) return 1;  // WGPUErrorType_NoError
      var n = e.constructor && e.constructor.name;
      if (n === 'GPUValidationError') return 2;
      if (n === 'GPUOutOfMemoryError') return 3;
      if (n === 'GPUInternalError') return 4;
      return 5;
    },
    limitNames: ['maxTextureDimension1D', 'maxTextureDimension2D', 'maxTextureDimension3D', 'maxTextureArrayLayers',
      'maxBindGroups', 'maxBindGroupsPlusVertexBuffers', 'maxBindingsPerBindGroup',
      'maxDynamicUniformBuffersPerPipelineLayout', 'maxDynamicStorageBuffersPerPipelineLayout',
      'maxSampledTexturesPerShaderStage', 'maxSamplersPerShaderStage', 'maxStorageBuffersPerShaderStage',
      'maxStorageTexturesPerShaderStage', 'maxUniformBuffersPerShaderStage', 'maxUniformBufferBindingSize',
      'maxStorageBufferBindingSize', 'minUniformBufferOffsetAlignment', 'minStorageBufferOffsetAlignment',
      'maxVertexBuffers', 'maxBufferSize', 'maxVertexAttributes', 'maxVertexBufferArrayStride',
      'maxInterStageShaderVariables', 'maxColorAttachments', 'maxColorAttachmentBytesPerSample',
      'maxComputeWorkgroupStorageSize', 'maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupSizeX',
      'maxComputeWorkgroupSizeY', 'maxComputeWorkgroupSizeZ', 'maxComputeWorkgroupsPerDimension'],
    featureNames: {3: 'timestamp-query', 10: 'shader-f16', 17: 'subgroups'},
  },

  // --- objects ---
  wgrt_js_addref__deps: ['$WGRT'],
  wgrt_js_addref: function(id) { if (id) WGRT.objs[id].refs++; },
  wgrt_js_release__deps: ['$WGRT'],
  wgrt_js_release: function(id) {
    if (!id) return;
    var e = WGRT.objs[id];
    if (--e.refs > 0) return;
    if (e.extra && e.extra.mapped) e.extra.mapped.forEach(function(p) { _free(p); });
    WGRT.objs[id] = null;
    WGRT.freeIds.push(id);
  },

  // --- futures ---
  wgrt_js_future_done__deps: ['$WGRT'],
  wgrt_js_future_done: function(id) { var f = WGRT.futures.get(id); return f && f.done ? 1 : 0; },
  // Suspends until future `id` settles or `timeout_ms` passes (< 0: no limit). 1: settled, 0: timed out.
  wgrt_js_wait__deps: ['$WGRT'],
  wgrt_js_wait: function(id, timeout_ms) {
    var f = WGRT.futures.get(id);
    if (!f) return -1;
    // Always through handleSleep: when the wasm rewinds after the sleep, this function runs again and must
    // reach handleSleep to end the rewind (an early return here would leave the rewind running).
    return Asyncify.handleSleep(function(wakeUp) {
      if (f.done) { wakeUp(1); return; }
      var timer = null;
      if (timeout_ms >= 0) timer = setTimeout(function() { timer = null; wakeUp(0); }, timeout_ms);
      f.promise.then(function() { if (timeout_ms < 0 || timer !== null) { if (timer) clearTimeout(timer); wakeUp(1); } });
    });
  },
  wgrt_js_future_status__deps: ['$WGRT'],
  wgrt_js_future_status: function(id) { return WGRT.futures.get(id).result.status; },
  wgrt_js_future_value__deps: ['$WGRT'],
  wgrt_js_future_value: function(id, key) {
    var r = WGRT.futures.get(id).result;
    var v = r[UTF8ToString(key)];
    return v === undefined ? 0 : v;
  },
  // Copies the settled future's `message` (UTF-8, truncated to cap-1 bytes, NUL-terminated); returns its length.
  wgrt_js_future_message__deps: ['$WGRT'],
  wgrt_js_future_message: function(id, buf, cap) {
    var m = WGRT.futures.get(id).result.message || '';
    if (cap > 0) stringToUTF8(m, buf, cap);
    return lengthBytesUTF8(m);
  },
  wgrt_js_future_forget__deps: ['$WGRT'],
  wgrt_js_future_forget: function(id) { WGRT.futures.delete(id); },

  // --- events (uncaptured errors, device loss) ---
  wgrt_js_event_next__deps: ['$WGRT'],
  wgrt_js_event_next: function(device_out, kind_out) {
    if (!WGRT.events.length) return 0;
    var ev = WGRT.events[0];
    HEAP32[device_out >> 2] = ev.device;
    HEAP32[kind_out >> 2] = ev.kind;
    return 1;
  },
  wgrt_js_event_pop__deps: ['$WGRT'],
  wgrt_js_event_pop: function(buf, cap) {
    var ev = WGRT.events.shift();
    stringToUTF8(ev.message, buf, cap);
  },

  // --- adapter ---
  wgrt_js_request_adapter__deps: ['$WGRT'],
  wgrt_js_request_adapter: function(power) {
    if (typeof navigator === 'undefined' || !navigator.gpu)
      return WGRT.future(Promise.resolve(null), function() {
        return {status: 3, message: 'this browser has no WebGPU (navigator.gpu is missing)'};
      });
    var opts = {};
    if (power === 1) opts.powerPreference = 'low-power';
    if (power === 2) opts.powerPreference = 'high-performance';
    return WGRT.future(navigator.gpu.requestAdapter(opts), function(a) {
      if (!a) return {status: 3, message: 'navigator.gpu.requestAdapter() found no adapter'};
      return {status: 1, handle: WGRT.add(a)};
    });
  },
  // Adapter info string `which` (0 vendor, 1 architecture, 2 device, 3 description) into buf; returns its length.
  wgrt_js_adapter_string__deps: ['$WGRT'],
  wgrt_js_adapter_string: function(id, which, buf, cap) {
    var info = WGRT.get(id).info || {};
    var s = [info.vendor, info.architecture, info.device, info.description][which] || '';
    if (cap > 0) stringToUTF8(s, buf, cap);
    return lengthBytesUTF8(s);
  },
  // 0 subgroupMinSize, 1 subgroupMaxSize, 2 isFallbackAdapter.
  wgrt_js_adapter_number__deps: ['$WGRT'],
  wgrt_js_adapter_number: function(id, which) {
    var a = WGRT.get(id), info = a.info || {};
    if (which === 2) return (info.isFallbackAdapter || a.isFallbackAdapter) ? 1 : 0;
    return (which === 0 ? info.subgroupMinSize : info.subgroupMaxSize) || 0;
  },
  // Limits of an adapter (is_device 0) or device (1), in WGRT.limitNames order, into out (doubles; -1 unknown).
  wgrt_js_limits__deps: ['$WGRT'],
  wgrt_js_limits: function(id, out) {
    var l = WGRT.get(id).limits;
    WGRT.limitNames.forEach(function(n, i) { var v = l[n]; HEAPF64[(out >> 3) + i] = v === undefined ? -1 : v; });
    return WGRT.limitNames.length;
  },
  wgrt_js_has_feature__deps: ['$WGRT'],
  wgrt_js_has_feature: function(id, feature) {
    var n = WGRT.featureNames[feature];
    return n && WGRT.get(id).features.has(n) ? 1 : 0;
  },
  wgrt_js_has_wgsl_feature: function(name) {
    var s = navigator.gpu && navigator.gpu.wgslLanguageFeatures;
    return s && s.has(UTF8ToString(name)) ? 1 : 0;
  },
  // Requests a device with the adapter's own limits and the features in `features` (WGPUFeatureName values).
  wgrt_js_request_device__deps: ['$WGRT'],
  wgrt_js_request_device: function(adapter, features, count) {
    var a = WGRT.get(adapter);
    var req = [];
    for (var i = 0; i < count; i++) { var n = WGRT.featureNames[HEAP32[(features >> 2) + i]]; if (n) req.push(n); }
    var limits = {};
    for (var k in a.limits) { var v = a.limits[k]; if (typeof v === 'number') limits[k] = v; }
    return WGRT.future(a.requestDevice({requiredFeatures: req, requiredLimits: limits}), function(d) {
      var id = WGRT.add(d);
      d.onuncapturederror = function(ev) {
        WGRT.events.push({device: id, kind: WGRT.errorType(ev.error), message: ev.error.message});
      };
      d.lost.then(function(info) {
        WGRT.events.push({device: id, kind: info.reason === 'destroyed' ? -2 : -1, message: info.message || ''});
      });
      return {status: 1, handle: id, queue: WGRT.add(d.queue)};
    });
  },
  wgrt_js_device_destroy__deps: ['$WGRT'],
  wgrt_js_device_destroy: function(id) { WGRT.get(id).destroy(); },

  // --- buffers ---
  wgrt_js_create_buffer__deps: ['$WGRT'],
  wgrt_js_create_buffer: function(dev, usage, size, mapped) {
    return WGRT.add(WGRT.get(dev).createBuffer({usage: usage, size: size, mappedAtCreation: !!mapped}), {mapped: []});
  },
  wgrt_js_buffer_destroy__deps: ['$WGRT'],
  wgrt_js_buffer_destroy: function(id) { WGRT.get(id).destroy(); },
  wgrt_js_write_buffer__deps: ['$WGRT'],
  wgrt_js_write_buffer: function(queue, buf, offset, ptr, size) {
    WGRT.get(queue).writeBuffer(WGRT.get(buf), offset, HEAPU8, ptr, size);
  },
  wgrt_js_map_async__deps: ['$WGRT'],
  wgrt_js_map_async: function(buf, mode, offset, size) {
    var b = WGRT.get(buf);
    return WGRT.future(b.mapAsync(mode, offset, size < 0 ? undefined : size), function() { return {status: 1}; });
  },
  // Copies the mapped range into a heap block (freed at unmap) and returns its address.
  wgrt_js_mapped_range__deps: ['$WGRT'],
  wgrt_js_mapped_range: function(buf, offset, size) {
    var e = WGRT.entry(buf);
    var ab = e.o.getMappedRange(offset, size < 0 ? undefined : size);
    var p = _malloc(ab.byteLength || 1);
    HEAPU8.set(new Uint8Array(ab), p);
    e.extra.mapped.push(p);
    return p;
  },
  wgrt_js_unmap__deps: ['$WGRT'],
  wgrt_js_unmap: function(buf) {
    var e = WGRT.entry(buf);
    e.o.unmap();
    e.extra.mapped.forEach(function(p) { _free(p); });
    e.extra.mapped = [];
  },

  // --- shaders, layouts, pipelines, bind groups ---
  wgrt_js_create_shader__deps: ['$WGRT'],
  wgrt_js_create_shader: function(dev, code, len, label, label_len) {
    return WGRT.add(WGRT.get(dev).createShaderModule({code: WGRT.str(code, len), label: WGRT.str(label, label_len)}));
  },
  wgrt_js_compilation_info__deps: ['$WGRT'],
  wgrt_js_compilation_info: function(module) {
    return WGRT.future(WGRT.get(module).getCompilationInfo(), function(info) {
      return {status: 1, messages: info.messages.map(function(m) {
        return {message: m.message, type: m.type === 'error' ? 1 : m.type === 'warning' ? 2 : 3,
                lineNum: m.lineNum, linePos: m.linePos, offset: m.offset, length: m.length};
      })};
    });
  },
  wgrt_js_message_count__deps: ['$WGRT'],
  wgrt_js_message_count: function(fid) { return WGRT.futures.get(fid).result.messages.length; },
  // Message i of a compilation-info future: numbers into out (type, lineNum, linePos, offset, length), text into buf.
  wgrt_js_message_get__deps: ['$WGRT'],
  wgrt_js_message_get: function(fid, i, out, buf, cap) {
    var m = WGRT.futures.get(fid).result.messages[i];
    [m.type, m.lineNum, m.linePos, m.offset, m.length].forEach(function(v, k) { HEAPF64[(out >> 3) + k] = v; });
    stringToUTF8(m.message, buf, cap);
    return lengthBytesUTF8(m.message);
  },
  // entries: n x 4 uint32 (binding, visibility, buffer type, hasDynamicOffset); min_sizes: n doubles.
  wgrt_js_create_bgl__deps: ['$WGRT'],
  wgrt_js_create_bgl: function(dev, n, entries, min_sizes) {
    var types = [undefined, 'storage', 'uniform', 'storage', 'read-only-storage'];
    var list = [];
    for (var i = 0; i < n; i++) {
      var b = (entries >> 2) + 4 * i;
      var buffer = {type: types[HEAPU32[b + 2]], hasDynamicOffset: !!HEAPU32[b + 3]};
      var ms = HEAPF64[(min_sizes >> 3) + i];
      if (ms > 0) buffer.minBindingSize = ms;
      list.push({binding: HEAPU32[b], visibility: HEAPU32[b + 1], buffer: buffer});
    }
    return WGRT.add(WGRT.get(dev).createBindGroupLayout({entries: list}));
  },
  wgrt_js_create_pipeline_layout__deps: ['$WGRT'],
  wgrt_js_create_pipeline_layout: function(dev, n, layouts) {
    var list = [];
    for (var i = 0; i < n; i++) list.push(WGRT.get(HEAPU32[(layouts >> 2) + i]));
    return WGRT.add(WGRT.get(dev).createPipelineLayout({bindGroupLayouts: list}));
  },
  // constants: "key=value\n..." (values as %.17g).
  wgrt_js_create_compute_pipeline__deps: ['$WGRT'],
  wgrt_js_create_compute_pipeline: function(dev, layout, module, entry, entry_len, consts, consts_len, label, label_len) {
    var c = {};
    WGRT.str(consts, consts_len).split('\n').forEach(function(kv) {
      if (!kv) return;
      var at = kv.indexOf('=');
      c[kv.slice(0, at)] = Number(kv.slice(at + 1));
    });
    return WGRT.add(WGRT.get(dev).createComputePipeline({
      label: WGRT.str(label, label_len), layout: WGRT.get(layout),
      compute: {module: WGRT.get(module), entryPoint: WGRT.str(entry, entry_len), constants: c}}));
  },
  // entries: n x 4 doubles (binding, buffer handle, offset, size; size < 0: the rest of the buffer).
  wgrt_js_create_bind_group__deps: ['$WGRT'],
  wgrt_js_create_bind_group: function(dev, layout, n, entries) {
    var list = [];
    for (var i = 0; i < n; i++) {
      var b = (entries >> 3) + 4 * i;
      var res = {buffer: WGRT.get(HEAPF64[b + 1]), offset: HEAPF64[b + 2]};
      if (HEAPF64[b + 3] >= 0) res.size = HEAPF64[b + 3];
      list.push({binding: HEAPF64[b], resource: res});
    }
    return WGRT.add(WGRT.get(dev).createBindGroup({layout: WGRT.get(layout), entries: list}));
  },
  wgrt_js_push_error_scope__deps: ['$WGRT'],
  wgrt_js_push_error_scope: function(dev, filter) {
    WGRT.get(dev).pushErrorScope(filter === 2 ? 'out-of-memory' : filter === 3 ? 'internal' : 'validation');
  },
  wgrt_js_pop_error_scope__deps: ['$WGRT'],
  wgrt_js_pop_error_scope: function(dev) {
    return WGRT.future(WGRT.get(dev).popErrorScope(), function(e) {
      return {status: 1, type: WGRT.errorType(e), message: e ? e.message : ''};
    });
  },

  // --- queries, commands, queue ---
  wgrt_js_create_query_set__deps: ['$WGRT'],
  wgrt_js_create_query_set: function(dev, count) {
    return WGRT.add(WGRT.get(dev).createQuerySet({type: 'timestamp', count: count}));
  },
  wgrt_js_query_set_destroy__deps: ['$WGRT'],
  wgrt_js_query_set_destroy: function(id) { WGRT.get(id).destroy(); },
  wgrt_js_create_encoder__deps: ['$WGRT'],
  wgrt_js_create_encoder: function(dev) { return WGRT.add(WGRT.get(dev).createCommandEncoder()); },
  // query_set 0: no timestamps; index < 0: not written.
  wgrt_js_begin_compute_pass__deps: ['$WGRT'],
  wgrt_js_begin_compute_pass: function(enc, query_set, begin, end) {
    var d = {};
    if (query_set) {
      d.timestampWrites = {querySet: WGRT.get(query_set)};
      if (begin >= 0) d.timestampWrites.beginningOfPassWriteIndex = begin;
      if (end >= 0) d.timestampWrites.endOfPassWriteIndex = end;
    }
    return WGRT.add(WGRT.get(enc).beginComputePass(d));
  },
  wgrt_js_set_pipeline__deps: ['$WGRT'],
  wgrt_js_set_pipeline: function(pass, pipeline) { WGRT.get(pass).setPipeline(WGRT.get(pipeline)); },
  wgrt_js_set_bind_group__deps: ['$WGRT'],
  wgrt_js_set_bind_group: function(pass, index, group) { WGRT.get(pass).setBindGroup(index, WGRT.get(group)); },
  wgrt_js_dispatch__deps: ['$WGRT'],
  wgrt_js_dispatch: function(pass, x, y, z) { WGRT.get(pass).dispatchWorkgroups(x, y, z); },
  wgrt_js_end_pass__deps: ['$WGRT'],
  wgrt_js_end_pass: function(pass) { WGRT.get(pass).end(); },
  wgrt_js_copy_buffer__deps: ['$WGRT'],
  wgrt_js_copy_buffer: function(enc, src, src_off, dst, dst_off, size) {
    WGRT.get(enc).copyBufferToBuffer(WGRT.get(src), src_off, WGRT.get(dst), dst_off, size);
  },
  wgrt_js_resolve_query_set__deps: ['$WGRT'],
  wgrt_js_resolve_query_set: function(enc, qs, first, count, dst, dst_off) {
    WGRT.get(enc).resolveQuerySet(WGRT.get(qs), first, count, WGRT.get(dst), dst_off);
  },
  wgrt_js_finish__deps: ['$WGRT'],
  wgrt_js_finish: function(enc) { return WGRT.add(WGRT.get(enc).finish()); },
  wgrt_js_submit__deps: ['$WGRT'],
  wgrt_js_submit: function(queue, n, cmds) {
    var list = [];
    for (var i = 0; i < n; i++) list.push(WGRT.get(HEAPU32[(cmds >> 2) + i]));
    WGRT.get(queue).submit(list);
  },
  wgrt_js_work_done__deps: ['$WGRT'],
  wgrt_js_work_done: function(queue) {
    return WGRT.future(WGRT.get(queue).onSubmittedWorkDone(), function() { return {status: 1}; });
  },
};
mergeInto(LibraryManager.library, LibraryWgrtWebGPU);
