// wgrt: command-line front end of the wgrt WebGPU inference runtime.
#include <cstdio>
#include <exception>
#include <string>

#include "commands.h"
#include "wgrt/error.h"

int main(int argc, char** argv) {
  CLI::App app{"wgrt: neural-network inference on any GPU through WebGPU (Dawn)"};
  app.require_subcommand(1);
  wgrt::cli::add_info(app);
  wgrt::cli::add_generate(app);
  wgrt::cli::add_bench(app);
  wgrt::cli::add_ops(app);
  wgrt::cli::add_graph(app);
  wgrt::cli::add_synth(app);
  // CLI11 reports an unknown command word as "A subcommand is required": name it and list the commands instead.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      known = known || sub->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::fprintf(stderr, "wgrt: error: unknown command '%s' (commands: %s; see wgrt --help)\n", argv[1], names.c_str());
      return 1;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);  // prints help (code 0) or the parse error
    return code == 0 ? 0 : 1;
  } catch (const wgrt::Error& e) {
    std::fprintf(stderr, "wgrt: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wgrt: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
