// `wgrt chat`: multi-turn chat with an instruct model (wgrt::ChatSession): the model's chat template, the KV
// cache kept across turns, Ctrl-C stopping the current reply, a summary line per turn on stderr.
//
// Input: on a terminal, a "> " prompt per user turn; otherwise each line of stdin is a user turn (a line
// ending in a backslash continues on the next). /exit, /quit or end of input (Ctrl-D) ends the chat; /clear
// forgets the conversation (the system prompt stays). -p TEXT answers that one question and exits.
// Output: each reply on stdout followed by a newline.
#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cli_common.h"
#include "commands.h"
#include "wgrt/error.h"
#include "wgrt/llm.h"

namespace wgrt::cli {

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) { g_interrupted.store(true); }

// SIGINT sets g_interrupted instead of ending the process; no SA_RESTART, so a blocked read returns EINTR.
void catch_sigint() {
  struct sigaction sa = {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, nullptr);
}

struct ChatArgs {
  std::string system, chat_template, prompt;
  bool drop_old = false, verbose_prompt = false;
};

enum class Read { Line, End };

// One user turn from stdin (backslash-newline continues it). Ctrl-C while waiting is reported and ignored.
Read read_turn(std::string& out, bool terminal) {
  out.clear();
  char* buf = nullptr;
  size_t cap = 0;
  for (;;) {
    errno = 0;
    ssize_t n = getline(&buf, &cap, stdin);
    if (n < 0) {
      if (errno == EINTR) {
        clearerr(stdin);
        g_interrupted.store(false);
        std::fputs("\n(Ctrl-D or /exit ends the chat)\n", stderr);
        if (terminal) write_out("> ");
        continue;
      }
      std::free(buf);
      return out.empty() ? Read::End : Read::Line;
    }
    std::string line(buf, size_t(n));
    if (!line.empty() && line.back() == '\n') line.pop_back();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && line.back() == '\\') {
      line.back() = '\n';
      out += line;
      continue;
    }
    out += line;
    std::free(buf);
    return Read::Line;
  }
}

void print_summary(int turn, const GenerateStats& st) {
  fmt::print(stderr, "[turn {}] prompt: {} tokens ({} cached), {:.1f} tok/s | reply: {} tokens, {:.1f} tok/s | stop: {}\n",
             turn, st.prompt_tokens, st.cached_tokens, st.prefill_tok_s(), st.generated_tokens, st.decode_tok_s(),
             st.stop_reason);
}

}  // namespace

void add_chat(CLI::App& app) {
  auto* cmd = app.add_subcommand("chat", "Chat with an instruct model: its chat template, multi-turn, KV cache kept");
  auto o = std::make_shared<LlmOptions>();
  auto g = std::make_shared<GenerateOptions>();
  auto a = std::make_shared<ChatArgs>();
  g->max_tokens = -1;
  add_model_options(cmd, *o);
  cmd->add_option("--system", a->system, "System prompt");
  cmd->add_option("-p,--prompt", a->prompt, "Answer this one question and exit");
  cmd->add_option("--chat-template", a->chat_template,
                  "Chat template: a Jinja file or a built-in name (" + fmt::format("{}", fmt::join(builtin_chat_templates(), ", ")) +
                      ") (default: the model's, else chatml)");
  cmd->add_option("-n,--n-predict", g->max_tokens, "Max tokens per reply (-1: until the end of the turn or the context)")
      ->check(limit_check())->capture_default_str();
  auto* seed_opt = add_sampling_options(cmd, *g);
  cmd->add_flag("--drop-old-turns", a->drop_old,
                "When the conversation outgrows the context, drop the oldest exchanges (system prompt kept) and "
                "prefill again, instead of stopping with an error");
  cmd->add_flag("--verbose-prompt", a->verbose_prompt, "Print each turn's rendered prompt on stderr");
  cmd->callback([o, g, a, cmd, seed_opt] {
    GenerateOptions gen = *g;
    if (pick_seed(gen, seed_opt))
      fmt::print(stderr, "seed: {} (random; repeat with --seed {})\n", gen.seed, gen.seed);
    auto llm = Llm::load(*o);
    ChatOptions co;
    co.system = a->system;
    co.chat_template = resolve_chat_template(*llm, a->chat_template);
    co.overflow = a->drop_old ? ContextOverflow::DropOldest : ContextOverflow::Error;
    ChatSession chat(*llm, co);
    fmt::print(stderr, "model: {}\nchat template: {}\n", llm->description(), chat.chat_template().origin);
    catch_sigint();
    gen.cancel = &g_interrupted;
    const bool once = cmd->get_option("--prompt")->count() > 0;
    const bool terminal = !once && stdin_is_terminal();
    if (terminal) fmt::print(stderr, "Ctrl-C stops a reply; Ctrl-D or /exit ends the chat; /clear starts over.\n");
    int turn = 0;
    std::string line;
    for (;;) {
      if (once) {
        if (turn > 0) break;
        line = a->prompt;
      } else {
        if (terminal) write_out("> ");
        if (read_turn(line, terminal) == Read::End) break;
        if (line == "/exit" || line == "/quit") break;
        if (line == "/clear") {
          chat.clear();
          continue;
        }
        if (line.empty()) continue;
      }
      ++turn;
      g_interrupted.store(false);
      chat.add("user", line);
      if (a->verbose_prompt) fmt::print(stderr, "prompt:\n{}\n", chat.prompt_text());
      GenerateStats st;
      const int dropped = chat.dropped_messages();
      try {
        st = chat.reply(gen, [](std::string_view s) { write_out(s); });
      } catch (const LimitError& e) {
        if (!terminal) throw;
        fmt::print(stderr, "wgrt: error: {} (/clear starts over)\n", e.what());
        continue;
      }
      write_out("\n");
      if (chat.dropped_messages() > dropped)
        fmt::print(stderr, "wgrt: note: dropped the {} oldest messages to fit the context of {} tokens\n",
                   chat.dropped_messages() - dropped, llm->context());
      if (st.stop_reason == "context") fmt::print(stderr, "wgrt: the reply reached the context limit of {} tokens\n", llm->context());
      print_summary(turn, st);
    }
    if (terminal) write_out("\n");
    finish_out();
  });
}

}  // namespace wgrt::cli
