// DB post-processing (see db_postprocess.h).
#include "ocr/db_postprocess.h"

#include <algorithm>
#include <cmath>

#include "wgrt/error.h"

namespace wgrt::ocr {
namespace {

using Pt = std::array<float, 2>;

double cross(const Pt& o, const Pt& a, const Pt& b) {
  return double(a[0] - o[0]) * (b[1] - o[1]) - double(a[1] - o[1]) * (b[0] - o[0]);
}

// 8-connected components of the binary map; per component, the leftmost and rightmost pixel centers of each
// of its rows (the convex hull of those is the hull of the whole component).
std::vector<std::vector<Pt>> components(const std::vector<uint8_t>& bits, int w, int h) {
  std::vector<int> label(bits.size(), -1);
  std::vector<std::vector<Pt>> out;
  std::vector<int> stack;
  std::vector<std::pair<int, int>> rows;  // per row of the current component: min x, max x
  std::vector<std::pair<int, int>> pix;
  for (int start = 0; start < w * h; ++start) {
    if (!bits[start] || label[start] >= 0) continue;
    const int id = int(out.size());
    const int y0 = start / w;  // the scan finds a component at its top row first
    int y1 = y0;
    label[start] = id;
    stack.assign(1, start);
    pix.clear();
    while (!stack.empty()) {
      const int p = stack.back();
      stack.pop_back();
      const int x = p % w, y = p / w;
      pix.push_back({x, y});
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int nx = x + dx, ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
          const int q = ny * w + nx;
          if (bits[q] && label[q] < 0) label[q] = id, stack.push_back(q);
        }
    }
    for (auto [x, y] : pix) y1 = std::max(y1, y);
    rows.assign(size_t(y1 - y0 + 1), {w, -1});
    for (auto [x, y] : pix) {
      auto& r = rows[y - y0];
      r.first = std::min(r.first, x);
      r.second = std::max(r.second, x);
    }
    std::vector<Pt> pts;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].second < 0) continue;
      pts.push_back({float(rows[i].first), float(y0 + i)});
      if (rows[i].second != rows[i].first) pts.push_back({float(rows[i].second), float(y0 + i)});
    }
    out.push_back(std::move(pts));
  }
  return out;
}

// Mean of prob over the pixels whose centers lie in the (convex) quad, within its bounding box.
float box_score(std::span<const float> prob, int w, int h, const Quad& q) {
  float xmin = q[0][0], xmax = xmin, ymin = q[0][1], ymax = ymin;
  for (auto& p : q) xmin = std::min(xmin, p[0]), xmax = std::max(xmax, p[0]), ymin = std::min(ymin, p[1]), ymax = std::max(ymax, p[1]);
  const int x0 = std::clamp(int(std::floor(xmin)), 0, w - 1), x1 = std::clamp(int(std::ceil(xmax)), 0, w - 1);
  const int y0 = std::clamp(int(std::floor(ymin)), 0, h - 1), y1 = std::clamp(int(std::ceil(ymax)), 0, h - 1);
  double sum = 0;
  int n = 0;
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x) {
      const Pt c{float(x), float(y)};
      bool pos = false, neg = false;
      for (int k = 0; k < 4; ++k) {
        const Pt& a = q[k];
        const Pt& b = q[(k + 1) % 4];
        const double len = std::max(1e-6, double(std::hypot(b[0] - a[0], b[1] - a[1])));
        const double s = cross(a, b, c) / len;  // signed distance from the edge
        pos |= s > 0.5, neg |= s < -0.5;        // pixels within half a pixel of an edge count as inside
      }
      if (pos && neg) continue;
      sum += prob[size_t(y) * w + x];
      ++n;
    }
  return n ? float(sum / n) : 0.0f;
}

}  // namespace

std::vector<Pt> convex_hull(std::vector<Pt> pts) {
  std::sort(pts.begin(), pts.end());
  pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
  if (pts.size() < 3) return pts;
  std::vector<Pt> hull(2 * pts.size());
  size_t k = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    while (k >= 2 && cross(hull[k - 2], hull[k - 1], pts[i]) <= 0) --k;
    hull[k++] = pts[i];
  }
  for (size_t i = pts.size() - 1, t = k + 1; i-- > 0;) {
    while (k >= t && cross(hull[k - 2], hull[k - 1], pts[i]) <= 0) --k;
    hull[k++] = pts[i];
  }
  hull.resize(k - 1);
  return hull;
}

RotRect min_area_rect(const std::vector<Pt>& pts) {
  const std::vector<Pt> hull = convex_hull(pts);
  if (hull.empty()) return {0, 0, 1, 0, 0, 0};
  if (hull.size() == 1) return {hull[0][0], hull[0][1], 1, 0, 0, 0};
  RotRect best{};
  double best_area = -1;
  for (size_t i = 0; i < hull.size(); ++i) {
    const Pt& a = hull[i];
    const Pt& b = hull[(i + 1) % hull.size()];
    double ux = b[0] - a[0], uy = b[1] - a[1];
    const double len = std::hypot(ux, uy);
    if (len == 0) continue;
    ux /= len, uy /= len;
    double lo_u = 1e30, hi_u = -1e30, lo_v = 1e30, hi_v = -1e30;
    for (const Pt& p : hull) {
      const double pu = p[0] * ux + p[1] * uy, pv = -p[0] * uy + p[1] * ux;
      lo_u = std::min(lo_u, pu), hi_u = std::max(hi_u, pu), lo_v = std::min(lo_v, pv), hi_v = std::max(hi_v, pv);
    }
    const double area = (hi_u - lo_u) * (hi_v - lo_v);
    if (best_area < 0 || area < best_area - 1e-9) {
      best_area = area;
      const double cu = (lo_u + hi_u) / 2, cv = (lo_v + hi_v) / 2;
      best = {float(cu * ux - cv * uy), float(cu * uy + cv * ux), float(ux), float(uy),
              float((hi_u - lo_u) / 2), float((hi_v - lo_v) / 2)};
    }
  }
  return best;
}

Quad rect_corners(const RotRect& r) {
  const float vx = -r.uy, vy = r.ux;
  Quad c;
  const float su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
  for (int k = 0; k < 4; ++k)
    c[k] = {r.cx + su[k] * r.half_u * r.ux + sv[k] * r.half_v * vx, r.cy + su[k] * r.half_u * r.uy + sv[k] * r.half_v * vy};
  std::sort(c.begin(), c.end(), [](const Pt& a, const Pt& b) { return a[0] < b[0]; });
  Quad o;
  o[0] = c[1][1] > c[0][1] ? c[0] : c[1];
  o[3] = c[1][1] > c[0][1] ? c[1] : c[0];
  o[1] = c[3][1] > c[2][1] ? c[2] : c[3];
  o[2] = c[3][1] > c[2][1] ? c[3] : c[2];
  return o;
}

std::vector<DetBox> db_boxes(std::span<const float> prob, int map_w, int map_h, int image_w, int image_h,
                             const Options& opt) {
  if (map_w <= 0 || map_h <= 0 || prob.size() != size_t(map_w) * map_h)
    throw InvalidArgument("db_boxes: probability map size does not match its dims");
  std::vector<uint8_t> bits(prob.size());
  for (size_t i = 0; i < prob.size(); ++i) bits[i] = prob[i] > opt.det_threshold;
  auto comps = components(bits, map_w, map_h);
  std::stable_sort(comps.begin(), comps.end(), [](auto& a, auto& b) { return a.size() > b.size(); });
  if (comps.size() > size_t(opt.max_boxes)) comps.resize(size_t(opt.max_boxes));
  std::vector<DetBox> out;
  const float sx = float(image_w) / map_w, sy = float(image_h) / map_h;
  for (const auto& pts : comps) {
    RotRect r = min_area_rect(pts);
    if (2 * std::min(r.half_u, r.half_v) < opt.min_box_side) continue;
    const float score = box_score(prob, map_w, map_h, rect_corners(r));
    if (score < opt.box_threshold) continue;
    // Unclip: offsetting a w x h rectangle outwards by d (round joins) has the (w + 2d) x (h + 2d)
    // rectangle as its minimum-area box; d = area * ratio / perimeter.
    const double w = 2.0 * r.half_u, h = 2.0 * r.half_v;
    const double d = w * h * opt.unclip_ratio / (2 * (w + h));
    r.half_u += float(d), r.half_v += float(d);
    if (2 * std::min(r.half_u, r.half_v) < opt.min_box_side + 2) continue;
    Quad q = rect_corners(r);
    for (auto& p : q) {
      p[0] = std::clamp(std::round(p[0] * sx), 0.0f, float(image_w - 1));
      p[1] = std::clamp(std::round(p[1] * sy), 0.0f, float(image_h - 1));
    }
    const float bw = std::hypot(q[0][0] - q[1][0], q[0][1] - q[1][1]);
    const float bh = std::hypot(q[0][0] - q[3][0], q[0][1] - q[3][1]);
    if (bw <= 3 || bh <= 3) continue;
    out.push_back({q, score});
  }
  return out;
}

void sort_reading_order(std::vector<DetBox>& b) {
  std::stable_sort(b.begin(), b.end(), [](const DetBox& a, const DetBox& c) {
    return a.box[0][1] != c.box[0][1] ? a.box[0][1] < c.box[0][1] : a.box[0][0] < c.box[0][0];
  });
  for (size_t i = 0; i + 1 < b.size(); ++i)
    for (size_t j = i + 1; j-- > 0;) {
      if (std::fabs(b[j + 1].box[0][1] - b[j].box[0][1]) < 10 && b[j + 1].box[0][0] < b[j].box[0][0])
        std::swap(b[j], b[j + 1]);
      else
        break;
    }
}

}  // namespace wgrt::ocr
