// aten.convolution.default with transposed = true (conv_transpose.wgsl, a gather per output) against a plain
// C++ scatter reference written here (each input pixel adds its weighted kernel into the output: the
// definition, not the kernel's gather form), odd sizes, stride, padding, dilation, groups, output_padding,
// bias; the gather kernel visits only the taps that reach an output (dilation 1): kernel 5 x 3 with stride 2
// (taps r, r + 2, r + 4), kernel < stride. Kernel == stride without padding (conv_transpose_phase.wgsl, checked
// as routed): 2x2 with 24 -> 5 channels (a partial block of 4), groups 3, 3x3 with 2 images, 4x4 (16 taps),
// 1x1; 5x5 (25 taps) and output_padding 1 take the gather kernel. Tolerance |d| <= 1e-4 + 1e-4 |ref|.
#include "reference/ops_a_reference.h"
#include "vision_test_util.h"

using namespace wgrt;
using wgrt::test::expect_close;
using wgrt::test::OneOp;

namespace {

struct ConvT {
  int64_t N, C, H, W, O, kh, kw, s = 1, p = 0, d = 1, groups = 1, op = 0;
  int64_t OH() const { return (H - 1) * s - 2 * p + d * (kh - 1) + op + 1; }
  int64_t OW() const { return (W - 1) * s - 2 * p + d * (kw - 1) + op + 1; }
};

std::vector<float> conv_t_ref(const ConvT& c, const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& b) {
  const int64_t OH = c.OH(), OW = c.OW(), cpg = c.C / c.groups, opg = c.O / c.groups;
  std::vector<double> out(size_t(c.N * c.O * OH * OW), 0.0);
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t ci = 0; ci < c.C; ++ci)
      for (int64_t iy = 0; iy < c.H; ++iy)
        for (int64_t ix = 0; ix < c.W; ++ix) {
          const double v = x[size_t(((n * c.C + ci) * c.H + iy) * c.W + ix)];
          const int64_t g = ci / cpg;
          for (int64_t ol = 0; ol < opg; ++ol)
            for (int64_t ky = 0; ky < c.kh; ++ky)
              for (int64_t kx = 0; kx < c.kw; ++kx) {
                const int64_t oy = iy * c.s - c.p + ky * c.d, ox = ix * c.s - c.p + kx * c.d;
                if (oy < 0 || oy >= OH || ox < 0 || ox >= OW) continue;
                const int64_t o = g * opg + ol;
                out[size_t(((n * c.O + o) * OH + oy) * OW + ox)] += v * w[size_t(((ci * opg + ol) * c.kh + ky) * c.kw + kx)];
              }
        }
  std::vector<float> r(out.size());
  for (size_t i = 0; i < r.size(); ++i) r[i] = float(out[i] + (b.empty() ? 0.0 : b[(i / size_t(OH * OW)) % size_t(c.O)]));
  return r;
}

void check(const ConvT& c, uint32_t seed, bool bias) {
  auto x = wgrt::test::ref::random_floats(size_t(c.N * c.C * c.H * c.W), seed);
  auto w = wgrt::test::ref::random_floats(size_t(c.C * (c.O / c.groups) * c.kh * c.kw), seed + 1);
  std::vector<float> b = bias ? wgrt::test::ref::random_floats(size_t(c.O), seed + 2) : std::vector<float>{};
  OneOp o;
  ValueId xi = o.input({c.N, c.C, c.H, c.W}, x);
  ValueId wi = o.constant({c.C, c.O / c.groups, c.kh, c.kw}, w);
  ValueId bi = bias ? o.constant({c.O}, b) : o.g.none();
  Graph& g = o.g;
  o.build("aten.convolution.default", {xi, wi, bi, g.int_list({c.s}), g.int_list({c.p}), g.int_list({c.d}), g.boolean(true),
                                       g.int_list({c.op}), g.int_value(c.groups)});
  auto got = o.run();
  // kernel == stride, no padding or output_padding, dilation 1, kh*kw <= 16: the phase kernel (conv.cpp).
  const bool phase = c.kh == c.s && c.kw == c.s && c.p == 0 && c.op == 0 && (c.d == 1 || c.s == 1) && c.kh * c.kw <= 16;
  const std::string dump = o.exe->dump();
  EXPECT_EQ(dump.find("conv_transpose_phase.wgsl") != std::string::npos, phase) << dump;
  EXPECT_EQ(o.out_dims(), (Dims{c.N, c.O, c.OH(), c.OW()}));
  expect_close(got, conv_t_ref(c, x, w, b), 1e-4, 1e-4,
               fmt::format("conv_t N{} C{} {}x{} O{} k{}x{} s{} p{} d{} g{} op{}", c.N, c.C, c.H, c.W, c.O, c.kh, c.kw, c.s, c.p, c.d, c.groups, c.op));
}

}  // namespace

TEST(ConvTranspose2d, OddSizesAgainstScatterReference) {
  uint32_t seed = 100;
  for (ConvT c : {ConvT{1, 3, 5, 7, 4, 2, 2, 2}, ConvT{2, 5, 3, 4, 3, 3, 3, 1, 1}, ConvT{1, 4, 6, 5, 6, 3, 2, 2, 1, 1, 2},
                  ConvT{1, 6, 7, 3, 9, 3, 3, 3, 1, 2, 3, 1}, ConvT{1, 2, 9, 9, 2, 4, 4, 2, 1, 1, 2, 1},
                  ConvT{1, 1, 1, 1, 1, 1, 1}, ConvT{1, 7, 11, 13, 5, 5, 3, 1, 2}, ConvT{2, 3, 6, 5, 4, 5, 3, 2, 2},
                  ConvT{1, 24, 9, 7, 5, 2, 2, 2}, ConvT{1, 6, 5, 4, 9, 2, 2, 2, 0, 1, 3}, ConvT{2, 4, 3, 5, 6, 3, 3, 3},
                  ConvT{1, 3, 4, 3, 2, 4, 4, 4, 0, 1, 1}, ConvT{1, 2, 3, 3, 2, 5, 5, 5}, ConvT{1, 3, 4, 4, 5, 2, 2, 2, 0, 1, 1, 1}}) {
    check(c, seed, seed % 2 == 0);
    seed += 3;
  }
}
