// ONNX Resize (opset 10+) and Upsample (opset 7-9) on 4-D inputs, scaling H and W only (scales [1, 1, sh, sw]
// or sizes [N, C, OH, OW]). Mapped onto the resample ops:
//   nearest, coordinate mode asymmetric, nearest_mode floor (Upsample's nearest) -> aten.upsample_nearest2d;
//   linear, half_pixel / pytorch_half_pixel (OH, OW > 1) -> aten.upsample_bilinear2d (align_corners false);
//   linear, align_corners -> aten.upsample_bilinear2d (align_corners true).
// Other modes and coordinate transforms are refused at load, naming them. Opset 18: `axes` (scales/sizes for
// those dims only; the others keep their size), antialias = 0 and keep_aspect_ratio_policy = stretch (others
// refused).
#include <cmath>

#include "models/onnx_graph/lowering.h"

namespace wgrt::onnx {

namespace {

void lower_resize(Lowering& l) {
  const bool upsample = l.node->op_type == "Upsample";
  l.known_attrs({"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a", "exclude_outside",
                 "extrapolation_value", "scales", "antialias", "axes", "keep_aspect_ratio_policy"});
  if (l.attr_int("antialias", 0) != 0) l.unsupported("antialias = 1 is not supported");
  if (l.attr_str("keep_aspect_ratio_policy", "stretch") != "stretch")
    l.unsupported("keep_aspect_ratio_policy '{}' is not supported (stretch only)", l.attr_str("keep_aspect_ratio_policy", ""));
  const std::string mode = l.attr_str("mode", "nearest");
  const bool v10 = upsample || l.opset() < 11;
  const std::string coord = v10 ? (mode == "nearest" ? "asymmetric" : "half_pixel_v10") : l.attr_str("coordinate_transformation_mode", "half_pixel");
  const std::string nmode = v10 ? "floor" : l.attr_str("nearest_mode", "round_prefer_floor");
  if (l.attr_int("exclude_outside", 0) != 0) l.unsupported("exclude_outside = 1 is not supported");
  const Dims& x = l.dims(0);
  if (x.size() != 4) l.unsupported("input of rank {} is not supported (4-D only)", x.size());
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  if (upsample && l.opset() < 9) {
    for (float f : l.attr_floats("scales")) scales.push_back(f);
  } else if (v10) {
    const HostTensor& s = l.host(1);
    for (int64_t k = 0; k < s.numel(); ++k) scales.push_back(s.at(size_t(k)));
  } else {
    if (l.has(2) && l.host(2).numel() > 0) {
      const HostTensor& s = l.host(2);
      for (int64_t k = 0; k < s.numel(); ++k) scales.push_back(s.at(size_t(k)));
    }
    if (l.has(3) && l.host(3).numel() > 0) sizes = l.host(3).ints();
  }
  if (l.has_attr("axes")) {  // opset 18: scales/sizes name only these dims
    std::vector<double> full_scales(x.size(), 1.0);
    std::vector<int64_t> full_sizes(x.begin(), x.end());
    const std::vector<int64_t> axes = l.attr_ints("axes");
    const size_t given = !scales.empty() ? scales.size() : sizes.size();
    if (axes.size() != given) l.fail("axes has {} entries but scales/sizes {}", axes.size(), given);
    std::vector<bool> seen(x.size(), false);
    for (size_t k = 0; k < axes.size(); ++k) {
      const size_t a = size_t(l.axis(axes[k], x.size(), "axes entry"));
      if (seen[a]) l.fail("axes repeats axis {}", axes[k]);
      seen[a] = true;
      if (!scales.empty()) full_scales[a] = scales[k];
      else full_sizes[a] = sizes[k];
    }
    if (!scales.empty()) scales = full_scales;
    else sizes = full_sizes;
  }
  Dims od = x;
  if (!scales.empty()) {
    if (scales.size() != 4) l.fail("scales has {} values for a 4-D input", scales.size());
    for (size_t k = 0; k < 4; ++k) {
      const double v = std::floor(double(x[k]) * scales[k]);
      if (!(scales[k] > 0) || !(v < double(int64_t(1) << 31))) l.fail("scale {} is not a positive size factor", scales[k]);
      od[k] = int64_t(v);
    }
  } else if (!sizes.empty()) {
    if (sizes.size() != 4) l.fail("sizes has {} values for a 4-D input", sizes.size());
    od = sizes;
    for (int64_t v : od) l.bounded(v, 1, "size");
    scales = {double(od[0]) / double(x[0]), double(od[1]) / double(x[1]), double(od[2]) / double(x[2]), double(od[3]) / double(x[3])};
  } else {
    l.fail("one of scales and sizes must be given");
  }
  if (od[0] != x[0] || od[1] != x[1]) l.unsupported("resizing the batch or channel dim is not supported");
  if (od[2] <= 0 || od[3] <= 0) l.fail("the output {} is empty", dims_str(od));
  ValueId in = l.gpu(0);
  const double sh = scales[2], sw = scales[3];
  ValueId sf;
  auto integral = [](double v) { return v >= 1 && v == std::floor(v) && v < 1e6; };
  if (integral(sh) && integral(sw)) sf = l.g.int_list({int64_t(sh), int64_t(sw)});
  else if (sh == sw) sf = l.g.real(sh);
  else sf = -1;
  // When the output size equals the scaled size the scale formulation is exact; else pass output_size.
  const bool exact_scale = sf >= 0;
  if (mode == "nearest") {
    if (coord != "asymmetric" || nmode != "floor")
      l.unsupported("nearest mode with coordinate_transformation_mode '{}' and nearest_mode '{}' is not supported "
                    "(asymmetric + floor only)", coord, nmode);
    if (!exact_scale && !(double(od[2]) / x[2] == sh && double(od[3]) / x[3] == sw))
      l.unsupported("nearest scales [{}, {}] that are neither integers nor equal are not supported", sh, sw);
    ValueId y = exact_scale ? l.emit("aten.upsample_nearest2d.vec", {in, l.g.none(), sf}, od)
                            : l.emit("aten.upsample_nearest2d.vec", {in, l.g.int_list({od[2], od[3]}), l.g.none()}, od);
    l.set_gpu(0, y, od);
    return;
  }
  if (mode == "linear") {
    bool align = false;
    if (coord == "align_corners") {
      align = true;
      if (sizes.empty() && (double(x[2]) * sh != double(od[2]) || double(x[3]) * sw != double(od[3])))
        l.unsupported("align_corners with scales that give a fractional output size is not supported");
    }
    else if (coord == "half_pixel" || (coord == "pytorch_half_pixel" && od[2] > 1 && od[3] > 1)) align = false;
    else if (coord == "half_pixel_v10") {
      l.unsupported("linear mode before opset 11 (asymmetric coordinates) is not supported");
    } else {
      l.unsupported("linear mode with coordinate_transformation_mode '{}' is not supported", coord);
    }
    // Half-pixel with scale_factors uses 1/scale as ATen does; with sizes, in/out (equal when sizes given).
    const bool use_scale = !align && exact_scale && sizes.empty();
    ValueId y = use_scale ? l.emit("aten.upsample_bilinear2d.vec", {in, l.g.none(), l.g.boolean(false), sf}, od)
                          : l.emit("aten.upsample_bilinear2d.vec", {in, l.g.int_list({od[2], od[3]}), l.g.boolean(align), l.g.none()}, od);
    l.set_gpu(0, y, od);
    return;
  }
  l.unsupported("mode '{}' is not supported (nearest and linear only)", mode);
}

}  // namespace

std::vector<OpRule> resize_rules() { return {{"Resize", 10, lower_resize}, {"Upsample", 7, lower_resize}}; }

}  // namespace wgrt::onnx
