// OCR scoring (see ocr_eval.h).
#include "ocr/ocr_eval.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ocr/image_ops.h"

namespace wgrt::test {
namespace {

std::vector<uint32_t> code_points(const std::string& s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) {
    const uint8_t c = uint8_t(s[i]);
    const int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    uint32_t cp = n == 1 ? c : c & (0x7F >> n);
    for (int k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (uint8_t(s[i + k]) & 0x3F);
    out.push_back(cp);
    i += size_t(n);
  }
  return out;
}

}  // namespace

std::string normalize_spaces(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == ' ' || c == '\t') {
      if (!o.empty() && o.back() != ' ') o += ' ';
    } else {
      o += c;
    }
  }
  while (!o.empty() && o.back() == ' ') o.pop_back();
  return o;
}

std::string ink_only(const std::string& s) {
  static const std::pair<const char*, const char*> fold[] = {{"，", ","}, {"：", ":"}, {"；", ";"}, {"！", "!"},
                                                             {"？", "?"}, {"（", "("}, {"）", ")"}, {"％", "%"}};
  std::string o;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == ' ' || s[i] == '\t') {
      ++i;
      continue;
    }
    bool done = false;
    for (auto [from, to] : fold)
      if (s.compare(i, std::strlen(from), from) == 0) {
        o += to;
        i += std::strlen(from);
        done = true;
        break;
      }
    if (!done) o += s[i++];
  }
  return o;
}

size_t edit_distance(const std::string& sa, const std::string& sb) {
  const auto a = code_points(sa), b = code_points(sb);
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

std::vector<LineScore> score_lines(const std::vector<TruthLine>& truth, const std::vector<ocr::TextLine>& found) {
  std::vector<std::vector<std::pair<float, std::string>>> parts(truth.size());
  for (const auto& f : found) {
    float cx = 0, cy = 0;
    for (auto& p : f.box) cx += p[0] / 4, cy += p[1] / 4;
    for (size_t i = 0; i < truth.size(); ++i) {
      const float pad = (truth[i].y1 - truth[i].y0) / 2;
      if (cy >= truth[i].y0 - pad && cy <= truth[i].y1 + pad && cx >= truth[i].x0 - pad && cx <= truth[i].x1 + pad) {
        parts[i].push_back({f.box[0][0], f.text});
        break;
      }
    }
  }
  std::vector<LineScore> out;
  for (size_t i = 0; i < truth.size(); ++i) {
    std::sort(parts[i].begin(), parts[i].end());
    std::string joined;
    for (auto& [x, t] : parts[i]) joined += (joined.empty() ? "" : " ") + t;
    LineScore s;
    s.truth = normalize_spaces(truth[i].text);
    s.found = normalize_spaces(joined);
    s.distance = edit_distance(s.truth, s.found);
    s.chars = code_points(s.truth).size();
    s.ink_distance = edit_distance(ink_only(s.truth), ink_only(s.found));
    s.ink_chars = code_points(ink_only(s.truth)).size();
    out.push_back(s);
  }
  return out;
}

E2eResult run_e2e(const ocr::Models& models, const ocr::Options& opt, bool upside_down, size_t max_images,
                  size_t* turned_lines, const std::vector<std::string>* files) {
  std::ifstream f(std::string(WGRT_OCR_IMAGES) + "/manifest.json");
  EXPECT_TRUE(f) << "run the ocr_images_setup test first (ctest -R ocr)";
  const auto manifest = nlohmann::json::parse(f);
  E2eResult r;
  size_t images = 0;
  for (const auto& m : manifest) {
    if (files && std::find(files->begin(), files->end(), m["file"].get<std::string>()) == files->end()) continue;
    if (images++ == max_images) break;
    auto img = ocr::read_png(std::string(WGRT_OCR_IMAGES) + "/" + m["file"].get<std::string>());
    std::vector<TruthLine> truth;
    for (const auto& l : m["lines"]) {
      TruthLine t{l["text"], l["box"][0], l["box"][1], l["box"][2], l["box"][3]};
      if (upside_down) t = {t.text, img.width - t.x1, img.height - t.y1, img.width - t.x0, img.height - t.y0};
      truth.push_back(t);
    }
    if (upside_down) img = ocr::rotate180(img);
    const auto found = ocr::recognize(img, models, opt);
    for (const auto& f : found)
      if (turned_lines) *turned_lines += f.rotated180;
    for (const auto& s : score_lines(truth, found)) {
      ++r.lines;
      r.missed += s.found.empty();
      r.distance += std::min(s.distance, s.chars);
      r.chars += s.chars;
      r.ink_distance += std::min(s.ink_distance, s.ink_chars);
      r.ink_chars += s.ink_chars;
      if (s.distance)
        std::printf("  %s: '%s' read as '%s' (distance %zu, ink %zu)\n", m["file"].get<std::string>().c_str(),
                    s.truth.c_str(), s.found.c_str(), s.distance, s.ink_distance);
    }
  }
  std::printf("OCR e2e%s: %zu images, %zu lines, %zu missed; character accuracy: ink %.4f (%zu errors / %zu chars), "
              "strict %.4f (%zu / %zu)\n", upside_down ? " (upside down)" : "", std::min(images, max_images), r.lines, r.missed, r.ink(), r.ink_distance, r.ink_chars,
              r.strict(), r.distance, r.chars);
  return r;
}

}  // namespace wgrt::test
