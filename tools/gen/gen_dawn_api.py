#!/usr/bin/env python3
"""Generate src/webgpu/dawn_api.h and its parts: wgrt's own declarations of the compute subset of Dawn's C API.

Source of truth: ../shared/docs/dawn-abi.md (tables measured against Dawn 5b5dff4976, June 2025).
The generator reads the machine-readable tables of that document (types, enums, flags, callbacks,
structs, functions) and writes plain C declarations plus static_asserts on every sizeof, alignof and
offsetof the document measured. No text of Dawn's own header is used. The declarations are split by concern
into dawn_api_<part>.h beside the umbrella dawn_api.h (PARTS below); the document's notes on struct members and
functions become comments above them.

Usage: gen_dawn_api.py ABI_MD OUT_HEADER   (or --check to compare against the existing headers)
OUT_HEADER is the umbrella (src/webgpu/dawn_api.h); the parts are written in its folder.
"""
import os
import re
import sys
import textwrap


def tables(md):
    """Yield (tag, rows) for every '<!-- table:TAG -->' followed by a markdown table."""
    lines = md.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r'<!-- table:(.+?) -->', lines[i])
        if not m:
            i += 1
            continue
        tag = m.group(1).strip()
        i += 1
        header = [c.strip() for c in lines[i].strip().strip('|').split('|')]
        i += 2  # header + separator
        rows = []
        while i < len(lines) and lines[i].startswith('|'):
            cells = [c.strip() for c in lines[i].strip().strip('|').split('|')]
            rows.append(dict(zip(header, cells)))
            i += 1
        yield tag, rows

def code(s):
    """`x` -> x ; strips '(nullable)' and backticks."""
    s = s.replace('(nullable)', '').strip()
    m = re.match(r'`([^`]*)`', s)
    return m.group(1).strip() if m else s.strip('`').strip()

def params(s):
    """'`a`: `T`; `b`: `U` (nullable)' -> [('T','a'), ...]"""
    out = []
    for part in s.split(';'):
        part = part.strip()
        if not part:
            continue
        m = re.match(r'`(\w+)`:\s*`([^`]*)`', part)
        if not m:
            raise ValueError('cannot parse parameter: ' + part)
        out.append((m.group(2), m.group(1)))
    return out

def decl(ctype, name):
    return f'{ctype} {name}'

# The parts of the API, one header each, in include order: (part, what it declares). The umbrella dawn_api.h
# includes all of them and lists every declared function.
PARTS = [
    ('enums', 'the scalar types, the 32-bit enums and the 64-bit flag types'),
    ('types', 'the constants, opaque handles, callback types and the base structs (string view, chain link, '
              'future) every other part uses; every struct is forward-declared here'),
    ('instance', 'instance and adapter: creation, events and waits, adapter info, features and limits, device '
                 'requests'),
    ('device', 'the device: its limits and features, error scopes, device-lost, uncaptured-error and logging '
               'callbacks, teardown'),
    ('buffer', 'buffers: creation, mapping and readback'),
    ('pipeline', 'shader modules and compute pipelines: WGSL source, compilation messages, pipeline creation'),
    ('binding', 'bind group layouts, pipeline layouts and bind groups'),
    ('commands', 'the queue, command encoders, compute passes, command buffers and timestamp query sets'),
]
# The parts a part includes besides dawn_api_types.h (enums: none; types: enums).
PART_NEEDS = {'device': ['instance']}
# Which part defines each struct. A struct embedded by value must be defined in its user's part or in 'types'.
STRUCT_PART = {
    'types': ['WGPUStringView', 'WGPUChainedStruct', 'WGPUFuture', 'WGPUFutureWaitInfo'],
    'instance': ['WGPUInstanceCapabilities', 'WGPUInstanceDescriptor', 'WGPUDawnTogglesDescriptor',
                 'WGPURequestAdapterOptions', 'WGPUAdapterInfo', 'WGPULimits', 'WGPUSupportedFeatures',
                 'WGPURequestAdapterCallbackInfo', 'WGPURequestDeviceCallbackInfo', 'WGPUCompatibilityModeLimits',
                 'WGPUSupportedWGSLLanguageFeatures', 'WGPUAdapterPropertiesSubgroupMatrixConfigs',
                 'WGPUSubgroupMatrixConfig'],
    'device': ['WGPUDeviceDescriptor', 'WGPUQueueDescriptor', 'WGPUDeviceLostCallbackInfo',
               'WGPUUncapturedErrorCallbackInfo', 'WGPULoggingCallbackInfo', 'WGPUPopErrorScopeCallbackInfo'],
    'buffer': ['WGPUBufferDescriptor', 'WGPUBufferMapCallbackInfo'],
    'pipeline': ['WGPUShaderModuleDescriptor', 'WGPUShaderSourceWGSL', 'WGPUCompilationInfo',
                 'WGPUCompilationMessage', 'WGPUCompilationInfoCallbackInfo', 'WGPUConstantEntry',
                 'WGPUComputeState', 'WGPUComputePipelineDescriptor', 'WGPUCreateComputePipelineAsyncCallbackInfo'],
    'binding': ['WGPUBufferBindingLayout', 'WGPUSamplerBindingLayout', 'WGPUTextureBindingLayout',
                'WGPUStorageTextureBindingLayout', 'WGPUBindGroupLayoutEntry', 'WGPUBindGroupLayoutDescriptor',
                'WGPUPipelineLayoutDescriptor', 'WGPUBindGroupEntry', 'WGPUBindGroupDescriptor'],
    'commands': ['WGPUQueueWorkDoneCallbackInfo', 'WGPUCommandEncoderDescriptor', 'WGPUPassTimestampWrites',
                 'WGPUComputePassDescriptor', 'WGPUCommandBufferDescriptor', 'WGPUQuerySetDescriptor'],
}
# Which part declares each function table of the document; FUNCTION_PART overrides it for single functions (a
# device's create-X function lives with X).
GROUP_PART = {
    'Global functions': 'instance', 'Instance': 'instance', 'Adapter': 'instance', 'Device': 'device',
    'Queue': 'commands', 'Buffer': 'buffer', 'CommandEncoder': 'commands', 'ComputePassEncoder': 'commands',
    'CommandBuffer': 'commands', 'ComputePipeline': 'pipeline', 'ShaderModule': 'pipeline',
    'BindGroupLayout, PipelineLayout, BindGroup': 'binding', 'QuerySet': 'commands',
}
FUNCTION_PART = {
    'wgpuDeviceCreateBuffer': 'buffer', 'wgpuDeviceCreateShaderModule': 'pipeline',
    'wgpuDeviceCreateComputePipeline': 'pipeline', 'wgpuDeviceCreateComputePipelineAsync': 'pipeline',
    'wgpuDeviceCreateBindGroupLayout': 'binding', 'wgpuDeviceCreatePipelineLayout': 'binding',
    'wgpuDeviceCreateBindGroup': 'binding', 'wgpuDeviceCreateCommandEncoder': 'commands',
    'wgpuDeviceCreateQuerySet': 'commands', 'wgpuDeviceGetQueue': 'commands',
}
PREAMBLE = [
    '// GENERATED by tools/gen/gen_dawn_api.py from ../shared/docs/dawn-abi.md. Do not edit by hand.',
    '// wgrt\'s own declarations of the compute subset of Dawn\'s C API (google/dawn 5b5dff4976, June 2025),',
    '// as exported by libwebgpu_wrapper.so (npm bun-webgpu-linux-x64@0.1.7).',
]
ABI_CHECK_NOTE = ('Layouts are checked below with static_assert against the sizes and offsets measured in that '
                  'document (x86-64, SysV ABI). Comments are the document\'s notes ("observed": probed on lavapipe). '
                  'Threads: the document, like wgrt, assumes one thread drives an instance and its devices.')


def comment(text, indent=''):
    """The document's note as // lines of at most 118 columns."""
    lines = textwrap.wrap(text, 118 - len(indent) - 3, break_on_hyphens=False)
    return [f'{indent}// {line}' for line in lines]


def struct_part_of():
    out = {}
    for part, names in STRUCT_PART.items():
        for n in names:
            out[n] = part
    return out


def main():
    md_path, out_path = sys.argv[1], sys.argv[2]
    md = open(md_path, encoding='utf-8').read()
    handles, enums, flags, callbacks, structs, funcs, sizes = [], [], [], [], [], [], {}
    for tag, rows in tables(md):
        if tag == 'types':
            for r in rows:
                if r['Kind'] == 'opaque handle':
                    handles.append(code(r['Name']))
        elif tag.startswith('enum '):
            enums.append((tag[5:], [(code(r['Member']), r['Value']) for r in rows]))
        elif tag.startswith('flags '):
            flags.append((tag[6:], [(code(r['Flag']), r['Value (uint64)']) for r in rows]))
        elif tag == 'callbacks':
            for r in rows:
                callbacks.append((code(r['Typedef']), code(r['Returns']), params(r['Parameters (in order)'])))
        elif tag.startswith('struct '):
            structs.append((tag[7:], [(code(r['Member']), code(r['C type']), int(r['Offset']), r.get('Notes', ''))
                                      for r in rows]))
        elif tag.startswith('functions '):
            group = tag[10:]
            if group not in GROUP_PART:
                sys.exit(f'gen_dawn_api.py: the function table "{group}" has no part: add it to GROUP_PART')
            for r in rows:
                name = code(r['Function'])
                part = FUNCTION_PART.get(name, GROUP_PART[group])
                funcs.append((name, code(r['Returns']), params(r['Parameters (in order)']), r.get('Notes', ''), part))
        elif tag == 'sizes':
            for r in rows:
                sizes[code(r['Struct'])] = (int(r['sizeof']), int(r['alignof']))

    names = {n for n, _ in structs}
    bymap = dict(structs)
    part_of = struct_part_of()
    for n in names - part_of.keys():
        sys.exit(f'gen_dawn_api.py: the struct {n} has no part: add it to STRUCT_PART')
    for n in names:
        for m, t, _, _ in bymap[n]:
            if t in names and part_of[t] not in [part_of[n], 'types'] + PART_NEEDS.get(part_of[n], []):
                sys.exit(f'gen_dawn_api.py: {n}.{m} embeds {t} of part {part_of[t]}: move one of them')

    # Structs in dependency order (embedded by value must come first).
    done, ordered = set(), []

    def visit(n):
        if n in done:
            return
        for _, t, _, _ in bymap[n]:
            if t in names and t != n:
                visit(t)
        done.add(n)
        ordered.append(n)
    for n, _ in structs:
        visit(n)

    def part_header(part, what, body, asserts):
        o = PREAMBLE + comment(f'This part declares {what}. ' + ABI_CHECK_NOTE) + ['#pragma once']
        o += ['#include <cstddef>', '#include <cstdint>']
        if part != 'enums':
            o.append('#include "webgpu/dawn_api_enums.h"' if part == 'types' else '#include "webgpu/dawn_api_types.h"')
        o += [f'#include "webgpu/dawn_api_{p}.h"' for p in PART_NEEDS.get(part, [])]
        o += ['', 'extern "C" {', ''] + body + ['', '}  // extern "C"', '']
        o.append('// ABI checks: sizes, alignments and member offsets measured in dawn-abi.md.')
        # The measured layouts are x86-64's. The browser build (wasm32: 4-byte pointers and size_t) implements these
        # functions itself in src/webgpu_web/, so there the layout is whatever that compiler gives both sides.
        o.append('#ifndef __EMSCRIPTEN__  // the browser build implements these functions itself (src/webgpu_web/)')
        o += asserts + ['#endif  // __EMSCRIPTEN__']
        return o

    files = {}
    for part, what in PARTS:
        body, asserts = [], []
        if part == 'enums':
            body += ['typedef uint32_t WGPUBool;', 'typedef uint64_t WGPUFlags;', '']
            for name, members in enums:
                body.append(f'typedef enum {name} : uint32_t {{')
                for m, v in members:
                    body.append(f'    {m} = {v},')
                body.append(f'    {name}_Force32 = 0x7FFFFFFF')
                body.append(f'}} {name};')
            body.append('')
            for name, members in flags:
                body.append(f'typedef WGPUFlags {name};')
                for m, v in members:
                    body.append(f'static constexpr {name} {m} = {v};')
            asserts.append('static_assert(sizeof(WGPUBool) == 4 && sizeof(WGPUFlags) == 8, "scalar ABI");')
            for name, _ in enums:
                asserts.append(f'static_assert(sizeof({name}) == 4, "{name} is 4 bytes");')
        if part == 'types':
            body += ['#define WGPU_STRLEN SIZE_MAX', '#define WGPU_WHOLE_SIZE UINT64_MAX',
                     '#define WGPU_WHOLE_MAP_SIZE SIZE_MAX', '#define WGPU_LIMIT_U32_UNDEFINED UINT32_MAX',
                     '#define WGPU_LIMIT_U64_UNDEFINED UINT64_MAX', '#define WGPU_QUERY_SET_INDEX_UNDEFINED UINT32_MAX',
                     '']
            for h in handles:
                body.append(f'typedef struct {h}Impl* {h};')
            body.append('')
            # Forward declarations for structs (pointers between them, across parts).
            for name, _ in structs:
                body.append(f'typedef struct {name} {name};')
            body.append('')
            for name, ret, ps in callbacks:
                args = ', '.join(decl(t, n) for t, n in ps)
                body.append(f'typedef {ret} (*{name})({args});')
            body.append('')
        for n in ordered:
            if part_of[n] != part:
                continue
            body.append(f'struct {n} {{')
            for m, t, _, note in bymap[n]:
                body += comment(note, '    ')
                body.append(f'    {decl(t, m)};')
            body.append('};')
        for n, members in structs:  # the asserts in the document's order
            if part_of[n] != part:
                continue
            if n in sizes:
                s, a = sizes[n]
                asserts.append(f'static_assert(sizeof({n}) == {s} && alignof({n}) == {a}, "{n} layout");')
            for m, _, off, _ in members:
                asserts.append(f'static_assert(offsetof({n}, {m}) == {off}, "{n}.{m} offset");')
        fs = [f for f in funcs if f[4] == part]
        if fs:
            body.append('')
        for name, ret, ps, note, _ in fs:
            args = ', '.join(decl(t, n) for t, n in ps)
            body += comment(note)
            body.append(f'{ret} {name}({args});')
        while body and body[-1] == '':
            body.pop()
        files[f'dawn_api_{part}.h'] = part_header(part, what, body, asserts)

    o = PREAMBLE + comment('This umbrella header includes every part (one header per concern) and lists the declared '
                           'functions, so the runtime can check that the loaded library exports every one '
                           '(webgpu::check_exported_symbols):')
    for p, w in PARTS:
        lines = textwrap.wrap(w, 118 - 25)
        o.append(f'//   {"dawn_api_" + p + ".h":<21}{lines[0]}')
        o += [f'//{"":<24}{line}' for line in lines[1:]]
    o += ['#pragma once'] + [f'#include "webgpu/dawn_api_{p}.h"' for p, _ in PARTS] + ['']
    o.append('namespace wgrt::webgpu {')
    o.append('inline constexpr const char* kDeclaredFunctions[] = {')
    for name, _, _, _, _ in funcs:
        o.append(f'    "{name}",')
    o.append('};')
    o.append('}  // namespace wgrt::webgpu')
    files[os.path.basename(out_path)] = o

    folder = os.path.dirname(out_path)
    texts = {os.path.join(folder, f): '\n'.join(lines) + '\n' for f, lines in files.items()}
    if len(sys.argv) > 3 and sys.argv[3] == '--check':
        stale = [p for p, text in texts.items()
                 if not os.path.exists(p) or open(p, encoding='utf-8').read() != text]
        if stale:
            print(f'{", ".join(stale)} out of date with {md_path}: re-run tools/gen/gen_dawn_api.py', file=sys.stderr)
            sys.exit(1)
        print(f'dawn_api.h and its {len(PARTS)} parts match dawn-abi.md')
        return
    for p, text in texts.items():
        open(p, 'w', encoding='utf-8').write(text)


if __name__ == '__main__':
    main()
