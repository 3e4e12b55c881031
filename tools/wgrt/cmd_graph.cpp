// `wgrt graph`: builds a model's graph and prints it (values, nodes, dispatches with grids and routes, memory plan).
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "wgrt/llm.h"

namespace wgrt::cli {


void add_graph(CLI::App& app) {
  auto* cmd = app.add_subcommand("graph", "Build a model's graph and dump it (values, nodes, dispatches, memory plan)");
  auto o = std::make_shared<LlmOptions>();
  add_model_options(cmd, *o);
  cmd->callback([o] {
    auto llm = Llm::load(*o);
    fmt::print("{}", llm->graph_dump());
  });
}

}  // namespace wgrt::cli
