// The kernel interface has one source, the WGSL: reflection of bindings, struct layouts (WGSL alignment rules),
// workgroup size, workgroup memory and constants (webgpu/wgsl_reflect.h); and OpBuilder::dispatch's checks of an
// op's bindings and uniform structs against it. Each kind of mismatch is broken on purpose (binding count, kind,
// access, uniform size, member offset) and its message must name the kernel, the binding or member, and both
// sides. Every built-in kernel must reflect cleanly.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "webgpu/pipeline_cache.h"
#include "webgpu/shader_source.h"
#include "webgpu/wgsl_reflect.h"
#include "wgrt/error.h"

using namespace wgrt;
using webgpu::BindingType;
using wgrt::test::gpu;

namespace {

webgpu::WgslReflection reflect(const std::string& text, const std::string& entry = "main",
                               std::vector<std::pair<std::string, double>> c = {}) {
  return webgpu::reflect_wgsl("test.wgsl", text, entry, c);
}

const webgpu::WgslMember& member(const webgpu::WgslStruct& s, const std::string& name) {
  for (const auto& m : s.members)
    if (m.name == name) return m;
  throw std::runtime_error("no member " + name);
}

}  // namespace

TEST(WgslReflect, BindingsInOrderWithKindsAndAccess) {
  const auto r = reflect(R"(
struct P { n : u32 }
// @group(0) @binding(7) var<storage> commented_out : array<f32>;
@binding(2) @group(0) var<uniform> p : P;
@group(0) @binding(0) var<storage, read> x : array<vec4<f32>>;
@group(0) @binding(1)
  var<storage, read_write> y : array<f32>;
@group(0) @binding(3) var<storage> z : array<u32>;
@compute @workgroup_size(64) fn main() {}
)");
  ASSERT_EQ(r.bindings.size(), 4u);
  EXPECT_EQ(r.bindings[0].name, "x");
  EXPECT_EQ(r.bindings[0].type, BindingType::ReadOnlyStorage);
  EXPECT_EQ(r.bindings[0].type_name, "array<vec4<f32>>");
  EXPECT_EQ(r.bindings[1].type, BindingType::Storage);
  EXPECT_EQ(r.bindings[2].type, BindingType::Uniform);
  EXPECT_EQ(r.bindings[2].layout.name, "P");
  EXPECT_EQ(r.bindings[3].type, BindingType::ReadOnlyStorage);  // var<storage> defaults to read
  EXPECT_EQ(r.workgroup_size, (std::array<uint32_t, 3>{64, 1, 1}));
}

TEST(WgslReflect, StructLayoutFollowsWgslAlignment) {
  // WGSL: vec3 aligns to 16 (size 12), vec2 to 8, arrays stride = element size rounded up to its alignment,
  // a struct aligns to its largest member and its size rounds up to that, matCxR = C columns of vecR.
  const auto r = reflect(R"(
struct Inner { a : f32, b : vec3<f32> }
struct P {
  n : u32,
  v3 : vec3<f32>,
  f : f32,
  v2 : vec2f,
  arr : array<vec4<u32>, 2>,
  s : Inner,
  m : mat3x3<f32>,
  h : array<f32, 3>,
  @align(16) t : u32,
  @size(8) q : u32,
}
@group(0) @binding(0) var<uniform> p : P;
@compute @workgroup_size(1) fn main() {}
)");
  const webgpu::WgslStruct& s = r.bindings.at(0).layout;
  EXPECT_EQ(member(s, "n").offset, 0u);
  EXPECT_EQ(member(s, "v3").offset, 16u);
  EXPECT_EQ(member(s, "v3").size, 12u);
  EXPECT_EQ(member(s, "f").offset, 28u);  // packs into the vec3's last 4 bytes
  EXPECT_EQ(member(s, "v2").offset, 32u);
  EXPECT_EQ(member(s, "arr").offset, 48u);
  EXPECT_EQ(member(s, "arr").size, 32u);
  EXPECT_EQ(member(s, "s").offset, 80u);  // Inner aligns 16, size 32
  EXPECT_EQ(member(s, "s").size, 32u);
  EXPECT_EQ(member(s, "m").offset, 112u);  // 3 columns of 16 bytes
  EXPECT_EQ(member(s, "m").size, 48u);
  EXPECT_EQ(member(s, "h").offset, 160u);
  EXPECT_EQ(member(s, "h").size, 12u);
  EXPECT_EQ(member(s, "t").offset, 176u);
  EXPECT_EQ(member(s, "q").offset, 180u);
  EXPECT_EQ(member(s, "q").size, 8u);
  EXPECT_EQ(s.align, 16u);
  EXPECT_EQ(s.size, 192u);
}

TEST(WgslReflect, OverridesConstsWorkgroupSizeAndMemory) {
  const std::string src = R"(
const LANES = 32u;
override TR : u32 = 4u;
override RPT : u32;
override ROWS : u32 = TR * RPT;
var<workgroup> part : array<f32, TR * RPT * (LANES + 1u)>;
var<workgroup> flag : u32;
var<workgroup> xs : array<vec4<f32>, max(RPT - 2u, 1u)>;
@compute @workgroup_size(LANES * TR, 1) fn main() {}
@compute @workgroup_size(7) fn other() {}
)";
  const auto r = reflect(src, "main", {{"RPT", 2}});
  EXPECT_EQ(r.workgroup_size, (std::array<uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(r.values.at("ROWS"), 8.0);
  EXPECT_EQ(r.values.at("LANES"), 32.0);
  EXPECT_EQ(r.workgroup_bytes, uint64_t(4 * 2 * 33 * 4) + 16 + 16);
  EXPECT_EQ(reflect(src, "other", {{"RPT", 2}, {"TR", 1}}).invocations(), 7u);
  EXPECT_EQ(reflect(src, "main", {{"RPT", 8}, {"TR", 1}}).workgroup_bytes, uint64_t(8 * 33 * 4) + 16 + 6 * 16);
  // RPT has no default: without a value it cannot be evaluated, and says so.
  try {
    reflect(src);
    FAIL() << "evaluated an override without a value";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("override 'RPT' has no default"), std::string::npos) << e.what();
  }
}

TEST(WgslReflect, MalformedInterfacesAreErrors) {
  auto err = [](const std::string& text) {
    try {
      reflect(text);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(err("@group(0) @binding(1) var<storage> a : array<f32>;").find("@binding(1) ('a') leaves a gap"),
            std::string::npos);
  EXPECT_NE(err("@group(1) @binding(0) var<storage> a : array<f32>;").find("@group(1)"), std::string::npos);
  EXPECT_NE(err("@group(0) @binding(0) var<uniform> a : vec4<u32>;").find("must have a struct type"), std::string::npos);
  EXPECT_NE(err("struct P { a : NoSuchType }\n@group(0) @binding(0) var<uniform> p : P;").find("unknown type 'NoSuchType'"),
            std::string::npos);
  EXPECT_NE(err("@binding(0) var<storage> a : array<f32>;").find("needs both @group and @binding"), std::string::npos);
}

// KernelSpec::prelude's expansion: the prelude first (each file once, as an include), then the kernel, the
// result named after the kernel; an unknown prelude file is an error naming it.
TEST(ShaderSource, PreludeComesFirstOnceUnderTheKernelsName) {
  const std::string k = "ops/kv_cache/update_kv_cache.wgsl", f16 = "ops/kv_cache/kv_f16.wgsl";
  const shaders::ExpandedSource e = shaders::expand(k, std::vector<std::string>{f16, f16});
  EXPECT_EQ(e.name, k);
  ASSERT_FALSE(e.lines.empty());
  EXPECT_EQ(e.lines.front().file, f16);
  EXPECT_EQ(e.locate(1), f16 + ":1");
  size_t n = 0;
  for (size_t at = e.text.find("alias KvWord"); at != std::string::npos; at = e.text.find("alias KvWord", at + 1)) ++n;
  EXPECT_EQ(n, 1u);
  EXPECT_LT(e.text.find("alias KvWord"), e.text.find("fn main("));
  EXPECT_EQ(shaders::expand(k, std::vector<std::string>{}).text, shaders::expand(k).text);
  try {
    shaders::expand(k, std::vector<std::string>{"ops/kv_cache/kv_f8.wgsl"});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& err) {
    EXPECT_NE(std::string(err.what()).find("kv_f8.wgsl"), std::string::npos) << err.what();
  }
}

// WGSL wants its directives (enable, requires, diagnostic) before any declaration: the expander moves each
// directive line to the front, in order, keeping its origin for locate(); everything else keeps its order. Comments,
// names that start with "enable" and @diagnostic attributes are not directives. A source whose directives already
// come first is unchanged; so a kernel that enables subgroups compiles behind a prelude or an include.
TEST(ShaderSource, DirectivesMoveToTheFrontWithTheirOrigin) {
  const shaders::ExpandedSource e = shaders::expand_inline("test/hoist.wgsl",
                                                           "// header\n"
                                                           "const A : u32 = 1u;\n"
                                                           "enable subgroups;\n"
                                                           "// enable f16;\n"
                                                           "  requires readonly_and_readwrite_storage_textures;\n"
                                                           "const enabled : u32 = 2u;\n"
                                                           "diagnostic(off, subgroup_uniformity);\n"
                                                           "@diagnostic(off, derivative_uniformity) fn f() {}");
  EXPECT_EQ(e.text,
            "enable subgroups;\n"
            "  requires readonly_and_readwrite_storage_textures;\n"
            "diagnostic(off, subgroup_uniformity);\n"
            "// header\n"
            "const A : u32 = 1u;\n"
            "// enable f16;\n"
            "const enabled : u32 = 2u;\n"
            "@diagnostic(off, derivative_uniformity) fn f() {}\n");
  ASSERT_EQ(e.lines.size(), 8u);
  const int origin[] = {3, 5, 7, 1, 2, 4, 6, 8};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(e.locate(i + 1), fmt::format("test/hoist.wgsl:{}", origin[i])) << i;

  // (The expander ends every line with '\n', the last one too.)
  const std::string first = "enable subgroups;\ndiagnostic(off, subgroup_uniformity);\nconst A : u32 = 1u;";
  const shaders::ExpandedSource same = shaders::expand_inline("test/first.wgsl", first);
  EXPECT_EQ(same.text, first + "\n");
  ASSERT_EQ(same.lines.size(), 3u);
  for (int i = 1; i <= 3; ++i) EXPECT_EQ(same.locate(i), fmt::format("test/first.wgsl:{}", i));

  // Behind an include: the directive from line 2 goes first, the included file follows from its line 1.
  const std::string f16 = "ops/kv_cache/kv_f16.wgsl";
  const shaders::ExpandedSource inc =
      shaders::expand_inline("test/inc.wgsl", "#include \"" + f16 + "\"\nenable subgroups;\nconst B : u32 = 3u;\n");
  EXPECT_EQ(inc.text.substr(0, inc.text.find('\n')), "enable subgroups;");
  EXPECT_EQ(inc.locate(1), "test/inc.wgsl:2");
  EXPECT_EQ(inc.locate(2), f16 + ":1");

  // Behind a prelude (KernelSpec::prelude): the subgroup decode kernel's two directives, then the prelude.
  const std::string k = "ops/attention/sdpa_decode_sg.wgsl";
  const shaders::ExpandedSource pre = shaders::expand(k, std::vector<std::string>{f16});
  EXPECT_EQ(pre.text.substr(0, pre.text.find("\n//")), "enable subgroups;\ndiagnostic(off, subgroup_uniformity);");
  EXPECT_EQ(pre.locate(1), k + ":1");
  EXPECT_EQ(pre.locate(2), k + ":2");
  EXPECT_EQ(pre.locate(3), f16 + ":1");
  if (!gpu().has_subgroups()) return;
  webgpu::KernelSpec spec{k, "main", {{"HB", 4}, {"D4", 16}, {"DS", 4}, {"U", 4}}, {}, {f16}};
  EXPECT_NO_THROW(gpu().pipelines().get(spec));
  spec = webgpu::KernelSpec{};
  spec.shader = "test/inc_sg.wgsl";
  spec.inline_source = "#include \"" + f16 + "\"\nenable subgroups;\n" +
                       "@group(0) @binding(0) var<storage, read_write> o : array<u32>;\n"
                       "@compute @workgroup_size(64)\nfn main(@builtin(local_invocation_index) i : u32) {\n"
                       "  o[i] = subgroupAdd(kv_word(1.0, 2.0));\n}\n";
  EXPECT_NO_THROW(gpu().pipelines().get(spec));
}

// A compile error behind a moved directive is still reported at its own file and line.
TEST(ShaderSource, CompileErrorsKeepTheirLineAfterHoisting) {
  webgpu::KernelSpec spec;
  spec.shader = "test/hoist_broken.wgsl";
  spec.inline_source = "const A : u32 = 1u;\ndiagnostic(off, derivative_uniformity);\n@compute @workgroup_size(1)\n"
                       "fn main() {\n  let x : u32 = 1.5;\n}\n";
  try {
    gpu().pipelines().get(spec);
    FAIL() << "expected a WGSL compile error";
  } catch (const GpuError& e) {
    EXPECT_NE(std::string(e.what()).find("test/hoist_broken.wgsl:5:"), std::string::npos) << e.what();
  }
}

TEST(WgslReflect, EveryBuiltInKernelReflects) {
  // Every embedded kernel (files with a compute entry point) reflects: dense group-0 bindings, struct uniforms.
  // The kernels written against the KV cache's element type (KvWord, KvVec4) reflect with either prelude.
  size_t kernels = 0, kv_kernels = 0;
  for (const auto& e : shaders::embedded_wgsl()) {
    const std::string plain = shaders::expand(e.path).text;
    // Kernel bodies (*_body.wgsl) are completed by the files that include them.
    if (plain.find("@compute") == std::string::npos || std::string(e.path).ends_with("_body.wgsl")) continue;
    ++kernels;
    const bool kv = plain.find("KvWord") != std::string::npos || plain.find("KvVec4") != std::string::npos;
    kv_kernels += kv;
    const std::vector<std::vector<std::string>> preludes =
        kv ? std::vector<std::vector<std::string>>{{"ops/kv_cache/kv_f32.wgsl"}, {"ops/kv_cache/kv_f16.wgsl"}}
           : std::vector<std::vector<std::string>>{{}};
    for (const auto& pre : preludes) {
      const std::string text = shaders::expand(e.path, pre).text;
      webgpu::WgslReflection r;
      // Overrides without defaults get a value of 1 (enough to evaluate the layout).
      std::vector<std::pair<std::string, double>> c;
      for (const char* o : {"RPT", "TK", "TR", "XB", "XV", "BW", "KS"}) c.push_back({o, 1});
      ASSERT_NO_THROW(r = webgpu::reflect_wgsl(e.path, text, "main", c)) << e.path;
      EXPECT_FALSE(r.bindings.empty()) << e.path;
      for (const auto& b : r.bindings)
        if (b.type == BindingType::Uniform) EXPECT_FALSE(b.layout.members.empty()) << e.path << " " << b.name;
    }
  }
  EXPECT_GT(kernels, 30u);
  EXPECT_GE(kv_kernels, 10u);  // the cache writers, the RoPE writers and the attention kernels
}

// ---- dispatch-time checks against the WGSL ----

namespace {

const char* kKernel = R"(
struct P { n : u32, v : vec2<f32>, _a : u32, _b : u32, _c : u32 }
@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read_write> y : array<f32>;
@group(0) @binding(2) var<uniform> p : P;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) { if (gid.x < p.n) { y[gid.x] = x[gid.x] * p.v.x + p.v.y; } }
)";

// Five members at the WGSL offsets: n 0, v 8, _a 16, _b 20, _c 24; size 32 (struct align 8).
struct Exact {
  uint32_t n;
  alignas(8) float v[2];
  uint32_t a, b, c;
};
WGRT_UNIFORM(Exact, n, v, a, b, c);

// v at offset 4: the WGSL's vec2 alignment is forgotten.
struct Packed {
  uint32_t n;
  float v[2];
  uint32_t a, b, c, pad;
};
WGRT_UNIFORM(Packed, n, v, a, b, c);

// Same members as Exact but 64 bytes.
struct alignas(64) Wide {
  uint32_t n;
  alignas(8) float v[2];
  uint32_t a, b, c;
};
WGRT_UNIFORM(Wide, n, v, a, b, c);

enum class Break { None, Count, Kind, Access, Size, Offset };

std::string build_with(Break how) {
  OpRegistry r = OpRegistry::builtin();
  r.add({"test.iface",
         [how](OpBuilder& b) {
           UniformRef u = how == Break::Size     ? b.uniform<Wide>()
                          : how == Break::Offset ? b.uniform<Packed>()
                                                 : b.uniform<Exact>();
           std::vector<Binding> binds = {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(how == Break::Access ? 0 : 1)), u};
           if (how == Break::Count) binds.pop_back();
           if (how == Break::Kind) binds[1] = u;
           DispatchRef d = b.dispatch({"test/iface.wgsl", "main", {}, kKernel}, binds);
           b.on_resize([=](ResizeContext& r) {
             r.set_dims(1, r.tensor(0).dims);
             r.set_uniform(u, Exact{uint32_t(numel(r.tensor(0).dims)), {2.0f, 1.0f}, 0, 0, 0});
             r.set_invocations(d, uint64_t(numel(r.tensor(0).dims)));
           });
         },
         {"test/iface.wgsl:main"}, true});
  Graph g;
  // Break::Access binds the weight (a Constant) at the read_write binding.
  ValueId x = g.constant("w", DType::F32, {100}, ConstantData::from_vector(std::vector<float>(100, 3.0f)));
  ValueId y = g.tensor(DType::F32, {100}, "y");
  g.op("test.iface", {x, y}, "iface");
  g.output(y);
  try {
    auto exe = ExecutableGraph::build(std::move(g), gpu(), &r);
    exe->execute();
    const auto out = exe->read_f32(y);
    return out[99] == 7.0f ? "ok" : "wrong value";
  } catch (const InvalidArgument& e) {
    return e.what();
  }
}

void expect_has(const std::string& m, const std::vector<std::string>& parts) {
  for (const auto& p : parts) EXPECT_NE(m.find(p), std::string::npos) << "'" << p << "' missing in: " << m;
}

}  // namespace

TEST(KernelInterface, MatchingBindingsAndUniformRun) { EXPECT_EQ(build_with(Break::None), "ok"); }

TEST(KernelInterface, BindingCountMismatchNamesBothSides) {
  expect_has(build_with(Break::Count), {"'iface'", "test/iface.wgsl:main", "declares 3 bindings", "binds 2"});
}

TEST(KernelInterface, BindingKindMismatchNamesBothSides) {
  expect_has(build_with(Break::Kind),
             {"test/iface.wgsl:main", "binding 1 'y'", "var<storage, read_write> array<f32>", "uniform block Exact"});
}

TEST(KernelInterface, WritingAWeightIsAnAccessMismatch) {
  expect_has(build_with(Break::Access),
             {"test/iface.wgsl:main", "binding 1 'y'", "var<storage, read_write>", "tensor 'w'", "weight"});
}

TEST(KernelInterface, UniformSizeMismatchNamesBothSides) {
  expect_has(build_with(Break::Size), {"test/iface.wgsl:main", "binding 2 'p'", "WGSL struct P is 32 bytes",
                                       "host struct Wide is 64 bytes"});
}

TEST(KernelInterface, UniformOffsetMismatchNamesMemberAndBothSides) {
  expect_has(build_with(Break::Offset), {"test/iface.wgsl:main", "binding 2 'p'", "member 1", "WGSL P.v (vec2<f32>) is at offset 8",
                                         "host Packed.v at offset 4"});
}
