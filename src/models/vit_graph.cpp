#include "models/vit_graph.h"

#include <fmt/format.h>

#include <cmath>

#include "wgrt/error.h"

namespace wgrt::models {

void VitConfig::validate() const {
  auto pos = [](int64_t v, const char* f) {
    if (v <= 0 || v > (int64_t(1) << 20)) throw InvalidArgument(fmt::format("ViT config: {} = {} must be in [1, 2^20]", f, v));
  };
  pos(image_size, "image_size");
  pos(patch, "patch");
  pos(channels, "channels");
  pos(width, "width");
  pos(depth, "depth");
  pos(heads, "heads");
  pos(mlp_dim, "mlp_dim");
  if (image_size < patch) throw InvalidArgument(fmt::format("ViT config: image_size {} is smaller than patch {}", image_size, patch));
  if (width % heads) throw InvalidArgument(fmt::format("ViT config: width {} is not a multiple of heads {}", width, heads));
  if (gelu != "none" && gelu != "tanh") throw InvalidArgument(fmt::format("ViT config: gelu '{}' must be 'none' or 'tanh'", gelu));
  if (!(ln_eps >= 0)) throw InvalidArgument("ViT config: ln_eps must be >= 0");
}

VitConfig VitConfig::vit_b16() { return VitConfig{}; }

VitConfig VitConfig::siglip_so400m() {
  VitConfig c;
  c.image_size = 384;
  c.patch = 14;
  c.width = 1152;
  c.depth = 27;
  c.heads = 16;
  c.mlp_dim = 4304;
  c.class_token = false;
  c.gelu = "tanh";
  return c;
}

std::vector<std::pair<std::string, Dims>> vit_weight_shapes(const VitConfig& c) {
  const int64_t W = c.width, M = c.mlp_dim, p = c.patch;
  std::vector<std::pair<std::string, Dims>> s = {{"patch_embed.proj.weight", {W, c.channels, p, p}}, {"patch_embed.proj.bias", {W}}};
  if (c.class_token) s.push_back({"cls_token", {1, 1, W}});
  s.push_back({"pos_embed", {1, c.tokens(), W}});
  for (int64_t i = 0; i < c.depth; ++i) {
    const std::string b = fmt::format("blocks.{}.", i);
    s.insert(s.end(), {{b + "norm1.weight", {W}}, {b + "norm1.bias", {W}}, {b + "attn.qkv.weight", {3 * W, W}},
                       {b + "attn.qkv.bias", {3 * W}}, {b + "attn.proj.weight", {W, W}}, {b + "attn.proj.bias", {W}},
                       {b + "norm2.weight", {W}}, {b + "norm2.bias", {W}}, {b + "mlp.fc1.weight", {M, W}},
                       {b + "mlp.fc1.bias", {M}}, {b + "mlp.fc2.weight", {W, M}}, {b + "mlp.fc2.bias", {W}}});
  }
  s.push_back({"norm.weight", {W}});
  s.push_back({"norm.bias", {W}});
  return s;
}

VitWeights vit_random_weights(const VitConfig& c, uint32_t seed) {
  VitWeights w;
  uint32_t x = seed * 2654435761u | 1u;
  for (const auto& [name, dims] : vit_weight_shapes(c)) {
    const bool ln = name.find("norm") != std::string::npos && name.ends_with(".weight");
    const bool matrix = dims.size() >= 2 && name != "pos_embed" && name != "cls_token";
    const float scale = matrix ? float(1.0 / std::sqrt(double(numel(dims) / dims[0]))) : 0.02f;
    std::vector<float> v(static_cast<size_t>(numel(dims)));
    for (float& e : v) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      const float u = float(x >> 8) * (2.0f / 16777216.0f) - 1.0f;
      e = ln ? 1.0f + 0.1f * u : u * scale;
    }
    w.emplace(name, std::move(v));
  }
  return w;
}

namespace {

struct Builder {
  Graph& g;
  const VitConfig& c;
  const VitWeights& w;

  const std::vector<float>& get(const std::string& name, int64_t n) const {
    auto it = w.find(name);
    if (it == w.end()) throw InvalidArgument(fmt::format("ViT weights: '{}' is missing", name));
    if (int64_t(it->second.size()) != n)
      throw InvalidArgument(fmt::format("ViT weights: '{}' has {} values, expected {}", name, it->second.size(), n));
    return it->second;
  }
  ValueId constant(const std::string& name, Dims d) {
    return g.constant(name, DType::F32, d, ConstantData::from_vector(get(name, numel(d))));
  }
  ValueId constant_rows(const std::string& name, Dims full, int64_t r0, int64_t rows) {
    const auto& v = get(name, numel(full));
    const int64_t cols = full.size() > 1 ? numel(full) / full[0] : 1;
    std::vector<float> part(v.begin() + r0 * cols, v.begin() + (r0 + rows) * cols);
    Dims d = full;
    d[0] = rows;
    return g.constant(fmt::format("{}[{}:{}]", name, r0, r0 + rows), DType::F32, d, ConstantData::from_vector(std::move(part)));
  }
  ValueId op(const std::string& name, std::vector<ValueId> args, const std::string& label, DType t = DType::F32) {
    ValueId out = g.tensor_like(t, label);
    args.push_back(out);
    g.op(name, args, label);
    return out;
  }
  ValueId layer_norm(ValueId x, const std::string& p, const std::string& label) {
    return op("aten.native_layer_norm.default",
              {x, g.int_list({c.width}), constant(p + ".weight", {c.width}), constant(p + ".bias", {c.width}), g.real(c.ln_eps)},
              label);
  }
  ValueId linear(ValueId x, ValueId wt, ValueId b, const std::string& label) {
    return op("aten.linear.default", {x, wt, b}, label);
  }
};

}  // namespace

VitGraph build_vit_graph(const VitConfig& c, const VitWeights& w, int64_t batch) {
  c.validate();
  if (batch <= 0 || batch > 4096) throw InvalidArgument(fmt::format("ViT batch {} must be in [1, 4096]", batch));
  VitGraph out;
  out.batch = batch;
  Graph& g = out.graph;
  Builder b{g, c, w};
  const int64_t W = c.width, H = c.heads, hd = W / H, gsz = c.grid(), T = c.tokens(), B = batch;
  out.pixels = g.input("pixels", DType::F32, {B, c.channels, c.image_size, c.image_size});
  ValueId x = b.op("aten.convolution.default",
                   {out.pixels, b.constant("patch_embed.proj.weight", {W, c.channels, c.patch, c.patch}),
                    b.constant("patch_embed.proj.bias", {W}), g.int_list({c.patch, c.patch}), g.int_list({0, 0}),
                    g.int_list({1, 1}), g.boolean(false), g.int_list({0, 0}), g.int_value(1)},
                   "patch_embed");
  x = b.op("aten.view_copy.default", {x, g.int_list({B, W, gsz * gsz})}, "patch_flat");
  x = b.op("aten.permute_copy.default", {x, g.int_list({0, 2, 1})}, "patch_tokens");
  if (c.class_token) {
    const auto& cls = b.get("cls_token", W);
    std::vector<float> rep;
    for (int64_t i = 0; i < B; ++i) rep.insert(rep.end(), cls.begin(), cls.end());
    ValueId cv = g.constant("cls_token[B]", DType::F32, {B, 1, W}, ConstantData::from_vector(std::move(rep)));
    x = b.op("aten.cat.default", {g.value_list({cv, x}), g.int_value(1)}, "cat_cls");
  }
  x = b.op("aten.add.Tensor", {x, b.constant("pos_embed", {1, T, W}), g.real(1.0)}, "pos_embed");
  const std::string gelu = c.gelu;
  for (int64_t i = 0; i < c.depth; ++i) {
    g.set_layer(int(i));
    const std::string p = fmt::format("blocks.{}.", i), l = fmt::format("blk.{}.", i);
    ValueId h = b.layer_norm(x, p + "norm1", l + "norm1");
    ValueId heads[3];
    const char* qkv_names[3] = {"q", "k", "v"};
    for (int j = 0; j < 3; ++j) {
      ValueId wt = b.constant_rows(p + "attn.qkv.weight", {3 * W, W}, j * W, W);
      ValueId bias = b.constant_rows(p + "attn.qkv.bias", {3 * W}, j * W, W);
      ValueId t = b.linear(h, wt, bias, l + "attn_" + qkv_names[j]);
      t = b.op("aten.view_copy.default", {t, g.int_list({B, T, H, hd})}, l + qkv_names[j] + "_heads");
      heads[j] = b.op("aten.permute_copy.default", {t, g.int_list({0, 2, 1, 3})}, l + qkv_names[j] + "_bhtd");
    }
    ValueId a = b.op("et_vk.sdpa.default", {heads[0], heads[1], heads[2], g.none(), g.none()}, l + "sdpa");
    a = b.op("aten.permute_copy.default", {a, g.int_list({0, 2, 1, 3})}, l + "attn_bthd");
    a = b.op("aten.view_copy.default", {a, g.int_list({B, T, W})}, l + "attn_merge");
    a = b.linear(a, b.constant(p + "attn.proj.weight", {W, W}), b.constant(p + "attn.proj.bias", {W}), l + "attn_out");
    x = b.op("aten.add.Tensor", {x, a, g.real(1.0)}, l + "attn_residual");
    h = b.layer_norm(x, p + "norm2", l + "norm2");
    h = b.linear(h, b.constant(p + "mlp.fc1.weight", {c.mlp_dim, W}), b.constant(p + "mlp.fc1.bias", {c.mlp_dim}), l + "fc1");
    h = b.op("aten.gelu.default", {h, g.string(gelu)}, l + "gelu");
    h = b.linear(h, b.constant(p + "mlp.fc2.weight", {W, c.mlp_dim}), b.constant(p + "mlp.fc2.bias", {W}), l + "fc2");
    x = b.op("aten.add.Tensor", {x, h, g.real(1.0)}, l + "mlp_residual");
  }
  g.set_layer(-1);
  out.features = b.layer_norm(x, "norm", "final_norm");
  g.output(out.features);
  return out;
}

}  // namespace wgrt::models
