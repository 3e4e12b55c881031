// wgrt: command-line front end of the wgrt WebGPU inference runtime.
#include <cstdio>
#include <exception>
#include <string>

#include "commands.h"
#include "wgrt/error.h"

namespace {

// Text from the command line for an error message: control characters shown as '?', at most 80 characters.
std::string printable(const char* s) {
  std::string out;
  for (const char* c = s; *c && out.size() < 80; ++c) out += (static_cast<unsigned char>(*c) < 0x20 || *c == 0x7f) ? '?' : *c;
  return out;
}

// One line: CLI11's messages may contain newlines.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
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
  wgrt::cli::add_template(app);
  wgrt::cli::add_tokenize(app);
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
                 !first.empty() && first[0] == '-' ? "option" : "command", printable(argv[1]).c_str(), names.c_str());
    return 1;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "wgrt: error: %s (see wgrt --help)\n", one_line(e.what()).c_str());
    return 1;
  } catch (const wgrt::Error& e) {
    std::fprintf(stderr, "wgrt: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wgrt: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
