// aten.mm / aten.bmm / aten.addmm (shared GEMM core) against the double reference and PyTorch goldens: odd
// sizes across the 64-wide tiles, bias broadcasting, beta/alpha, live M changes, bad arguments.
// Tolerance |d| <= 1e-4 + 1e-4 |ref|.
#include "reference/ops_a_reference.h"
#include "reference/vision_ref.h"
#include "vision_test_util.h"

using namespace wgrt;
using wgrt::test::expect_close;
using wgrt::test::jdims;
using wgrt::test::jfloats;
using wgrt::test::OneOp;
namespace vref = wgrt::test::vref;
namespace ref = wgrt::test::ref;

TEST(Matmul, MmAndBmmOddSizesAgainstReference) {
  uint32_t seed = 1;
  for (auto [Z, M, K, N] : std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t>>{
           {1, 1, 1, 1}, {1, 7, 5, 3}, {1, 65, 33, 129}, {3, 70, 100, 9}, {5, 1, 64, 64}, {2, 200, 17, 66}}) {
    auto a = ref::random_floats(size_t(Z * M * K), seed++), b = ref::random_floats(size_t(Z * K * N), seed++);
    OneOp o;
    const bool batched = Z > 1 || M == 1;
    ValueId av = o.input(batched ? Dims{Z, M, K} : Dims{M, K}, a);
    ValueId bv = o.input(batched ? Dims{Z, K, N} : Dims{K, N}, b);
    o.build(batched ? "aten.bmm.default" : "aten.mm.default", {av, bv});
    expect_close(o.run(), vref::bmm(a, b, Z, M, K, N), 1e-4, 1e-4, fmt::format("Z {} M {} K {} N {}", Z, M, K, N));
  }
}

TEST(Matmul, AddmmBroadcastBiasAgainstReference) {
  const int64_t M = 9, K = 70, N = 67;
  auto a = ref::random_floats(size_t(M * K), 3), b = ref::random_floats(size_t(K * N), 4);
  const auto prod = vref::bmm(a, b, 1, M, K, N);
  for (Dims bd : {Dims{N}, Dims{1, N}, Dims{M, 1}, Dims{M, N}, Dims{1}}) {
    auto bias = ref::random_floats(size_t(numel(bd)), 5);
    OneOp o;
    ValueId cv = o.constant(bd, bias);
    ValueId av = o.input({M, K}, a), bv = o.input({K, N}, b);
    o.build("aten.addmm.default", {cv, av, bv, o.g.real(0.5), o.g.real(-1.5)});
    std::vector<float> want(size_t(M * N));
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        const int64_t bm = bd.size() == 2 && bd[0] == M ? m : 0;
        const int64_t bn = bd.back() == N ? n : 0;
        const float bval = bias[size_t(bd.size() == 2 ? bm * bd[1] + bn : bn)];
        want[size_t(m * N + n)] = float(0.5 * bval - 1.5 * prod[size_t(m * N + n)]);
      }
    expect_close(o.run(), want, 1e-4, 1e-4, "addmm bias " + dims_str(bd));
  }
}

TEST(Matmul, LiveRowsChange) {
  const int64_t K = 12, N = 5;
  auto b = ref::random_floats(size_t(K * N), 8);
  OneOp o;
  ValueId av = o.input({40, K}, {});
  ValueId bv = o.constant({K, N}, b);
  o.build("aten.mm.default", {av, bv});
  for (int64_t M : {40, 3, 1, 17}) {
    o.input_dims[0].second = {M, K};
    o.input_data[0] = ref::random_floats(size_t(M * K), uint32_t(M));
    auto got = o.run();
    ASSERT_EQ(o.out_dims(), (Dims{M, N}));
    expect_close(got, vref::bmm(o.input_data[0], b, 1, M, K, N), 1e-4, 1e-4, fmt::format("M {}", M));
  }
}

TEST(Matmul, MatchesPyTorchGoldens) {
  int n = 0;
  const auto golden = wgrt::test::vision_golden("misc.json");
  for (const auto& c : golden["matmul"]) {
    OneOp o;
    std::vector<ValueId> args;
    if (c["op"] == "addmm") args.push_back(o.constant(jdims(c["bias_dims"]), jfloats(c["bias"])));
    args.push_back(o.input(jdims(c["a_dims"]), jfloats(c["a"])));
    args.push_back(o.input(jdims(c["b_dims"]), jfloats(c["b"])));
    if (c["op"] == "addmm") {
      args.push_back(o.g.real(c["beta"].get<double>()));
      args.push_back(o.g.real(c["alpha"].get<double>()));
    }
    o.build("aten." + c["op"].get<std::string>() + ".default", args);
    expect_close(o.run(), jfloats(c["out"]), 1e-4, 1e-4, fmt::format("golden {} case {}", c["op"].get<std::string>(), n++));
  }
  EXPECT_EQ(n, 5);
}

TEST(Matmul, BadArgumentsThrow) {
  using wgrt::test::expect_error;
  expect_error<InvalidArgument>([] {
    OneOp o;
    ValueId a = o.input({3, 4}, {}), b = o.input({5, 2}, {});
    o.build("aten.mm.default", {a, b});
  }, "inner dims");
  expect_error<InvalidArgument>([] {
    OneOp o;
    ValueId a = o.input({2, 3, 4}, {}), b = o.input({3, 4, 2}, {});
    o.build("aten.bmm.default", {a, b});
  }, "batch");
  expect_error<InvalidArgument>([] {
    OneOp o;
    ValueId c = o.constant({3}, {1, 2, 3});
    ValueId a = o.input({2, 4}, {}), b = o.input({4, 5}, {});
    o.build("aten.addmm.default", {c, a, b, o.g.real(1.0), o.g.real(1.0)});
  }, "broadcast");
}
