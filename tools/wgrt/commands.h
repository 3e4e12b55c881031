// wgrt CLI subcommands. Each cmd_*.cpp defines one add_* function that registers its subcommand.
#pragma once
#include <CLI/CLI.hpp>

namespace wgrt {
struct LlmOptions;
}

namespace wgrt::cli {

// Shared by the model subcommands (cmd_generate.cpp): -m, -t, --ctx, --prefill-chunk, --adapter, --f32.
void add_model_options(CLI::App* cmd, LlmOptions& o);
// Option validators with one-line messages: whole numbers in [0, 1e8]; finite reals in [lo, hi] or (lo, hi].
CLI::Validator count_check();
CLI::Validator seed_check();  // a whole number in [0, 2^64 - 1]
CLI::Validator real_check(double lo, double hi, bool open_low, const std::string& what);

void add_info(CLI::App& app);
void add_generate(CLI::App& app);
void add_bench(CLI::App& app);
void add_ops(CLI::App& app);
void add_graph(CLI::App& app);
void add_synth(CLI::App& app);
void add_chat(CLI::App& app);
void add_template(CLI::App& app);
void add_tokenize(CLI::App& app);
void add_run(CLI::App& app);  // cmd_run.cpp: ONNX models
void add_ocr(CLI::App& app);  // cmd_ocr.cpp: PP-OCR text detection + recognition
void add_serve(CLI::App& app);
}  // namespace wgrt::cli
