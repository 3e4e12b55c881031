// et_vk.sdpa.default (non-causal) against the double reference and PyTorch goldens: both routes (GEMM +
// softmax chunks, split-K), Sq != Skv, Dv != D, broadcast masks with -inf (fully masked rows give 0, no NaN),
// channel-attention shapes (B*H*Sq = 96, Skv = 4096), chunking over query rows under a small scratch bound,
// live size changes, a softmax grid past 65,535 workgroups (folded), bad arguments.
// Tolerance |d| <= 2e-5 + 1e-4 |ref|.
#include <cmath>
#include <limits>

#include "webgpu/device.h"
#include "reference/ops_a_reference.h"
#include "reference/vision_ref.h"
#include "vision_test_util.h"

using namespace wgrt;
using wgrt::test::expect_close;
using wgrt::test::gpu;
using wgrt::test::jdims;
using wgrt::test::jfloats;
using wgrt::test::OneOp;
namespace vref = wgrt::test::vref;
namespace ref = wgrt::test::ref;

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

struct Shape {
  int64_t B, H, Sq, Skv, D, Dv;
};

// Sets the encoder-attention route and scratch bound of the device's tuning policy (read at build); the policy
// is restored afterwards.
struct RouteGuard {
  webgpu::ScopedTuning keep{gpu(), gpu().tuning()};
  void route(webgpu::SdpaEncoderRoute r) {
    webgpu::Tuning t = gpu().tuning();
    t.sdpa_encoder_route = r;
    gpu().set_tuning(t);
  }
  void score_bytes(uint64_t n) {
    webgpu::Tuning t = gpu().tuning();
    t.sdpa_encoder_score_bytes = n;
    gpu().set_tuning(t);
  }
};

std::unique_ptr<OneOp> make_sdpa(const Shape& s, const Dims& mask_dims, double scale = -1) {
  auto o = std::make_unique<OneOp>();
  ValueId q = o->input({s.B, s.H, s.Sq, s.D}, {});
  ValueId k = o->input({s.B, s.H, s.Skv, s.D}, {});
  ValueId v = o->input({s.B, s.H, s.Skv, s.Dv}, {});
  ValueId m = mask_dims.empty() ? o->g.none() : o->input(mask_dims, {});
  o->build("et_vk.sdpa.default", {q, k, v, m, scale < 0 ? o->g.none() : o->g.real(scale)});
  return o;
}

// Expands a mask of dims md (rank <= 4, broadcastable) to [B, H, Sq, Skv].
std::vector<float> expand_mask(const std::vector<float>& m, Dims md, const Shape& s) {
  while (md.size() < 4) md.insert(md.begin(), 1);
  std::vector<float> out;
  for (int64_t b = 0; b < s.B; ++b)
    for (int64_t h = 0; h < s.H; ++h)
      for (int64_t i = 0; i < s.Sq; ++i)
        for (int64_t j = 0; j < s.Skv; ++j) {
          const int64_t c[4] = {b, h, i, j};
          int64_t idx = 0;
          for (int k = 0; k < 4; ++k) idx = idx * md[size_t(k)] + (md[size_t(k)] == 1 ? 0 : c[k]);
          out.push_back(m[size_t(idx)]);
        }
  return out;
}

// Random additive mask: values in [-1, 1), about 30% -inf, and the first row of the mask fully -inf.
std::vector<float> random_mask(const Dims& md, uint32_t seed) {
  auto m = ref::random_floats(size_t(numel(md)), seed);
  auto r = ref::random_floats(m.size(), seed + 100, 0.0f, 1.0f);
  for (size_t i = 0; i < m.size(); ++i)
    if (r[i] < 0.3f) m[i] = kNegInf;
  for (int64_t j = 0; j < md.back(); ++j) m[size_t(j)] = kNegInf;
  return m;
}

void check(OneOp& o, const Shape& s, const Dims& md, uint32_t seed, double scale, const std::string& what) {
  auto q = ref::random_floats(size_t(s.B * s.H * s.Sq * s.D), seed, -2.0f, 2.0f);
  auto k = ref::random_floats(size_t(s.B * s.H * s.Skv * s.D), seed + 1, -2.0f, 2.0f);
  auto v = ref::random_floats(size_t(s.B * s.H * s.Skv * s.Dv), seed + 2);
  o.input_dims[0].second = {s.B, s.H, s.Sq, s.D};
  o.input_dims[1].second = {s.B, s.H, s.Skv, s.D};
  o.input_dims[2].second = {s.B, s.H, s.Skv, s.Dv};
  o.input_data[0] = q;
  o.input_data[1] = k;
  o.input_data[2] = v;
  std::vector<float> full;
  if (!md.empty()) {
    auto m = random_mask(md, seed + 3);
    o.input_dims[3].second = md;
    o.input_data[3] = m;
    full = expand_mask(m, md, s);
  }
  auto got = o.run();
  ASSERT_EQ(o.out_dims(), (Dims{s.B, s.H, s.Sq, s.Dv})) << what;
  for (float g : got) ASSERT_FALSE(std::isnan(g)) << what;
  const double sc = scale < 0 ? 1.0 / std::sqrt(double(s.D)) : scale;
  expect_close(got, vref::sdpa(q, k, v, full, s.B * s.H, s.Sq, s.Skv, s.D, s.Dv, sc), 2e-5, 1e-4, what);
}

}  // namespace

TEST(SdpaEncoder, BothRoutesAgainstReferenceWithMasks) {
  RouteGuard guard;
  uint32_t seed = 1;
  const std::vector<std::pair<Shape, Dims>> cases = {
      {{1, 1, 1, 1, 1, 1}, {}},
      {{2, 3, 5, 9, 8, 8}, {2, 1, 5, 9}},
      {{1, 2, 70, 33, 16, 5}, {70, 33}},
      {{2, 2, 17, 65, 64, 64}, {2, 1, 1, 65}},
      {{1, 4, 50, 50, 32, 32}, {1, 4, 50, 50}},
      {{1, 3, 9, 300, 12, 12}, {}},
  };
  for (auto route : {webgpu::SdpaEncoderRoute::Gemm, webgpu::SdpaEncoderRoute::Split, webgpu::SdpaEncoderRoute::Auto}) {
    guard.route(route);
    for (const auto& [s, md] : cases) {
      auto o = make_sdpa(s, md, s.D == 16 ? 0.37 : -1);
      check(*o, s, md, seed++, s.D == 16 ? 0.37 : -1,
            fmt::format("route {} B{} H{} Sq{} Skv{} D{} Dv{} mask {}", int(route), s.B, s.H, s.Sq, s.Skv, s.D, s.Dv,
                        dims_str(md)));
    }
  }
}

TEST(SdpaEncoder, FullyMaskedRowsGiveZeros) {
  RouteGuard guard;
  for (auto route : {webgpu::SdpaEncoderRoute::Gemm, webgpu::SdpaEncoderRoute::Split}) {
    guard.route(route);
    Shape s{1, 2, 3, 4, 4, 4};
    auto o = make_sdpa(s, {1, 1, 3, 4});
    o->input_data[0] = ref::random_floats(24, 1);
    o->input_data[1] = ref::random_floats(32, 2);
    o->input_data[2] = ref::random_floats(32, 3);
    o->input_data[3] = {kNegInf, kNegInf, kNegInf, kNegInf, 0, kNegInf, kNegInf, kNegInf, kNegInf, kNegInf, kNegInf, kNegInf};
    auto got = o->run();
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t i : {0, 2})
        for (int64_t d = 0; d < 4; ++d) EXPECT_EQ(got[size_t((h * 3 + i) * 4 + d)], 0.0f) << "route " << int(route);
    // Row 1 sees only key 0: the output is v[h, 0].
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t d = 0; d < 4; ++d)
        EXPECT_FLOAT_EQ(got[size_t((h * 3 + 1) * 4 + d)], o->input_data[2][size_t(h * 16 + d)]);
  }
}

TEST(SdpaEncoder, ChannelAttentionShapeUsesSplitRoute) {
  RouteGuard guard;
  // B*H*Sq = 96 query rows over 4096 keys.
  Shape s{2, 4, 12, 4096, 32, 32};
  auto o = make_sdpa(s, {2, 1, 1, 4096});
  check(*o, s, {2, 1, 1, 4096}, 50, -1, "channel attention (auto)");
  // The auto route picked split-K: 2 dispatches active (the GEMM route would have 3 per chunk).
  EXPECT_EQ(o->exe->dispatch_count(true), 2u);
  guard.route(webgpu::SdpaEncoderRoute::Gemm);
  auto g = make_sdpa(s, {});
  check(*g, s, {}, 60, -1, "channel attention (GEMM route)");
}

TEST(SdpaEncoder, ChunksOverQueryRowsUnderSmallScratchBound) {
  RouteGuard guard;
  guard.route(webgpu::SdpaEncoderRoute::Gemm);
  guard.score_bytes(4096);  // 1 head x 37 keys x 4 B = 148 B per row: 27 rows per chunk
  Shape s{1, 1, 100, 37, 8, 8};
  auto o = make_sdpa(s, {1, 1, 100, 37});
  EXPECT_EQ(o->exe->dispatch_count(false), 3u * 4u);  // ceil(100 / 27) = 4 chunks of 3 dispatches
  check(*o, s, {1, 1, 100, 37}, 70, -1, "chunked");
  for (int64_t sq : {1, 28, 55}) {
    Shape l = s;
    l.Sq = sq;
    l.Skv = sq % 37 + 1;
    check(*o, l, {1, 1, sq, l.Skv}, uint32_t(80 + sq), -1, fmt::format("chunked live Sq {} Skv {}", sq, l.Skv));
  }
}

TEST(SdpaEncoder, SoftmaxGridPast65535WorkgroupsFolds) {
  RouteGuard guard;
  Shape s{1, 2, 33000, 3, 4, 4};  // 66,000 query rows: one softmax workgroup each
  auto o = make_sdpa(s, {});
  check(*o, s, {}, 90, -1, "66000 rows");
}

TEST(SdpaEncoder, MatchesPyTorchGoldens) {
  int n = 0;
  for (const auto& c : wgrt::test::vision_golden("sdpa.json")) {
    const Dims qd = jdims(c["q_dims"]), kd = jdims(c["k_dims"]), vd = jdims(c["v_dims"]), md = jdims(c["mask_dims"]);
    const double scale = c["scale"].is_null() ? -1 : c["scale"].get<double>();
    for (auto route : {webgpu::SdpaEncoderRoute::Gemm, webgpu::SdpaEncoderRoute::Split}) {
      RouteGuard guard;
      guard.route(route);
      auto o = make_sdpa({qd[0], qd[1], qd[2], kd[2], qd[3], vd[3]}, md, scale);
      o->input_data[0] = jfloats(c["q"]);
      o->input_data[1] = jfloats(c["k"]);
      o->input_data[2] = jfloats(c["v"]);
      if (!md.empty()) o->input_data[3] = jfloats(c["mask"]);
      expect_close(o->run(), jfloats(c["out"]), 2e-5, 1e-4, fmt::format("golden sdpa {} route {}", n, int(route)));
    }
    ++n;
  }
  EXPECT_EQ(n, 2);
}

TEST(SdpaEncoder, BadArgumentsThrow) {
  using wgrt::test::expect_error;
  expect_error<InvalidArgument>([] { make_sdpa({1, 2, 3, 4, 8, 8}, {1, 3, 3, 4}); }, "does not broadcast");
  expect_error<InvalidArgument>([] {
    OneOp o;
    ValueId q = o.input({1, 2, 3, 8}, {}), k = o.input({1, 2, 4, 7}, {}), v = o.input({1, 2, 4, 8}, {});
    o.build("et_vk.sdpa.default", {q, k, v, o.g.none(), o.g.none()});
  }, "k 'in1'");
}

// wgrt.sdpa_qkv: q, k, v read in place from a packed [B, S, 3, H, D] projection and the output written as [B, S, H,
// D], under each GEMM kernel (the two-level (b, h) batch of the GEMMs), against the double reference on the
// unpacked heads; one graph at smaller live B and S; bad arguments.
TEST(SdpaEncoder, PackedQkvAgainstReference) {
  struct Case {
    int64_t B, S, H, D;
    double scale;
  };
  auto run_case = [](OneOp& o, const Case& c, uint32_t seed) {
    const int64_t hd = c.H * c.D;
    auto x = ref::random_floats(size_t(c.B * c.S * 3 * hd), seed, -2.0f, 2.0f);
    std::vector<float> q, k, v;  // [B, H, S, D]
    for (int j = 0; j < 3; ++j)
      for (int64_t b = 0; b < c.B; ++b)
        for (int64_t h = 0; h < c.H; ++h)
          for (int64_t s = 0; s < c.S; ++s)
            for (int64_t d = 0; d < c.D; ++d)
              (j == 0 ? q : j == 1 ? k : v).push_back(x[size_t(((b * c.S + s) * 3 + j) * hd + h * c.D + d)]);
    const double sc = c.scale < 0 ? 1.0 / std::sqrt(double(c.D)) : c.scale;
    const auto heads = vref::sdpa(q, k, v, {}, c.B * c.H, c.S, c.S, c.D, c.D, sc);
    std::vector<float> want(heads.size());
    for (int64_t b = 0; b < c.B; ++b)
      for (int64_t h = 0; h < c.H; ++h)
        for (int64_t s = 0; s < c.S; ++s)
          for (int64_t d = 0; d < c.D; ++d)
            want[size_t((b * c.S + s) * hd + h * c.D + d)] = heads[size_t(((b * c.H + h) * c.S + s) * c.D + d)];
    o.input_dims[0].second = {c.B, c.S, 3 * hd};
    o.input_data[0] = x;
    const auto got = o.run();
    ASSERT_EQ(o.out_dims(), (Dims{c.B, c.S, hd}));
    expect_close(got, want, 2e-5, 1e-4, fmt::format("B{} S{} H{} D{} scale {}", c.B, c.S, c.H, c.D, c.scale));
  };
  auto make = [](const Case& c) {
    auto o = std::make_unique<OneOp>();
    ValueId x = o->input({c.B, c.S, 3 * c.H * c.D}, {});
    o->build("wgrt.sdpa_qkv.default", {x, o->g.int_value(c.H), c.scale < 0 ? o->g.none() : o->g.real(c.scale)});
    return o;
  };
  wgrt::test::for_each_gemm_kernel([&] {
    uint32_t seed = 300;
    for (const Case& c : std::vector<Case>{{1, 1, 1, 1, -1}, {2, 5, 3, 8, -1}, {3, 70, 2, 16, 0.37}, {2, 67, 4, 12, -1}}) {
      auto o = make(c);
      run_case(*o, c, seed++);
    }
    auto o = make({3, 70, 2, 16, 0.37});  // built at B 3, S 70; run smaller
    run_case(*o, {1, 33, 2, 16, 0.37}, seed++);
    run_case(*o, {2, 1, 2, 16, 0.37}, seed++);
  });
  using wgrt::test::expect_error;
  expect_error<InvalidArgument>([] {
    OneOp o;
    ValueId x = o.input({1, 4, 20}, {});
    o.build("wgrt.sdpa_qkv.default", {x, o.g.int_value(3), o.g.none()});
  }, "3 * heads * head dim");
}
