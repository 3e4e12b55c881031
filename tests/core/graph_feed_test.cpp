// ExecutableGraph::feed_input (a GPU copy into an input at the start of the next execute) and read_i32_async
// (a read-back queued behind the executes before it), the pieces of the GPU-resident decode loop; and
// submit chunking (Tuning::submit_chunk) giving the same values as one submit. A small decode-like graph:
// logits input -> wgrt.argmax_checked -> next [1]; tokens input [1, S] -> aten.embedding -> rows [1, S, D].
// Expected values are exact (an argmax and table lookups).
#include <gtest/gtest.h>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "wgrt/error.h"

using namespace wgrt;
using wgrt::test::gpu;

namespace {

constexpr int64_t V = 37, D = 5;  // odd sizes

struct DecodeLike {
  ValueId logits, tokens, next, rows;
  std::unique_ptr<ExecutableGraph> exe;
  std::vector<float> table;
};

DecodeLike build(webgpu::Device& dev) {
  DecodeLike d;
  Graph g;
  d.logits = g.input("logits", DType::F32, {1, V});
  d.tokens = g.input("tokens", DType::I32, {1, 3});
  for (int64_t i = 0; i < V * D; ++i) d.table.push_back(float(i) * 0.5f - 3.0f);
  ValueId w = g.constant("table", DType::F32, {V, D}, ConstantData::from_vector(d.table));
  d.next = g.tensor(DType::I32, {1}, "next");
  d.rows = g.tensor_like(DType::F32, "rows");
  g.op("wgrt.argmax_checked.default", {d.logits, g.int_value(-1), g.boolean(false), d.next}, "argmax");
  g.op("aten.embedding.default", {w, d.tokens, d.rows}, "emb");
  g.output(d.next);
  g.output(d.rows);
  d.exe = ExecutableGraph::build(std::move(g), dev);
  return d;
}

std::vector<float> one_hot(int64_t at) {
  std::vector<float> v(size_t(V), -1.0f);
  v[size_t(at)] = 2.0f;
  return v;
}

std::vector<float> row(const DecodeLike& d, int64_t id) {
  return std::vector<float>(d.table.begin() + id * D, d.table.begin() + (id + 1) * D);
}

}  // namespace

TEST(GraphFeed, ArgmaxFeedsTheNextTokenOnTheGpu) {
  DecodeLike d = build(gpu());
  // Step 1: argmax at 17, token 0 from the host.
  std::vector<float> l = one_hot(17);
  std::vector<int32_t> t0 = {0};
  d.exe->set_input(d.logits, {1, V}, std::span<const float>(l));
  d.exe->set_input(d.tokens, {1, 1}, std::span<const int32_t>(t0));
  d.exe->execute();
  PendingRead r1 = d.exe->read_i32_async(d.next);
  // Step 2: the token is step 1's argmax (17), copied on the GPU; the new argmax (36, the last id) is read
  // later, while step 1's read must still see 17.
  l = one_hot(V - 1);
  d.exe->set_input(d.logits, {1, V}, std::span<const float>(l));
  d.exe->feed_input(d.tokens, {1, 1}, d.next);
  d.exe->execute();
  PendingRead r2 = d.exe->read_i32_async(d.next);
  // Step 3: fed again (token 36), argmax 0.
  l = one_hot(0);
  d.exe->set_input(d.logits, {1, V}, std::span<const float>(l));
  d.exe->feed_input(d.tokens, {1, 1}, d.next);
  d.exe->execute();
  EXPECT_EQ(d.exe->read_f32(d.rows), row(d, V - 1));
  EXPECT_EQ(r2.wait(), std::vector<int32_t>{V - 1});
  EXPECT_EQ(r1.wait(), std::vector<int32_t>{17});
  EXPECT_THROW(r1.wait(), InvalidArgument);  // waited once already
  // Back to host tokens and a longer live length: the feed is one-shot.
  std::vector<int32_t> t3 = {3, 36, 1};
  d.exe->set_input(d.tokens, {1, 3}, std::span<const int32_t>(t3));
  d.exe->execute();
  std::vector<float> want;
  for (int32_t t : t3) for (float x : row(d, t)) want.push_back(x);
  EXPECT_EQ(d.exe->read_f32(d.rows), want);
  EXPECT_EQ(d.exe->read_i32_async(d.next).wait(), std::vector<int32_t>{0});
}

TEST(GraphFeed, NonFiniteLogitsReadBackAsMinusOne) {
  DecodeLike d = build(gpu());
  std::vector<float> l = one_hot(4);
  l[9] = std::numeric_limits<float>::quiet_NaN();
  std::vector<int32_t> t0 = {2};
  d.exe->set_input(d.logits, {1, V}, std::span<const float>(l));
  d.exe->set_input(d.tokens, {1, 1}, std::span<const int32_t>(t0));
  d.exe->execute();
  EXPECT_EQ(d.exe->read_i32_async(d.next).wait(), std::vector<int32_t>{-1});
}

TEST(GraphFeed, BadFeedsAreClearErrorsAndChangeNothing) {
  DecodeLike d = build(gpu());
  EXPECT_THROW(d.exe->feed_input(d.logits, {1, V}, d.next), InvalidArgument);   // i32 into f32
  EXPECT_THROW(d.exe->feed_input(d.next, {1}, d.next), InvalidArgument);        // not an input
  EXPECT_THROW(d.exe->feed_input(d.tokens, {1, 2}, d.next), InvalidArgument);   // 8 bytes from 4
  EXPECT_THROW(d.exe->feed_input(d.tokens, {1, 4}, d.next), LimitError);        // beyond the max dims
  EXPECT_THROW(d.exe->feed_input(d.tokens, {3}, d.next), InvalidArgument);      // rank
  EXPECT_THROW(d.exe->read_i32_async(d.rows), InvalidArgument);                 // f32
  // Still usable, with the input's dims unchanged by the failed feeds.
  std::vector<float> l = one_hot(5);
  std::vector<int32_t> t = {7, 8};
  d.exe->set_input(d.logits, {1, V}, std::span<const float>(l));
  d.exe->set_input(d.tokens, {1, 2}, std::span<const int32_t>(t));
  d.exe->execute();
  EXPECT_EQ(d.exe->dims(d.rows), (Dims{1, 2, D}));
  EXPECT_EQ(d.exe->read_i32(d.next), std::vector<int32_t>{5});
}

TEST(GraphFeed, SubmitChunksGiveTheSameValues) {
  // One dispatch per submit, and a chunk longer than the graph, against one submit.
  for (uint32_t chunk : {1u, 2u, 1000u}) {
    webgpu::Tuning tu = gpu().tuning();
    tu.submit_chunk = chunk;
    webgpu::ScopedTuning scoped(gpu(), tu);
    DecodeLike d = build(gpu());
    std::vector<float> l = one_hot(30);
    std::vector<int32_t> t = {30, 0, 36};
    d.exe->set_input(d.logits, {1, V}, std::span<const float>(l));
    d.exe->set_input(d.tokens, {1, 3}, std::span<const int32_t>(t));
    d.exe->execute();
    d.exe->feed_input(d.tokens, {1, 1}, d.next);
    d.exe->execute();
    EXPECT_EQ(d.exe->read_f32(d.rows), row(d, 30)) << "chunk " << chunk;
    EXPECT_EQ(d.exe->read_i32(d.next), std::vector<int32_t>{30}) << "chunk " << chunk;
  }
}
