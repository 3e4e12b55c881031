// Adapter listing with two Vulkan drivers of the same type (issue 16): with lavapipe and SwiftShader both in
// VK_ICD_FILENAMES, Dawn's request-adapter returned only SwiftShader, so `--adapter llvmpipe` matched nothing.
// Every listed driver's adapter must be listed and usable. SwiftShader comes from Debian chromium-common
// (scripts/setup.sh); the test is skipped where it is absent. Also: the GPU-timeout message keeps fractions.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "webgpu/device.h"
#include "webgpu/instance.h"

using namespace wgrt::webgpu;

namespace {

const char* kLvp = "/usr/share/vulkan/icd.d/lvp_icd.json";
const char* kSwiftShader = "/usr/lib/chromium/vk_swiftshader_icd.json";

// Sets VK_ICD_FILENAMES for the test's lifetime (each test runs in its own process under CTest).
struct IcdEnv {
  std::string saved;
  bool had;
  explicit IcdEnv(const std::string& value) {
    const char* v = std::getenv("VK_ICD_FILENAMES");
    had = v != nullptr;
    if (had) saved = v;
    setenv("VK_ICD_FILENAMES", value.c_str(), 1);
  }
  ~IcdEnv() {
    if (had) setenv("VK_ICD_FILENAMES", saved.c_str(), 1);
    else unsetenv("VK_ICD_FILENAMES");
  }
};

bool has(const std::vector<Adapter>& all, const std::string& needle) {
  for (const Adapter& a : all)
    if (a.info.summary().find(needle) != std::string::npos) return true;
  return false;
}

TEST(AdapterListing, ListsEveryDriverOfTheSameType) {
  if (!std::filesystem::exists(kSwiftShader) || !std::filesystem::exists(kLvp))
    GTEST_SKIP() << "needs lavapipe and SwiftShader (chromium-common)";
  for (const std::string order : {std::string(kLvp) + ":" + kSwiftShader, std::string(kSwiftShader) + ":" + kLvp}) {
    IcdEnv env(order);
    Instance inst;
    const auto& all = inst.adapters();
    EXPECT_TRUE(has(all, "llvmpipe")) << order;
    EXPECT_TRUE(has(all, "SwiftShader")) << order;
    EXPECT_EQ(std::string(std::getenv("VK_ICD_FILENAMES")), order);  // restored
  }
  // Each is usable: a device on the adapter that the plain request hid.
  IcdEnv env(std::string(kSwiftShader) + ":" + kLvp);
  for (const auto& [spec, name] : {std::pair{"llvmpipe", "llvmpipe"}, std::pair{"swiftshader", "SwiftShader"}}) {
    DeviceOptions o;
    o.adapter = spec;
    auto dev = Device::create(o);
    EXPECT_NE(dev->adapter_info().summary().find(name), std::string::npos) << spec;
    EXPECT_TRUE(has(dev->adapters(), "llvmpipe") && has(dev->adapters(), "SwiftShader"));
    dev->wait_idle();
  }
}

TEST(AdapterListing, ListedDriversFollowTheLoaderVariables) {
  IcdEnv env("a.json::b.json");
  EXPECT_EQ(listed_vulkan_drivers(), (std::vector<std::string>{"a.json", "b.json"}));
}

TEST(GpuTimeout, MessageKeepsFractionsOfASecond) {
  EXPECT_NE(timeout_message("reading", 500'000'000).find("timed out after 0.5 s"), std::string::npos);  // was "0 s"
  EXPECT_NE(timeout_message("reading", 2'250'000'000).find("after 2.25 s"), std::string::npos);
  EXPECT_NE(timeout_message("reading", 300'000'000'000).find("after 300 s"), std::string::npos);
  EXPECT_NE(timeout_message("reading", 1'000'000).find("after 0.001 s"), std::string::npos);
}

}  // namespace
