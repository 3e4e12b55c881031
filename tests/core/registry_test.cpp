// Registry truth: every kernel an op lists (OpDef.kernels, printed by `wgrt ops`) is an embedded WGSL file with
// that compute entry point and reflects cleanly. The other direction (no dispatch of an unlisted kernel) and
// `resizable` are checked at every build (OpBuilder::dispatch, ExecutableGraph::build), so the value tests of
// every op keep them true; here a test op breaks each on purpose.
#include <gtest/gtest.h>

#include <string>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "graph/op_builder.h"
#include "graph/op_registry.h"
#include "webgpu/pipeline_cache.h"
#include "webgpu/shader_source.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::gpu;

TEST(Registry, EveryListedKernelExists) {
  size_t listed = 0;
  for (const auto& [name, def] : OpRegistry::builtin().all())
    for (const std::string& k : def.kernels) {
      ++listed;
      const size_t colon = k.rfind(':');
      ASSERT_NE(colon, std::string::npos) << name << ": " << k;
      const std::string path = k.substr(0, colon), entry = k.substr(colon + 1);
      std::string text;
      ASSERT_NO_THROW(text = shaders::expand(path).text) << name << ": " << k;
      EXPECT_NE(text.find("fn " + entry + "("), std::string::npos) << name << ": no entry point " << k;
    }
  EXPECT_GT(listed, 40u);
}

namespace {

struct NegParams {  // ops/elementwise/unary_body.wgsl's Params
  uint32_t n;
  float p0, p1;
  uint32_t pad;
};
WGRT_UNIFORM(NegParams, n, p0, p1, pad);

// A test op that either dispatches the neg kernel or is a view (no dispatch); `kernels` is its OpDef list.
std::string build_test_op(std::vector<std::string> kernels, bool dispatch, bool resizable, bool hook) {
  OpRegistry r = OpRegistry::builtin();
  OpDef def;
  def.name = "test.op";
  def.resizable = resizable;
  def.kernels = std::move(kernels);
  def.build = [dispatch, hook](OpBuilder& b) {
    if (dispatch) {
      UniformRef u = b.uniform<NegParams>();
      b.dispatch({"ops/elementwise/unary/neg.wgsl", "main", {}, {}}, {Binding::tensor(b.arg(0)), Binding::tensor(b.arg(1)), u});
    } else {
      b.alias(1, 0);
    }
    if (hook) b.on_resize([](ResizeContext& r) { r.set_dims(1, r.tensor(0).dims); });
  };
  r.add(def);
  Graph g;
  ValueId x = g.input("x", DType::F32, {4});
  ValueId y = g.tensor(DType::F32, {4}, "y");
  g.op("test.op", {x, y}, "t");
  g.output(y);
  try {
    ExecutableGraph::build(std::move(g), gpu(), &r);
    return "ok";
  } catch (const InvalidArgument& e) {
    return e.what();
  }
}

}  // namespace

TEST(Registry, ResizableMustMatchTheBuild) {
  EXPECT_EQ(build_test_op({}, false, true, true), "ok");
  EXPECT_EQ(build_test_op({}, false, false, false), "ok");
  const std::string m = build_test_op({}, false, true, false);
  EXPECT_NE(m.find("registered with resizable = true but its build registers no resize hook"), std::string::npos) << m;
  const std::string m2 = build_test_op({}, false, false, true);
  EXPECT_NE(m2.find("resizable = false but its build registers a resize hook"), std::string::npos) << m2;
}

TEST(Registry, DispatchOfAnUnlistedKernelFails) {
  EXPECT_EQ(build_test_op({"ops/elementwise/unary/neg.wgsl:main"}, true, true, true), "ok");
  const std::string m = build_test_op({"ops/elementwise/unary/relu.wgsl:main"}, true, true, true);
  EXPECT_NE(m.find("dispatches kernel ops/elementwise/unary/neg.wgsl:main, which the op's registration (OpDef.kernels: "
                   "ops/elementwise/unary/relu.wgsl:main) does not list"),
            std::string::npos)
      << m;
}
