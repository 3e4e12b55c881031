// wgrt CLI subcommands. Each cmd_*.cpp defines one add_* function that registers its subcommand.
#pragma once
#include <CLI/CLI.hpp>

namespace wgrt::cli {
void add_info(CLI::App& app);
void add_generate(CLI::App& app);
void add_bench(CLI::App& app);
void add_ops(CLI::App& app);
void add_graph(CLI::App& app);
void add_synth(CLI::App& app);
}  // namespace wgrt::cli
