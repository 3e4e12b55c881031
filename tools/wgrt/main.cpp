// wgrt: command-line front end of the wgrt WebGPU inference runtime.
#include <cstdio>
#include <exception>
#include <string>

#include "cli_common.h"
#include "commands.h"
#include "util/printable.h"
#include "wgrt/error.h"

namespace {

// One line: CLI11's messages may contain newlines; then escaped like every message (util/printable.h).
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return wgrt::one_line_message(s);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"wgrt: neural-network inference on any GPU through WebGPU (Dawn)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("wgrt ") + WGRT_VERSION);
  wgrt::cli::add_info(app);
  wgrt::cli::add_generate(app);
  wgrt::cli::add_bench(app);
  wgrt::cli::add_ops(app);
  wgrt::cli::add_graph(app);
  wgrt::cli::add_synth(app);
  wgrt::cli::add_chat(app);
  wgrt::cli::add_template(app);
  wgrt::cli::add_tokenize(app);
  wgrt::cli::add_run(app);
  wgrt::cli::add_ocr(app);
  wgrt::cli::add_serve(app);
  wgrt::cli::document_defaults(app);  // after every add_*: --help shows each option's default
  // CLI11 reports an unknown command word, or an unknown option before the command, as "A subcommand is
  // required": name it and list the commands instead.
  std::string names;
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    known = known || (argc > 1 && sub->get_name() == argv[1]);
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  if (argc == 1) {
    std::fprintf(stderr, "wgrt: error: no command given (commands: %s; see wgrt --help)\n", names.c_str());
    return 1;
  }
  const std::string first = argv[1];
  if (!known && first != "-h" && first != "--help" && first != "--version") {
    std::fprintf(stderr, "wgrt: error: unknown %s '%s' (commands: %s; see wgrt --help)\n",
                 !first.empty() && first[0] == '-' ? "option" : "command", wgrt::printable(argv[1], 80).c_str(), names.c_str());
    return 1;
  }
  try {
    wgrt::cli::CompatArgs args(argc, argv);  // llama.cpp flags: notes on stderr (cli_compat.cpp)
    app.parse(args.argc(), args.argv());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "wgrt: error: %s (see wgrt --help)\n", one_line(e.what()).c_str());
    return 1;
  } catch (const wgrt::Error& e) {
    // Messages quote file strings through printable(); this keeps any other stray byte off the terminal too.
    std::fprintf(stderr, "wgrt: error: %s\n", wgrt::one_line_message(e.what()).c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wgrt: internal error: %s\n", wgrt::one_line_message(e.what()).c_str());
    return 2;
  }
  return 0;
}
