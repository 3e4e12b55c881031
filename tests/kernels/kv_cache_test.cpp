// llama.update_cache: rows land at input_pos on a State tensor, across prefill and decode steps of one graph
// (input_pos a live SymInt); overflow is a LimitError that writes nothing; the graph stays usable.
// Exact comparison (a copy).
#include <gtest/gtest.h>

#include <random>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "reference/attention_ref.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::gpu;

namespace {

std::vector<float> rand_vec(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace

TEST(KvCache, UpdateCachePrefillDecodeAndOverflow) {
  const int64_t B = 2, S_max = 7, H = 3, D = 5, C = 11;
  Graph g;
  ValueId val = g.input("value", DType::F32, {B, S_max, H, D});
  ValueId pos_in = g.input("input_pos", DType::I32, {1});
  ValueId cache = g.state("k_cache", DType::F32, {B, C, H, D});
  ValueId pos = g.symint();
  g.op("et_vk.select_as_symint.default", {pos_in, g.int_value(0), g.int_value(0), pos});
  g.op("llama.update_cache.default", {val, cache, pos}, "kv_write");
  g.output(cache);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  std::vector<float> expect(size_t(B * C * H * D), 0.0f);
  uint32_t seed = 1;
  auto step = [&](int64_t S, int32_t p) {
    auto v = rand_vec(size_t(B * S * H * D), seed++);
    exe->set_input(val, {B, S, H, D}, std::span<const float>(v));
    std::vector<int32_t> pv = {p};
    exe->set_input(pos_in, {1}, std::span<const int32_t>(pv));
    exe->execute();
    return v;
  };
  for (auto [S, p] : {std::pair<int64_t, int32_t>{7, 0}, {1, 7}, {1, 8}, {2, 9}}) {  // the last fills C exactly
    auto v = step(S, p);
    ref::cache_write(expect, v, B, S, H, D, C, p);
    ASSERT_EQ(exe->read_f32(cache), expect) << "S=" << S << " pos=" << p;
  }
  // input_pos + S == C + 1: LimitError naming the node, and nothing written.
  try {
    step(1, int32_t(C));
    FAIL() << "expected LimitError";
  } catch (const LimitError& e) {
    EXPECT_NE(std::string(e.what()).find("kv_write"), std::string::npos) << e.what();
  }
  EXPECT_THROW(step(3, int32_t(C - 2)), LimitError);
  EXPECT_THROW(step(1, -1), LimitError);
  ASSERT_EQ(exe->read_f32(cache), expect);
  // Still usable: overwrite rows 3..5.
  auto v = step(3, 3);
  ref::cache_write(expect, v, B, 3, H, D, C, 3);
  ASSERT_EQ(exe->read_f32(cache), expect);
}

TEST(KvCache, RejectsMismatchedShapes) {
  Graph g;
  ValueId val = g.input("value", DType::F32, {1, 2, 3, 4});
  ValueId cache = g.state("cache", DType::F32, {1, 8, 2, 4});
  g.op("llama.update_cache.default", {val, cache, g.int_value(0)}, "bad");
  EXPECT_THROW(ExecutableGraph::build(std::move(g), gpu()), InvalidArgument);
}
