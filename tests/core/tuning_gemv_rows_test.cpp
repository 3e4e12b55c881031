// WGRT_GEMV_MAX_ROWS (webgpu/tuning_env.cpp): the rows up to which linear layers take the GEMV route, for
// batched serving measurements (above it the GEMM reads each weight once for all rows). Malformed values are
// a clear error naming the variable; well-formed ones replace the rule's 8.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "webgpu/tuning.h"
#include "wgrt/error.h"

using namespace wgrt;

namespace {

webgpu::Tuning tuned(const std::map<std::string, std::string>& env) {
  auto get = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  return webgpu::Tuning::for_device(webgpu::DeviceFacts{}, webgpu::parse_tuning_env(get));
}

}  // namespace

TEST(Tuning, GemvMaxRowsOverride) {
  EXPECT_EQ(tuned({}).gemv_max_rows, 8);
  EXPECT_EQ(tuned({{"WGRT_GEMV_MAX_ROWS", "1"}}).gemv_max_rows, 1);
  EXPECT_EQ(tuned({{"WGRT_GEMV_MAX_ROWS", "0"}}).gemv_max_rows, 0);
  for (const char* v : {"9", "-1", "2x", "1,2", "abc"}) {
    try {
      tuned({{"WGRT_GEMV_MAX_ROWS", v}});
      ADD_FAILURE() << v << " accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("WGRT_GEMV_MAX_ROWS='") + v + "' is malformed"), std::string::npos) << e.what();
    }
  }
}
