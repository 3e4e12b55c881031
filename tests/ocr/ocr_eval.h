// Scoring of OCR output against the rendered ground truth (tests/ocr/render_text_images.py's manifest).
//
// Matching: a recognized line belongs to the ground-truth line whose ink box contains its box center (y within
// the box's rows, grown by half its height); the recognized lines of one ground-truth line are joined left to
// right with a space. A ground-truth line with no recognized line is "missed".
// Character accuracy = 1 - (sum of Levenshtein distances over Unicode code points) / (sum of ground-truth
// code points), over all lines of all images (a line's distance capped at its length; missed lines count their
// full length as errors), in two forms:
//  - strict: whitespace runs collapsed to one space, trimmed;
//  - ink (the goal metric): whitespace removed and full-width punctuation folded to ASCII (，->, etc.)
//    on both sides. PP-OCRv4's rec model (a Chinese model) often drops the spaces between Latin words and
//    writes a comma full-width; those are not ink errors.
#pragma once
#include <string>
#include <vector>

#include "wgrt/ocr.h"

namespace wgrt::test {

struct TruthLine {
  std::string text;
  float x0, y0, x1, y1;
};

struct LineScore {
  std::string truth, found;   // whitespace-collapsed
  size_t distance = 0, chars = 0;          // strict
  size_t ink_distance = 0, ink_chars = 0;  // ink
};

std::vector<LineScore> score_lines(const std::vector<TruthLine>& truth, const std::vector<ocr::TextLine>& found);
size_t edit_distance(const std::string& a, const std::string& b);  // over code points
std::string normalize_spaces(const std::string& s);
std::string ink_only(const std::string& s);  // no whitespace, full-width punctuation folded to ASCII

struct E2eResult {
  size_t lines = 0, missed = 0, distance = 0, chars = 0, ink_distance = 0, ink_chars = 0;
  double strict() const { return 1.0 - double(distance) / chars; }
  double ink() const { return 1.0 - double(ink_distance) / ink_chars; }
};

// Runs the manifest images (WGRT_OCR_IMAGES, at most max_images) through `models` and scores them; prints each
// wrong line and a summary. upside_down: every image turned 180 degrees first (the truth boxes turned with it);
// turned_lines (optional) counts the lines cls turned; files (optional): only these manifest files.
E2eResult run_e2e(const ocr::Models& models, const ocr::Options& opt, bool upside_down = false,
                  size_t max_images = 1000, size_t* turned_lines = nullptr, const std::vector<std::string>* files = nullptr);

}  // namespace wgrt::test
