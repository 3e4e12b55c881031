// aten.embedding.default and et_vk.embedding_q4gsw.default: lookups of any index shape, out-of-range ids
// (zeros), changing token counts, q4gsw rows decoded by the reference. Exact comparison (a lookup or one
// multiply per element: the results must be bit-identical to the reference's f32 values).
#include <gtest/gtest.h>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "ops/linear/q4gsw.h"
#include "ops_a_test_util.h"
#include "reference/ops_a_reference.h"
#include "util/half.h"

using namespace wgrt;
using wgrt::test::gpu;
namespace ref = wgrt::test::ref;

TEST(Embedding, F32AnyIndexShapeAndOutOfRangeIds) {
  const int64_t V = 37, D = 13;
  auto table = ref::random_floats(size_t(V * D), 1);
  Graph g;
  ValueId ids = g.input("ids", DType::I32, {2, 5});
  ValueId w = g.constant("emb", DType::F32, {V, D}, ConstantData::from_vector(table));
  ValueId out = g.tensor_like(DType::F32, "out");
  g.op("aten.embedding.default", {w, ids, out}, "emb");
  g.output(out);
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  std::vector<int32_t> idv = {0, 36, 5, -1, 37, 1000000, 7, 7, 2, 19};
  exe->set_input(ids, {2, 5}, std::span<const int32_t>(idv));
  exe->execute();
  EXPECT_EQ(exe->dims(out), (Dims{2, 5, D}));
  EXPECT_EQ(exe->read_f32(out), ref::embedding(table, V, D, idv));
  std::vector<int64_t> one = {12};  // decode: one token (int64 host ids)
  exe->set_input(ids, {1, 1}, std::span<const int64_t>(one));
  exe->execute();
  EXPECT_EQ(exe->dims(out), (Dims{1, 1, D}));
  EXPECT_EQ(exe->read_f32(out), ref::embedding(table, V, D, std::vector<int32_t>{12}));
}

TEST(Embedding, PyTorchSixArgumentForm) {
  const int64_t V = 5, D = 3;
  auto table = ref::random_floats(size_t(V * D), 2);
  Graph g;
  ValueId ids = g.input("ids", DType::I32, {4});
  ValueId w = g.constant("emb", DType::F32, {V, D}, ConstantData::from_vector(table));
  ValueId out = g.tensor_like(DType::F32, "out");
  g.op("aten.embedding.default", {w, ids, g.int_value(-1), g.boolean(false), g.boolean(false), out}, "emb");
  auto exe = ExecutableGraph::build(std::move(g), gpu());
  std::vector<int32_t> idv = {4, 0, 3, 3};
  exe->set_input(ids, {4}, std::span<const int32_t>(idv));
  exe->execute();
  EXPECT_EQ(exe->read_f32(out), ref::embedding(table, V, D, idv));
}

TEST(Embedding, Q4gswGroups) {
  for (int64_t G : {32, 64, 128}) {
    const int64_t V = 29, D = 256;
    auto q = ops::q4gsw_quantize(ref::random_floats(size_t(V * D), uint32_t(G)), V, D, G);
    auto table = ref::q4gsw_decode(q.qweight, q.scales, V, D, G);
    Graph g;
    ValueId ids = g.input("ids", DType::I32, {1, 9});
    ValueId qw = g.constant("qweight", DType::U32, {V, D / 8}, ConstantData::from_vector(q.qweight));
    ValueId sc = g.constant("scales", DType::F32, {V, D / G}, ConstantData::from_vector(q.scales));
    ValueId out = g.tensor_like(DType::F32, "out");
    g.op("et_vk.embedding_q4gsw.default", {qw, sc, g.int_value(G), ids, out}, "emb");
    auto exe = ExecutableGraph::build(std::move(g), gpu());
    std::vector<int32_t> idv = {28, 0, 3, -5, 29, 14, 14, 1, 27};
    exe->set_input(ids, {1, 9}, std::span<const int32_t>(idv));
    exe->execute();
    EXPECT_EQ(exe->dims(out), (Dims{1, 9, D}));
    EXPECT_EQ(exe->read_f32(out), ref::embedding(table, V, D, idv)) << "G " << G;
  }
}

TEST(Embedding, Q4gswF16Scales) {
  // f16 scales (the GGUF loader's upload), odd group counts per row (D / G = 3, 5: rows start mid-word).
  for (auto [D, G] : {std::pair<int64_t, int64_t>{96, 32}, {160, 32}, {384, 128}, {256, 64}}) {
    const int64_t V = 29;
    auto q = ops::q4gsw_quantize(ref::random_floats(size_t(V * D), uint32_t(D + G)), V, D, G);
    std::vector<uint16_t> s16;
    for (float& s : q.scales) s16.push_back(f32_to_f16(s)), s = f16_to_f32(s16.back());
    auto table = ref::q4gsw_decode(q.qweight, q.scales, V, D, G);
    Graph g;
    ValueId ids = g.input("ids", DType::I32, {1, 9});
    ValueId qw = g.constant("qweight", DType::U32, {V, D / 8}, ConstantData::from_vector(q.qweight));
    ValueId sc = g.constant("scales", DType::F16, {V, D / G}, ConstantData::from_vector(std::move(s16)));
    ValueId out = g.tensor_like(DType::F32, "out");
    g.op("et_vk.embedding_q4gsw.default", {qw, sc, g.int_value(G), ids, out}, "emb");
    auto exe = ExecutableGraph::build(std::move(g), gpu());
    std::vector<int32_t> idv = {28, 0, 3, -5, 29, 14, 13, 1, 27};
    exe->set_input(ids, {1, 9}, std::span<const int32_t>(idv));
    exe->execute();
    EXPECT_EQ(exe->read_f32(out), ref::embedding(table, V, D, idv)) << "D " << D << " G " << G;
  }
}

TEST(Embedding, BadArguments) {
  Graph g;
  ValueId ids = g.input("ids", DType::I32, {3});
  ValueId qw = g.constant("qweight", DType::U32, {4, 12}, ConstantData::from_vector(std::vector<uint32_t>(48)));
  ValueId sc = g.constant("scales", DType::F32, {4, 1}, ConstantData::from_vector(std::vector<float>(4)));
  ValueId out = g.tensor_like(DType::F32, "out");
  g.op("et_vk.embedding_q4gsw.default", {qw, sc, g.int_value(64), ids, out}, "emb");
  wgrt::test::expect_error<InvalidArgument>([&] { ExecutableGraph::build(std::move(g), gpu()); },
                                            "D = 96 must be a multiple of group_size 64");
  Graph g2;
  ValueId fids = g2.input("ids", DType::F32, {3});
  ValueId w = g2.constant("emb", DType::F32, {4, 2}, ConstantData::from_vector(std::vector<float>(8)));
  ValueId out2 = g2.tensor_like(DType::F32, "out");
  g2.op("aten.embedding.default", {w, fids, out2}, "emb");
  wgrt::test::expect_error<InvalidArgument>([&] { ExecutableGraph::build(std::move(g2), gpu()); }, "must be i32");
}
