// aten._to_copy.default (f32 <-> i32, PyTorch truncation; golden from PyTorch) and
// aten.split_with_sizes_copy.default (against slicing on the host; odd sizes, zero-size pieces, negative dim,
// live dims, bad sizes).
#include "reference/ops_a_reference.h"
#include "vision_test_util.h"

using namespace wgrt;
using wgrt::test::expect_close;
using wgrt::test::jfloats;
using wgrt::test::OneOp;
namespace ref = wgrt::test::ref;

TEST(ToCopy, FloatToIntTruncatesAsPyTorch) {
  const auto c = wgrt::test::vision_golden("misc.json")["to_copy"][0];
  const auto x = jfloats(c["x"]);
  OneOp o;
  ValueId xv = o.input({int64_t(x.size())}, x);
  o.build("aten._to_copy.default", {xv, o.g.int_value(3)}, {int64_t(x.size())}, DType::I32);
  o.run();
  EXPECT_EQ(o.exe->read_i32(o.out), c["out"].get<std::vector<int32_t>>());
}

TEST(ToCopy, IntToFloatAndIdentity) {
  Graph g;
  std::vector<int32_t> v = {-5, 0, 7, 16777217, -2147483647, 123456};
  ValueId x = g.input("x", DType::I32, {2, 3});
  ValueId f = g.tensor(DType::F32, {2, 3}, "f");
  ValueId back = g.tensor(DType::I32, {2, 3}, "back");
  ValueId same = g.tensor(DType::F32, {2, 3}, "same");
  g.op("aten._to_copy.default", {x, g.int_value(6), f});
  g.op("aten._to_copy.default", {f, g.int_value(6), same});
  g.op("aten._to_copy.default", {same, g.int_value(3), back});
  g.output(same);
  g.output(back);
  auto exe = ExecutableGraph::build(std::move(g), wgrt::test::gpu());
  exe->set_input(x, {2, 3}, std::span<const int32_t>(v));
  exe->execute();
  std::vector<float> want;
  for (int32_t i : v) want.push_back(float(i));
  EXPECT_EQ(exe->read_f32(same), want);
  std::vector<int32_t> wb;
  for (float f2 : want) wb.push_back(f2 >= 2147483647.0f ? 2147483647 : int32_t(f2));
  EXPECT_EQ(exe->read_i32(back), wb);
}

TEST(ToCopy, BadDtypeThrows) {
  wgrt::test::expect_error<InvalidArgument>([] {
    OneOp o;
    ValueId x = o.input({3}, {});
    o.build("aten._to_copy.default", {x, o.g.int_value(5)});
  }, "dtype 5");
  wgrt::test::expect_error<InvalidArgument>([] {
    OneOp o;
    ValueId x = o.input({3}, {});
    o.build("aten._to_copy.default", {x, o.g.int_value(3)});  // out f32 but int32 requested
  }, "i32");
}

TEST(SplitWithSizes, MatchesHostSlicing) {
  for (auto [d, sizes, dim] : std::vector<std::tuple<Dims, IntList, int64_t>>{
           {{5, 7, 3}, {2, 0, 4, 1}, 1}, {{9}, {9}, 0}, {{2, 3, 11}, {5, 6}, -1}, {{7, 2, 2}, {1, 1, 5}, 0}}) {
    auto x = ref::random_floats(size_t(numel(d)), 3);
    Graph g;
    ValueId xv = g.input("x", DType::F32, d);
    std::vector<ValueId> outs;
    for (size_t i = 0; i < sizes.size(); ++i) outs.push_back(g.tensor_like(DType::F32, fmt::format("out{}", i)));
    g.op("aten.split_with_sizes_copy.default", {xv, g.int_list(sizes), g.int_value(dim), g.value_list(outs)});
    for (ValueId o : outs) g.output(o);
    auto exe = ExecutableGraph::build(std::move(g), wgrt::test::gpu());
    exe->set_input(xv, d, std::span<const float>(x));
    exe->execute();
    const size_t k = size_t(dim < 0 ? dim + int64_t(d.size()) : dim);
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < k; ++i) outer *= d[i];
    for (size_t i = k + 1; i < d.size(); ++i) inner *= d[i];
    int64_t off = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      std::vector<float> want;
      for (int64_t a = 0; a < outer; ++a)
        for (int64_t s = off; s < off + sizes[i]; ++s)
          for (int64_t c = 0; c < inner; ++c) want.push_back(x[size_t((a * d[k] + s) * inner + c)]);
      Dims od = d;
      od[k] = sizes[i];
      EXPECT_EQ(exe->dims(outs[i]), od);
      expect_close(exe->read_f32(outs[i]), want, 0, 0, fmt::format("split {} piece {}", dims_str(d), i));
      off += sizes[i];
    }
  }
}

TEST(SplitWithSizes, LiveLeadingDimAndBadSizes) {
  Graph g;
  ValueId xv = g.input("x", DType::F32, {6, 5});
  ValueId a = g.tensor_like(DType::F32, "a"), b = g.tensor_like(DType::F32, "b");
  g.op("aten.split_with_sizes_copy.default", {xv, g.int_list({2, 3}), g.int_value(1), g.value_list({a, b})});
  g.output(a);
  g.output(b);
  auto exe = ExecutableGraph::build(std::move(g), wgrt::test::gpu());
  std::vector<float> x(10);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i);
  exe->set_input(xv, {2, 5}, std::span<const float>(x));
  exe->execute();
  EXPECT_EQ(exe->read_f32(a), (std::vector<float>{0, 1, 5, 6}));
  EXPECT_EQ(exe->read_f32(b), (std::vector<float>{2, 3, 4, 7, 8, 9}));
  wgrt::test::expect_error<InvalidArgument>([] {
    Graph g2;
    ValueId x2 = g2.input("x", DType::F32, {6, 5});
    ValueId o = g2.tensor_like(DType::F32, "a");
    g2.op("aten.split_with_sizes_copy.default", {x2, g2.int_list({4}), g2.int_value(1), g2.value_list({o})});
    ExecutableGraph::build(std::move(g2), wgrt::test::gpu());
  }, "sum to 4");
}
