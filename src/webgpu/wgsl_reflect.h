// Reflection of a kernel's interface from its expanded WGSL text (after #include expansion, shader_source.h):
// the WGSL is the one source of a kernel's bindings, uniform layouts, workgroup size and workgroup memory.
//
// What is read (module scope only; comments are skipped):
//   - `@group(0) @binding(N) var<storage[, read|read_write]> name : T;` and `var<uniform> name : T;`:
//     the binding list, which must be dense (0..n-1) and in group 0 only;
//   - `struct S { ... }` declarations: member offsets and sizes by WGSL's layout rules (the alignment and size
//     of f32/i32/u32/f16, vecN (vec3 aligns as vec4), matCxR, array<E, N> (stride = size of E rounded up to its
//     alignment), nested structs, @align/@size attributes);
//   - `override NAME [: T] [= expr];` and `const NAME [: T] = expr;`: values for the integer expressions below,
//     overrides taking the pipeline's constants first, then their defaults;
//   - `@workgroup_size(x[, y[, z]])` of the entry point (expressions over literals, consts and overrides,
//     with + - * / % ( ) min max);
//   - `var<workgroup> name : T;`: bytes of workgroup memory, each variable rounded up to 16 bytes as Dawn
//     counts it against maxComputeWorkgroupStorageSize (all such variables of the module: an upper bound for
//     a module with several entry points).
// Errors (malformed declarations, bindings outside group 0 or with gaps, unknown types, expressions that
// cannot be evaluated) throw InvalidArgument naming the shader. Pure text processing: any thread.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wgrt::webgpu {

// One @group(0) @binding(i) of a kernel, as WGSL declares it.
enum class BindingType : uint8_t { Uniform, ReadOnlyStorage, Storage };
const char* binding_type_name(BindingType t);  // "uniform", "storage, read", "storage, read_write"

struct WgslMember {
  std::string name, type;
  uint32_t offset = 0, size = 0;
};

struct WgslStruct {
  std::string name;
  uint32_t size = 0, align = 0;
  std::vector<WgslMember> members;
};

struct WgslBinding {
  uint32_t index = 0;
  BindingType type = BindingType::Storage;
  std::string name, type_name;  // variable name and its WGSL type ("array<f32>", "Params")
  WgslStruct layout;            // uniform bindings of struct type: the struct's layout (else empty)
};

struct WgslReflection {
  std::vector<WgslBinding> bindings;  // bindings[i].index == i
  std::array<uint32_t, 3> workgroup_size{0, 0, 0};  // of the entry point; 0s if it has none
  uint64_t workgroup_bytes = 0;                     // all var<workgroup>, each rounded up to 16 bytes
  // Every module-scope const and override whose value is a number computable from the above (e.g. a kernel's
  // TILE_M): the one source of numbers the host needs from a kernel.
  std::map<std::string, double> values;
  uint32_t invocations() const { return workgroup_size[0] * workgroup_size[1] * workgroup_size[2]; }
};

// `label` names the shader in errors; `constants` are the pipeline's override values.
WgslReflection reflect_wgsl(std::string_view label, std::string_view text, std::string_view entry,
                            const std::vector<std::pair<std::string, double>>& constants);

}  // namespace wgrt::webgpu
