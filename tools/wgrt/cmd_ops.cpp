// `wgrt ops`: every registered op with its kernels and whether it has a resize hook.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include "commands.h"
#include "graph/op_registry.h"
#include "models/onnx_graph/onnx_graph.h"

namespace wgrt::cli {

void add_ops(CLI::App& app) {
  auto* cmd = app.add_subcommand("ops", "List the registered ops, their WGSL kernels and resize support");
  auto onnx_ops = std::make_shared<bool>(false);
  cmd->add_flag("--onnx", *onnx_ops, "List the ONNX operators the importer claims instead (docs/ONNX.md has their limits)");
  cmd->callback([onnx_ops] {
    if (*onnx_ops) {
      const auto ops = onnx::supported_operators();
      fmt::print("{}\n{} ONNX operators\n", fmt::join(ops, " "), ops.size());
      return;
    }
    const auto& all = OpRegistry::builtin().all();
    fmt::print("{:<40} {:<7} {}\n", "op", "resize", "kernels");
    for (const auto& [name, def] : all)
      fmt::print("{:<40} {:<7} {}\n", name, def.resizable ? "yes" : "NO", def.kernels.empty() ? "(host)" : fmt::format("{}", fmt::join(def.kernels, ", ")));
    fmt::print("{} ops\n", all.size());
  });
}

}  // namespace wgrt::cli
