// The generated Dawn declarations: their static_asserts compile (this file includes them), every declared
// function is exported by the loaded library, and the header matches ../shared/docs/dawn-abi.md.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "support/paths.h"
#include "webgpu/dawn_api.h"
#include "webgpu/instance.h"

TEST(DawnAbi, LayoutsMatchMeasuredSizes) {
  static_assert(sizeof(WGPULimits) == 152);
  static_assert(offsetof(WGPULimits, maxBufferSize) == 96);
  static_assert(offsetof(WGPUBindGroupLayoutEntry, visibility) == 16);
  static_assert(sizeof(WGPUBufferDescriptor) == 48);
  SUCCEED();
}

TEST(DawnAbi, EveryDeclaredFunctionIsExported) { EXPECT_NO_THROW(wgrt::webgpu::check_exported_symbols()); }

TEST(DawnAbi, GeneratedHeaderIsUpToDate) {
  std::string doc = wgrt::test::shared_path("docs/dawn-abi.md");
  if (!std::filesystem::exists(doc)) GTEST_SKIP() << "no " << doc;
  std::string cmd = "python3 " + wgrt::test::source_path("tools/gen/gen_dawn_api.py") + " " + doc + " " +
                    wgrt::test::source_path("src/webgpu/dawn_api.h") + " --check";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}
