// The ViT encoder graph (src/models/vit_graph) against PyTorch: two small configs (class token + erf GELU,
// batch 1; no class token + tanh GELU, batch 2) with deterministic xorshift weights that
// tests/golden/make_goldens_vision.py generates identically; the PyTorch forward runs in float64.
// Tolerance |d| <= 2e-5 + 1e-4 |ref| (f32 through 2 blocks and 3 LayerNorms; observed max |d| 2.2e-6). Also config validation errors
// and the size bookkeeping of the ViT-B/16 and SigLIP-So400m configs.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <cmath>
#include <fstream>

#include "gpu_fixture.h"
#include "graph/executable.h"
#include "models/vit_graph.h"
#include "support/paths.h"
#include "wgrt/error.h"

using namespace wgrt;
using models::VitConfig;

namespace {

// Reimplements make_goldens_vision.py's xorshift_stream: u in [-1, 1) on a 2^-23 grid.
std::vector<float> xorshift_stream(uint32_t seed, size_t n) {
  uint32_t x = seed * 2654435761u | 1u;
  std::vector<float> v(n);
  for (float& e : v) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    e = float(double(x >> 8) * (1.0 / 16777216.0) * 2.0 - 1.0);
  }
  return v;
}

models::VitWeights golden_weights(const VitConfig& c) {
  models::VitWeights w;
  uint32_t i = 0;
  for (const auto& [name, dims] : models::vit_weight_shapes(c)) {
    auto u = xorshift_stream(1000 + i++, size_t(numel(dims)));
    const bool ln = name.find("norm") != std::string::npos && name.ends_with(".weight");
    for (float& e : u) e = ln ? 1.0f + e * 0.25f : e * 0.125f;
    w.emplace(name, std::move(u));
  }
  return w;
}

}  // namespace

TEST(VitGraph, SmallConfigsMatchPyTorch) {
  std::ifstream f(test::source_path("tests/golden/vision/vit.json"));
  ASSERT_TRUE(f.good());
  const auto cases = nlohmann::json::parse(f);
  ASSERT_EQ(cases.size(), 2u);
  for (const auto& cs : cases) {
    const auto& j = cs["config"];
    VitConfig c;
    c.image_size = j["image"];
    c.patch = j["patch"];
    c.width = j["width"];
    c.depth = j["depth"];
    c.heads = j["heads"];
    c.mlp_dim = j["mlp"];
    c.class_token = j["class_token"];
    c.gelu = j["gelu"];
    c.ln_eps = j["eps"];
    const int64_t B = j["batch"];
    auto vg = models::build_vit_graph(c, golden_weights(c), B);
    const ValueId px = vg.pixels, feat = vg.features;
    auto exe = ExecutableGraph::build(std::move(vg.graph), test::gpu());
    auto pixels = xorshift_stream(cs["pixel_seed"].get<uint32_t>(), size_t(B * 3 * c.image_size * c.image_size));
    exe->set_input(px, {B, 3, c.image_size, c.image_size}, std::span<const float>(pixels));
    exe->execute();
    EXPECT_EQ(exe->dims(feat), (Dims{B, c.tokens(), c.width}));
    EXPECT_EQ(exe->dims(feat), cs["out_dims"].get<Dims>());
    const auto got = exe->read_f32(feat);
    const auto want = cs["out"].get<std::vector<float>>();
    ASSERT_EQ(got.size(), want.size());
    double worst = 0;
    int bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const double d = std::fabs(double(got[i]) - want[i]);
      worst = std::max(worst, d);
      if (!(d <= 2e-5 + 1e-4 * std::fabs(want[i])) && ++bad <= 5)
        ADD_FAILURE() << "element " << i << " got " << got[i] << " want " << want[i];
    }
    EXPECT_EQ(bad, 0);
    RecordProperty(fmt::format("max_abs_err_{}", c.width), fmt::format("{:.3g}", worst));
  }
}

TEST(VitGraph, ConfigsAndValidation) {
  const VitConfig b16 = VitConfig::vit_b16(), so = VitConfig::siglip_so400m();
  EXPECT_EQ(b16.tokens(), 197);
  EXPECT_EQ(so.tokens(), 729);
  EXPECT_EQ(so.width / so.heads, 72);
  int64_t params = 0;
  for (const auto& [n, d] : models::vit_weight_shapes(b16)) params += numel(d);
  EXPECT_EQ(params, 86567656 - 768 * 1000 - 1000);  // timm vit_base_patch16_224: 86,567,656 with the 1000-class head
  VitConfig bad = b16;
  bad.image_size = 15;  // smaller than the patch (a non-multiple such as SigLIP's 384 / 14 is fine: floor)
  EXPECT_THROW(bad.validate(), InvalidArgument);
  EXPECT_NO_THROW(so.validate());
  bad.image_size = 225;
  EXPECT_NO_THROW(bad.validate());
  EXPECT_EQ(bad.tokens(), 197);
  bad = b16;
  bad.heads = 7;
  EXPECT_THROW(bad.validate(), InvalidArgument);
  bad = b16;
  bad.gelu = "fast";
  EXPECT_THROW(bad.validate(), InvalidArgument);
  VitConfig tiny;
  tiny.image_size = 16;
  tiny.patch = 8;
  tiny.width = 8;
  tiny.depth = 1;
  tiny.heads = 2;
  tiny.mlp_dim = 16;
  auto w = models::vit_random_weights(tiny, 1);
  w.erase("blocks.0.mlp.fc1.bias");
  try {
    models::build_vit_graph(tiny, w, 1);
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("blocks.0.mlp.fc1.bias"), std::string::npos) << e.what();
  }
}
